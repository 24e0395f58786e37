#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-check.sh: prove the README's two commands on a pristine Debian 12.
#
# Builds (once, then cached) a minbase bookworm root with mmdebstrap plus
# only git, make and ca-certificates; for every run it unpacks a new copy,
# clones the committed project into it and runs, as root inside a chroot:
#     make check
#     make bench ARCH=arm64 BENCH_QUICK=1
# Every package those need must come from scripts/deps.sh: the root has
# nothing else.  Fails when a step fails, when make check does not end
# with "N passed, 0 failed", when the quick bench leaves no report, or
# when a log shows a command that was not found.
#
# Environment: FRESH_REF (commit to clone, default HEAD), FRESH_MIRROR
# (Debian mirror, default http://deb.debian.org/debian), FRESH_KEEP=1
# (leave the root in place after a successful run).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: fresh-check.sh (no arguments)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "fresh-check needs root (mmdebstrap, chroot, mounts)"

ref=${FRESH_REF:-HEAD}
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
security=${FRESH_SECURITY:-http://deb.debian.org/debian-security}
top=$LAB_BUILD/fresh
base_tar=$top/bookworm-minbase.tar
root=$top/root
logs=$top/logs
project=/work/volatile-lab
start=$(date +%s)

step()
{
	log "[fresh-check $(($(date +%s) - start))s] $*"
}

commit=$(git -C "$LAB_TOP" rev-parse --verify -q "$ref^{commit}") ||
	die "FRESH_REF '$ref' is not a commit of $LAB_TOP"
if [ "$ref" = HEAD ] &&
   [ -n "$(git -C "$LAB_TOP" status --porcelain --untracked-files=no)" ]; then
	log "warning: uncommitted changes are not part of the check (it clones $commit)"
fi

# Mount points inside the root, in mount order.
mounts="proc sys dev dev/pts"

unmount_all()
{
	local m

	for m in dev/pts dev sys proc; do
		if mountpoint -q "$root/$m" 2>/dev/null; then
			umount -l "$root/$m" || true
		fi
	done
}

# A root is only ever removed with nothing mounted in it, and rm never
# crosses into another file system: a leftover bind mount of /dev must
# not take the host's device nodes with it.
remove_root()
{
	unmount_all
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		die "$root still has mounts; unmount them by hand"
	fi
	rm -rf --one-file-system "$root"
}

"$LAB_TOP/scripts/deps.sh" fresh

mkdir -p "$top"
if [ ! -s "$base_tar" ]; then
	step "building the pristine root (mmdebstrap, minbase + git make ca-certificates)"
	rm -f "$base_tar.tmp"
	mmdebstrap --variant=minbase --include=git,make,ca-certificates \
		--format=tar bookworm "$base_tar.tmp" \
		"deb $mirror bookworm main" \
		"deb $mirror bookworm-updates main" \
		"deb $security bookworm-security main"
	mv "$base_tar.tmp" "$base_tar"
else
	step "using the cached pristine root $base_tar"
fi

step "unpacking a new copy of the root"
remove_root
mkdir -p "$root"
trap unmount_all EXIT
tar -xf "$base_tar" -C "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in $mounts; do
	mkdir -p "$root/$m"
	case "$m" in
	proc) mount -t proc proc "$root/proc" ;;
	sys) mount -t sysfs sysfs "$root/sys" ;;
	*) mount --bind "/$m" "$root/$m" ;;
	esac
done

step "cloning $commit into the root"
mkdir -p "$root${project%/*}"
git clone -q --no-hardlinks "$LAB_TOP" "$root$project"
git -C "$root$project" checkout -q "$commit"
rm -rf "$logs"
mkdir -p "$logs"

# in_root NAME CMD: run CMD in the project inside the root, as a new login
# would (no variable of ours leaks in); its output goes to the terminal
# and to logs/NAME.log.
in_root()
{
	local name=$1 t0 rc

	shift
	t0=$(date +%s)
	step "$name: $*"
	set +e
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd $project && $*" 2>&1 | tee "$logs/$name.log"
	rc=${PIPESTATUS[0]}
	set -e
	echo "$name $(($(date +%s) - t0))" >> "$logs/seconds"
	step "$name: exit status $rc after $(($(date +%s) - t0))s"
	return "$rc"
}

failed=""
in_root check "make check" || failed="$failed check"
in_root bench "make bench ARCH=arm64 BENCH_QUICK=1" || failed="$failed bench"

step "checking the logs"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/check.log" | tail -1 || true)
case "$summary" in
*" passed, 0 failed"*) ;;
*) failed="$failed summary('${summary:-none}')" ;;
esac
report=$root$project/build/bench/arm64-quick/check.tap
if [ ! -s "$report" ] || grep -q '^not ok' "$report"; then
	failed="$failed bench-report"
fi
# A tool nothing installed shows as the shell's "not found".
if grep -hE '(: command not found|: [^ ]+: not found)$' "$logs"/*.log; then
	failed="$failed missing-command"
fi

total=$(($(date +%s) - start))
{
	echo "commit $commit"
	echo "make check: $summary"
	cat "$logs/seconds"
	echo "total $total"
} > "$logs/summary"
if [ -n "$failed" ]; then
	step "FAILED:$failed (logs in $logs, root left in $root)"
	exit 1
fi
step "passed: $summary; $(tr '\n' ' ' < "$logs/seconds")(total ${total}s)"
[ "${FRESH_KEEP:-0}" = 1 ] || remove_root
