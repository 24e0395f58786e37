#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tap-summary.sh TAPFILE...: count the results of kselftest-style TAP files
# and print one line per file and the closing line
#     N passed, N failed[, N skipped]
# Exit 1 when anything failed.  Besides "not ok" lines, a file fails when it
# is missing, holds no plan, runs fewer or more tests than planned, bails
# out, or records a non-zero "# exit status: N" (a crash after the last
# result).  Known failures ("not ok ... # TODO") count as skipped and are
# listed, each after the diagnostics just before it.
set -eu

[ $# -ge 1 ] || { echo "usage: tap-summary.sh TAPFILE..." >&2; exit 2; }

total_pass=0 total_fail=0 total_skip=0
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "  missing TAP file $f: counted as 1 failure"
		total_fail=$((total_fail + 1))
		continue
	fi
	# Only top-level lines count; indented lines are subtests.
	read -r pass fail skip todo planned run bail xstatus < <(awk '
		/^ok / && / # [Ss][Kk][Ii][Pp]/ { skip++; run++; next }
		/^ok /                     { pass++; run++; next }
		/^not ok / && / # TODO/    { todo++; run++; next }
		/^not ok /                 { fail++; run++; next }
		/^1\.\.[0-9]+/ && !plan    { plan = 1; planned = substr($1, 4) + 0 }
		/^Bail out!/               { bail = 1 }
		/^# exit status: /         { xstatus = $4 + 0 }
		END {
			printf "%d %d %d %d %d %d %d %d\n", pass, fail, skip, \
				todo, plan ? planned : -1, run, bail, xstatus
		}' "$f")
	notes=""
	if [ "$planned" -lt 0 ]; then
		notes="$notes; no TAP plan"
		fail=$((fail + 1))
	elif [ "$run" -ne "$planned" ]; then
		notes="$notes; planned $planned, ran $run"
		fail=$((fail + 1))
	fi
	if [ "$bail" = 1 ]; then
		notes="$notes; bailed out"
		fail=$((fail + 1))
	fi
	if [ "$xstatus" != 0 ]; then
		notes="$notes; exited with status $xstatus"
		[ "$fail" -gt 0 ] || fail=1
	fi
	[ "$todo" = 0 ] || notes="$notes; $todo known failure(s)"
	printf '  %-40s %3d pass %3d fail %3d skip%s\n' "$f" "$pass" "$fail" \
		"$((skip + todo))" "$notes"
	# Each failure, after the last (up to 3) diagnostics just before
	# it: a CI log shows only this summary.
	awk '
		/^# / && !/^# exit status: / { d[n++] = $0; next }
		/^not ok / {
			for (i = (n > 3 ? n - 3 : 0); i < n; i++)
				print "        " d[i]
			print "      " $0
		}
		{ n = 0 }' "$f"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip + todo))
done

if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" = 0 ]
