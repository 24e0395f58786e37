#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# suite.sh SUITE: run one of the lab's in-guest TAP suites inside a LAVA
# test shell and report it to LAVA.  Not run on the host: scripts/lava-jobs.py
# copies this file into the inline test definition of every suite job.
#
# Each TAP line becomes one lava-test-case: "<n>.<description>" (every run
# of characters outside [A-Za-z0-9_.-] made one "_", cut to LAVA's 100),
# result pass, fail, skip ("# SKIP") or unknown ("not ok ... # TODO", a
# known failure).  Three more cases keep what the lab's TAP summary reads:
# "plan" (measurement: the planned count), "exit-status" (measurement: the
# suite's exit status) and "kernel-log" (fail when the kernel logged one of
# scripts/check-log.sh's reports while the suite ran; LAB_KERNEL_REPORTS
# holds its patterns).  scripts/lava-import.py turns them back into TAP.
# LAB_TAP_DIR (default /lab/out, where run-tests writes) is for the host
# test, scripts/tests/lava-tests.sh.
set -u
suite=$1
tap=${LAB_TAP_DIR:-/lab/out}/$suite.tap
# Kernel messages on the console would split LAVA's signal lines: keep
# them in the ring buffer (read below) while the suite runs.
# The ring buffer is emptied first: what it holds afterwards is the
# suite's.
dmesg -n 1
dmesg -c > /dev/null
run-tests "$suite" || true
echo "---- $tap"
cat "$tap" 2>/dev/null || echo "(no TAP file)"
echo "----"
awk '
function out(res, name) { print res " " substr(name, 1, 100) }
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
/^# exit status: [0-9]+/ { status = $4; next }
/^(not )?ok / {
	res = ($1 == "ok") ? "pass" : "fail"
	line = $0
	sub(/^(not )?ok[ \t]*/, "", line)
	n = line
	sub(/[^0-9].*$/, "", n)
	desc = substr(line, length(n) + 1)
	dir = ""
	if (match(desc, /[ \t]#[ \t]*[A-Za-z]+/)) {
		dir = toupper(substr(desc, RSTART, RLENGTH))
		sub(/^[ \t]#[ \t]*/, "", dir)
		desc = substr(desc, 1, RSTART - 1)
	}
	if (dir == "SKIP")
		res = "skip"
	else if (dir == "TODO" && res == "fail")
		res = "unknown"
	gsub(/[^A-Za-z0-9_.-]+/, "_", desc)
	sub(/^[_.-]+/, "", desc)
	sub(/_+$/, "", desc)
	out(res, n "." desc)
}
END {
	if (plan == "")
		print "fail plan"
	else
		print "pass plan " plan
	if (status == "")
		print "fail exit-status"
	else
		print ((status == 0) ? "pass" : "fail") " exit-status " status
}' "$tap" 2>/dev/null | while read -r res name value; do
	if [ -n "$value" ]; then
		lava-test-case "$name" --result "$res" --measurement "$value" --units count
	else
		lava-test-case "$name" --result "$res"
	fi
done
reports=$(dmesg | grep -E "${LAB_KERNEL_REPORTS:?}" |
	grep -E '^(\[ *[0-9]+\.[0-9]+\]|Kernel panic)')
if [ -n "$reports" ]; then
	echo "kernel reports while $suite ran:"
	printf '%s\n' "$reports"
	lava-test-case kernel-log --result fail
else
	lava-test-case kernel-log --result pass
fi
exit 0
