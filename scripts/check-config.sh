#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-config.sh DOTCONFIG FRAGMENT...: fail, naming each option, when the
# final .config does not hold what the fragments ask for.  Later fragments
# override earlier ones, as with merge_config.sh.  Kconfig drops options
# silently when a dependency is missing; this makes that loud.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || { echo "usage: check-config.sh DOTCONFIG FRAGMENT..." >&2; exit 2; }
dotconfig=$1
shift
[ -r "$dotconfig" ] || die "cannot read $dotconfig"
for f in "$@"; do
	[ -r "$f" ] || die "cannot read fragment $f"
done

[ -s "$dotconfig" ] || die "$dotconfig is empty"

# The .config comes first (NR == FNR), then the fragments in order.
awk '
NR == FNR {
	if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
		name = $0; sub(/=.*/, "", name)
		val = $0; sub(/^[^=]*=/, "", val)
		have[name] = val
	}
	next
}
/^CONFIG_[A-Za-z0-9_]+=/ {
	name = $0; sub(/=.*/, "", name)
	val = $0; sub(/^[^=]*=/, "", val)
	ask(name, val)
	next
}
/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { ask($2, "n"); next }
/^[ \t]*(#.*)?$/ { next }
{
	printf "%s:%d: malformed line: %s\n", FILENAME, FNR, $0
	bad++
}
function ask(name, val)
{
	if (!(name in want))
		order[++n] = name
	want[name] = val
}
END {
	for (i = 1; i <= n; i++) {
		name = order[i]
		got = (name in have) ? have[name] : "n"
		if (got != want[name]) {
			printf "%s: asked for %s, got %s\n", name, want[name], \
				(name in have) ? got : "not set"
			bad++
		}
	}
	exit bad ? 1 : 0
}' "$dotconfig" "$@" >&2 ||
	die "the kernel config does not hold what kernel/config asks for (see above); a dependency is probably missing"
