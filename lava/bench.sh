#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh FAMILY MODE: run one family of the lab's benchmark matrix
# (bench-matrix MODE, its plan cut to FAMILY's runs) inside a LAVA test
# shell and report every CSV row to LAVA as a measurement.  Not run on the
# host: scripts/lava-jobs.py copies this file into the inline test
# definition of every benchmark job.
#
# LAB_MACHINE and LAB_ACCEL (test parameters) say what the run is on;
# "dt-model" in LAB_MACHINE is replaced by the board's device-tree model.
#
# Test cases (decoded by scripts/lava-import.py):
#   meta.<key>.<value>            one per CSV metadata line, result pass
#   <backend>.<bench>.<param>.<metric>.<rep>
#                                 one per CSV row: measurement and units
#   bench-matrix                  pass when every run of the family passed
# Fields are percent-encoded: every byte outside [A-Za-z0-9_-] is %XX, so
# "." separates fields and no "=" or space reaches LAVA's signal parser.
set -u
family=$1 mode=$2
out=/tmp/lava-bench
rm -rf "$out"
mkdir -p "$out"
# bench-matrix runs every family; a copy of it keeps FAMILY's runs (and
# the swap switches) of the plan it wrote, just before it counts them.
awk -v fam="$family" '
/^total=\$\(grep -vc / && !done {
	print "grep -E \"^(" fam "|@swap) \" \"$plan\" > \"$plan.family\" && mv \"$plan.family\" \"$plan\""
	done = 1
}
{ print }
END { exit !done }' /opt/lab/bin/bench-matrix > /tmp/bench-family || {
	echo "bench.sh: /opt/lab/bin/bench-matrix has no 'total=\$(grep -vc' line to cut its plan at"
	lava-test-case bench-matrix --result fail
	exit 0
}
dmesg -n 1
rc=0
sh /tmp/bench-family "$mode" "$out" || rc=$?
csv=$out/$family.csv
[ -f "$csv" ] || { echo "bench.sh: no $csv"; lava-test-case bench-matrix --result fail; exit 0; }
machine=$LAB_MACHINE
if [ "$machine" = dt-model ]; then
	machine=$(tr -d '\0' < /proc/device-tree/model 2>/dev/null || echo unknown)
fi
# The CSV as the lab keeps it, with the truth about the machine.
awk -v machine="$machine" -v accel="$LAB_ACCEL" '
/^# machine: / { print "# machine: " machine; next }
/^# accel: / { print "# accel: " accel; next }
{ print }' "$csv" > "$csv.tmp" && mv "$csv.tmp" "$csv"
echo "---- $csv"
cat "$csv"
echo "----"
awk '
BEGIN { for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i }
function enc(s,    r, c, i) {
	r = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c ~ /[A-Za-z0-9_-]/)
			r = r c
		else
			r = r sprintf("%%%02X", ord[c])
	}
	return r
}
/^# [a-z_]+: / {
	key = substr($2, 1, length($2) - 1)
	value = $0
	sub(/^# [a-z_]+: /, "", value)
	print "pass meta." enc(key) "." enc(value)
	next
}
/^backend,/ { next }
{
	n = split($0, f, ",")
	if (n != 7) { print "fail csv-row-" NR; next }
	print "pass " enc(f[1]) "." enc(f[2]) "." enc(f[3]) "." enc(f[5]) "." enc(f[7]) " " f[4] " " f[6]
}' "$csv" | while read -r res name value units; do
	if [ -n "$value" ]; then
		lava-test-case "$name" --result "$res" --measurement "$value" --units "$units"
	else
		lava-test-case "$name" --result "$res"
	fi
done
if [ -f "$out/failed-runs.txt" ]; then
	echo "failed runs:"
	cat "$out/failed-runs.txt"
	rc=1
fi
lava-test-case bench-matrix --result "$([ "$rc" = 0 ] && echo pass || echo fail)"
exit 0
