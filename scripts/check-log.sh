#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-log.sh CONSOLE_LOG: fail when a guest's kernel log shows a panic,
# Oops, BUG, WARNING, KASAN, UBSAN, lockdep or RCU-stall report, printing
# each offending line with its number (an OOM victim's own allocation
# failure is not one).  Exit 0: clean; 1: reports found; 2: usage or
# unreadable log.
set -eu

[ $# -eq 1 ] || { echo "usage: check-log.sh CONSOLE_LOG" >&2; exit 2; }
[ -r "$1" ] || { echo "check-log.sh: cannot read $1" >&2; exit 2; }

# One extended regular expression per kind of kernel report.
patterns=(
	'Kernel panic - not syncing'
	'Internal error: Oops'
	'Oops: [0-9a-fx]+'
	'kernel BUG at'
	'BUG: '
	'WARNING: '
	'KASAN: '
	'UBSAN: '
	'general protection fault'
	'Unable to handle kernel'
	'DEBUG_LOCKS_WARN_ON'
	'possible (circular|recursive) locking'
	'inconsistent lock state'
	'suspicious RCU usage'
	'rcu: INFO: .* detected stall'
	'INFO: task .* blocked for more than'
	'watchdog: BUG: soft lockup'
	'page allocation failure'
)
regex=$(IFS='|'; echo "${patterns[*]}")

# The console also carries the kernel command line and userspace messages
# (init, a shell); count only lines that the kernel printed with a
# timestamp, plus panic lines, which can come without one.
reports=$(grep -nE "$regex" "$1" |
	grep -E '^[0-9]+:(\[ *[0-9]+\.[0-9]+\]|Kernel panic)' || true)

# An OOM victim's own allocation failing is the OOM killer's doing, not
# a kernel bug: once killed, a task's allocations may fail (it gets the
# reserves once), and warn_alloc() says so.  A "page allocation failure"
# line is left out when the "PID: N" of the stack dump right after it
# names a process the log said was killed before it.
victim_failures=$(awk '
	/Killed process [0-9]+ / {
		for (i = 1; i < NF; i++)
			if ($i == "process")
				killed[$(i + 1)] = 1
	}
	/page allocation failure/ { failure = NR; next }
	failure && NR <= failure + 3 && match($0, /PID: [0-9]+ /) {
		if (substr($0, RSTART + 5, RLENGTH - 6) in killed)
			print failure
		failure = 0
	}' "$1")
for n in $victim_failures; do
	reports=$(printf '%s\n' "$reports" | grep -v "^$n:" || true)
done
if [ -n "$reports" ]; then
	echo "kernel reports in $1:" >&2
	printf '%s\n' "$reports" | sed 's/^/    /' >&2
	exit 1
fi
exit 0
