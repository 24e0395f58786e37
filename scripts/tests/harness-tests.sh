#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-tests.sh ARCH: prove, on the real normal kernel, that the harness
# fails when it must: a failing or crashing in-guest test, a real kernel
# WARNING (provoked through lkdtm), a hung guest, a guest that powers off
# before the job ends; and that it propagates a job's exit status.  TAP out.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
S=$top/scripts
# shellcheck source=scripts/lib.sh
. "$S/lib.sh"

[ $# -eq 1 ] || { echo "usage: harness-tests.sh ARCH" >&2; exit 2; }
arch=$1
check_arch "$arch"
work=$LAB_BUILD/runs/harness-$arch
rm -rf "$work"
mkdir -p "$work"

n=0
ok()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

# boot NAME TIMEOUT JOB-TEXT [BOOT-OPTION...]: run a job; sets rc and
# leaves $work/NAME.
boot()
{
	local name=$1 timeout=$2

	printf '%s\n' "$3" > "$work/$name.job"
	shift 3
	rc=0
	"$S/boot.sh" --arch "$arch" --debug 0 --mem 512 --cpus 1 \
		--timeout "$timeout" --quiet --run-dir "$work/$name" \
		--job "$work/$name.job" "$@" > "$work/$name.out" 2>&1 || rc=$?
	sed 's/^/# /' "$work/$name.out"
}

echo "TAP version 13"

boot status 300 'echo running; exit 3'
ok "$([ "$rc" = 3 ]; echo $?)" "a job's exit status (3) is the runner's (got $rc)"
ok "$(grep -qx running "$work/status/share/job.log"; echo $?)" \
	"the job's output reaches the host"

# shellcheck disable=SC2016 # expanded in the guest
boot selftest 300 'for m in pass fail crash; do
	harness_selftest $m > /lab/out/$m.tap 2>&1
	echo "# exit status: $?" >> /lab/out/$m.tap
done'
out=$work/selftest/share/out
# summary_is TAPFILE STATUS LAST-LINE: tap-summary exits STATUS, ends so.
summary_is()
{
	local text st=0

	text=$("$S/tap-summary.sh" "$1") || st=$?
	printf '%s\n' "$text" | sed 's/^/# /' >&2
	[ "$st" = "$2" ] && [ "$(printf '%s\n' "$text" | tail -n 1)" = "$3" ]
}
ok "$([ "$rc" = 0 ] &&
	summary_is "$out/pass.tap" 0 '2 passed, 0 failed, 1 skipped'; echo $?)" \
	"a passing in-guest suite is summarised as passing"
ok "$(summary_is "$out/fail.tap" 1 '1 passed, 1 failed, 1 skipped'; echo $?)" \
	"a failing in-guest test is counted and fails the summary"
ok "$(summary_is "$out/crash.tap" 1 '1 passed, 1 failed, 1 skipped'; echo $?)" \
	"an in-guest suite that crashes fails the summary"

boot warning 300 'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT
echo survived the warning'
ok "$([ "$rc" = 1 ] && grep -q 'WARNING: CPU' "$work/warning/console.log" &&
	grep -q 'kernel log shows' "$work/warning.out"; echo $?)" \
	"a real kernel WARNING fails the run although the job succeeded"

boot hang 20 'sleep 100000'
ok "$([ "$rc" = 1 ] && grep -q 'did not power off within 20s' "$work/hang.out"; echo $?)" \
	"a hung guest is stopped at the timeout and fails"

boot poweroff 300 'reboot -f'
ok "$([ "$rc" = 1 ] && grep -q 'no job status' "$work/poweroff.out"; echo $?)" \
	"a guest that stops before the job ends fails"

# appbench discards a run whose ballast the OOM killer took (a tmpfs
# file fills memory that no kill frees): exit status 3, which
# bench-matrix counts as discarded, and one ballast_lost row.
# shellcheck disable=SC2016 # expanded in the guest
boot discard 300 'mkdir -p /tmp/fill && mount -t tmpfs -o size=2G none /tmp/fill
echo -1000 > /proc/self/oom_score_adj
/opt/lab/bin/appbench_volatile --backend volatile --apps 3 --cache-mib 4 \
	--object-kib 256 --fg-mib 8 --switches 40 --ops 20 --free-mib 16 \
	--sweep --csv /lab/out/discard.csv &
pid=$!
sleep 2
dd if=/dev/zero of=/tmp/fill/x bs=1M \
	count=$(($(awk "/MemFree/ { print int(\$2 / 1024) }" /proc/meminfo) + 64)) 2>/dev/null
rc=0
wait $pid || rc=$?
echo "appbench exit $rc"'
ok "$([ "$rc" = 0 ] && grep -q '^appbench exit 3$' "$work/discard/share/job.log" &&
	grep -q '^volatile,app_sweep,free_mib=16,1,ballast_lost,count,1$' \
		"$work/discard/share/out/discard.csv"; echo $?)" \
	"appbench: a run that lost its ballast exits 3 with one ballast_lost row"

# appbench's file working sets (the regime sweep's): bad arguments are
# refused before anything is written, and a run on the files share
# (boot.sh --files, 9p through the page cache) reads its files from the
# host: major faults, a session's reads timed.
# shellcheck disable=SC2016 # expanded in the guest
boot files 300 'b="/opt/lab/bin/appbench_volatile --backend volatile --apps 2
	--cache-mib 2 --object-kib 256 --fg-mib 2 --switches 3 --ops 4
	--free-mib 64 --sweep"
for case in "nodir:--file-mib 1" "tmpfs:--file-mib 1 --file-dir /tmp" \
	    "missing:--file-mib 1 --file-dir /nonexistent" \
	    "notdir:--file-mib 1 --file-dir /init" \
	    "zero:--file-mib 0 --file-dir /files"; do
	rc=0
	$b ${case#*:} > /lab/out/${case%%:*}.txt 2>&1 || rc=$?
	echo "${case%%:*} exit $rc"
done
ls /tmp /files > /lab/out/after-errors.txt
rc=0
$b --file-mib 1 --file-dir /files --csv /lab/out/files.csv || rc=$?
echo "run exit $rc"
ls -l /files > /lab/out/files-ls.txt' --files
out=$work/files/share/out
# refused NAME MESSAGE: that case exited 2 and said MESSAGE.
refused()
{
	grep -q "^$1 exit 2\$" "$work/files/share/job.log" &&
		grep -q "$2" "$out/$1.txt"
}
ok "$([ "$rc" = 0 ] && refused nodir 'go together' &&
	refused tmpfs 'on tmpfs or ramfs' &&
	refused missing 'No such file or directory' &&
	refused notdir 'Not a directory' &&
	refused zero "file-mib: '0' is not a number" &&
	! grep -q appbench- "$out/after-errors.txt"; echo $?)" \
	"appbench: a file working set it cannot use is refused (exit 2, the reason), nothing written"
# value METRIC: the run's value of METRIC, or nothing.
value()
{
	awk -F, -v m="$1" '$5 == m { print $4 }' "$out/files.csv" 2>/dev/null
}
ok "$(grep -q '^run exit 0$' "$work/files/share/job.log" &&
	[ "$(value file_mib)" = 1 ] &&
	awk "BEGIN { exit !($(value file_sessions) >= 1 &&
		$(value file_majfaults) >= 1 &&
		$(value file_warm_sessions) >= 1 && $(value file_warm_ms_p50) > 0) }" &&
	[ "$(grep -c 'appbench-[01].dat' "$out/files-ls.txt")" = 2 ]; echo $?)" \
	"appbench: the apps read their files on the files share (major faults, sessions timed)"

echo "1..$n"
