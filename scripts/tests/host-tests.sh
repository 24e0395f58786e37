#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host-tests.sh: unit tests of the host-side scripts, in TAP: the kernel log
# checker, the config checker, the TAP summary, argument checking, and the
# kernel tree's extract/apply/export cycle on a small fake tarball.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
S=$top/scripts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/tests/tap-lib.sh
. "$S/tests/tap-lib.sh"

# The plan comes last (valid TAP): a script that dies early has none, and
# tap-summary.sh counts that as a failure.
echo "TAP version 13"

# --- check-log.sh -----------------------------------------------------
log=$tmp/console.log
printf '%s\n' '[    0.000000] Linux version 6.1.192-vl0123456789' \
	'[    0.000000] Kernel command line: console=ttyAMA0 panic=-1 panic_on_warn=1' \
	'[    1.000000] Run /init as init process' \
	'WARNING: this line was printed by userspace, not the kernel' > "$log"
expect 0 '' "check-log: a clean log passes" -- "$S/check-log.sh" "$log"
for report in \
	'[   12.345678] WARNING: CPU: 1 PID: 77 at mm/vmscan.c:123 shrink_folio_list+0x1/0x2' \
	'[    3.000000] BUG: KASAN: slab-out-of-bounds in foo+0x10/0x20' \
	'[    3.000000] WARNING: possible circular locking dependency detected' \
	'[    3.000000] Internal error: Oops: 0000000096000004 [#1] SMP' \
	'[    3.000000] BUG: sleeping function called from invalid context at mm/x.c:1' \
	'Kernel panic - not syncing: panic_on_warn set ...' \
	'[    9.100000] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'; do
	cp "$log" "$tmp/bad.log"
	echo "$report" >> "$tmp/bad.log"
	expect 1 "${report:15:18}" "check-log: flags '${report:15:30}'" -- \
		"$S/check-log.sh" "$tmp/bad.log"
done
expect 2 'cannot read' "check-log: a missing log is an error" -- \
	"$S/check-log.sh" "$tmp/nonexistent.log"
# allocfail PID: a page allocation failure of task PID, as warn_alloc()
# prints it (make bench KERNEL=6.12, 2026-12-07: the purge hog, killed).
allocfail()
{
	printf '%s\n' '[  103.780167] hog: page allocation failure: order:0, mode:0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), nodemask=(null)' \
		"[  103.780547] CPU: 2 UID: 0 PID: $1 Comm: hog Not tainted 6.12.118-vl0123456789 #10"
}
killed='[  103.770649] Out of memory: Killed process 3467 (hog) total-vm:918508kB, anon-rss:890688kB'
{ cat "$log"; echo "$killed"; allocfail 3467; } > "$tmp/victim.log"
expect 0 '' "check-log: an OOM victim's own allocation failure is not a report" -- \
	"$S/check-log.sh" "$tmp/victim.log"
{ cat "$log"; echo "$killed"; allocfail 3468; } > "$tmp/victim.log"
expect 1 'page allocation failure' \
	"check-log: another task's allocation failure after a kill is flagged" -- \
	"$S/check-log.sh" "$tmp/victim.log"
{ cat "$log"; allocfail 3467; echo "$killed"; } > "$tmp/victim.log"
expect 1 'page allocation failure' \
	"check-log: an allocation failure before its task was killed is flagged" -- \
	"$S/check-log.sh" "$tmp/victim.log"

# --- check-config.sh --------------------------------------------------
printf '%s\n' 'CONFIG_A=y' 'CONFIG_B="text"' '# CONFIG_C is not set' \
	'CONFIG_D=64' > "$tmp/.config"
printf '%s\n' '# comment' '' 'CONFIG_A=y' 'CONFIG_B="text"' \
	'# CONFIG_C is not set' '# CONFIG_E is not set' > "$tmp/good.config"
expect 0 '' "check-config: fragments that hold pass" -- \
	"$S/check-config.sh" "$tmp/.config" "$tmp/good.config"
printf '%s\n' 'CONFIG_A=y' 'CONFIG_Z=y' > "$tmp/dropped.config"
expect 1 'CONFIG_Z: asked for y, got not set' \
	"check-config: a dropped option fails, named" -- \
	"$S/check-config.sh" "$tmp/.config" "$tmp/dropped.config"
printf '%s\n' '# CONFIG_A is not set' > "$tmp/off.config"
expect 1 'CONFIG_A: asked for n, got y' \
	"check-config: an option asked off but on fails" -- \
	"$S/check-config.sh" "$tmp/.config" "$tmp/off.config"
printf '%s\n' 'CONFIG_D=32' > "$tmp/d32.config"
printf '%s\n' 'CONFIG_D=64' > "$tmp/d64.config"
expect 0 '' "check-config: a later fragment overrides an earlier one" -- \
	"$S/check-config.sh" "$tmp/.config" "$tmp/d32.config" "$tmp/d64.config"
printf '%s\n' 'CONFIG_A=y' 'CONFG_TYPO=y' > "$tmp/typo.config"
expect 1 'typo.config:2: malformed line' \
	"check-config: a malformed fragment line fails, named" -- \
	"$S/check-config.sh" "$tmp/.config" "$tmp/typo.config"

# --- tap-summary.sh ---------------------------------------------------
printf '%s\n' 'TAP version 13' '1..3' 'ok 1 a' 'ok 2 b' \
	'ok 3 c # SKIP no reason' '# exit status: 0' > "$tmp/pass.tap"
expect 0 '^2 passed, 0 failed, 1 skipped$' "tap-summary: a passing file" -- \
	"$S/tap-summary.sh" "$tmp/pass.tap"
printf '%s\n' '1..2' 'ok 1 a' 'not ok 2 b' > "$tmp/fail.tap"
expect 1 '^1 passed, 1 failed$' "tap-summary: a failing test fails" -- \
	"$S/tap-summary.sh" "$tmp/fail.tap"
printf '%s\n' '1..2' '# old' 'ok 1 a' '# d1' '# d2' '# d3' '# d4' \
	'not ok 2 b' > "$tmp/diag.tap"
"$S/tap-summary.sh" "$tmp/diag.tap" > "$tmp/diag.out" 2>&1 || true
ok "$([ "$(grep -A3 '^        # d2$' "$tmp/diag.out" | tr -d ' ' |
	   tr '\n' ,)" = "#d2,#d3,#d4,notok2b," ] && ! grep -q 'd1\|old' \
	   "$tmp/diag.out"; echo $?)" \
	"tap-summary: a failure comes after the 3 diagnostics just before it"
printf '%s\n' '1..3' 'ok 1 a' > "$tmp/short.tap"
expect 1 'planned 3, ran 1' "tap-summary: fewer tests than planned fail" -- \
	"$S/tap-summary.sh" "$tmp/short.tap"
printf '%s\n' 'ok 1 a' > "$tmp/noplan.tap"
expect 1 'no TAP plan' "tap-summary: a file without a plan fails" -- \
	"$S/tap-summary.sh" "$tmp/noplan.tap"
printf '%s\n' '1..1' 'ok 1 a' '# exit status: 139' > "$tmp/crash.tap"
expect 1 'exited with status 139' "tap-summary: a crash after passing fails" -- \
	"$S/tap-summary.sh" "$tmp/crash.tap"
printf '%s\n' '1..2' 'ok 1 a' 'not ok 2 b # TODO kernel lacks x' > "$tmp/todo.tap"
expect 0 '1 known failure' "tap-summary: a known failure is listed, not passed" -- \
	"$S/tap-summary.sh" "$tmp/todo.tap"
expect 1 'missing TAP file' "tap-summary: a missing file fails" -- \
	"$S/tap-summary.sh" "$tmp/pass.tap" "$tmp/none.tap"

# --- arguments --------------------------------------------------------
expect 2 "unknown ARCH 'bogus'" "make: an unknown ARCH is refused, named" -- \
	make -s -C "$top" ARCH=bogus check
expect 2 "DEBUG must be 0 or 1" "make: a bad DEBUG is refused" -- \
	make -s -C "$top" DEBUG=yes kernel
expect 2 "RUN is empty" "make run without RUN is refused before building" -- \
	make -s -C "$top" run RUN=
expect 2 "unknown ARCH 'bogus'" "make bench: an unknown ARCH is refused" -- \
	make -s -C "$top" ARCH=bogus bench
expect 1 "unknown mode 'slow'" "bench.sh: an unknown mode is refused" -- \
	"$S/bench.sh" arm64 slow
expect 1 "BENCH_SWEEP must be 0 or 1, not 'yes'" \
	"bench.sh: a bad BENCH_SWEEP is refused" -- \
	env BENCH_SWEEP=yes "$S/bench.sh" arm64 quick
expect 1 "unknown board 'nosuch' .no kernel/config/board-nosuch.config" \
	"kernel-build.sh: an unknown board is refused, named" -- \
	env LAB_KERNEL_BOARD=nosuch "$S/kernel-build.sh" arm64 0 config
expect 1 "board kernels are arm64 and not debug" \
	"kernel-build.sh: a debug board kernel is refused" -- \
	env LAB_KERNEL_BOARD=vim3 "$S/kernel-build.sh" arm64 1 config
expect 2 "lava-kernel: ARCH=arm64 only" "make lava-kernel: x86_64 is refused" -- \
	make -s -C "$top" ARCH=x86_64 lava-kernel

expect 1 "SECONDS must be a positive integer, not '10m'" \
	"stress.sh: a bad duration is refused" -- "$S/stress.sh" arm64 1 10m
printf 'seconds 5\nmarks x\n' > "$tmp/stress.txt"
expect 1 'stress.txt:2: expected' \
	"reliability-report: a malformed figures file is named by line" -- \
	python3 "$S/reliability-report.py" "$tmp/rel.md" "$tmp/stress.txt" \
	"$tmp/stress.txt" arm64 r 0 0
ok "$([ ! -e "$tmp/rel.md" ]; echo $?)" \
	"reliability-report: nothing is written from a malformed file"

# --- bench/lib/vtrace.c: the tracepoints' sums --------------------------
# Built for the host from the same source as the guest's purgebench.
gcc -O2 -Wall -Wextra -Werror -o "$tmp/vtrace-sum" "$S/tests/vtrace-sum.c" \
	"$top/bench/lib/vtrace.c"
cat > "$tmp/trace" <<'TRACE'
# tracer: nop
# entries-in-buffer/entries-written: 9/11   #P:4
         kswapd0-50      [003] .....     2.505699: volatile_shrink_start: nid=0 memcg=51 nr_to_scan=512 ranges=1 priority=6 gfp_flags=GFP_KERNEL
         kswapd0-50      [003] .....     2.510048: volatile_shrink_end: nid=0 memcg=51 purged=512 visited=1 kept=0 skipped nofs=0 sem=0 ilock=0 freeing=0 mm=0 mmap=0 busy=0 locked=0 alongside=0
 purgebench_vola-312     [001] .....     2.511373: volatile_shrink_start: nid=0 memcg=51 nr_to_scan=1024 ranges=1 priority=5 gfp_flags=GFP_HIGHUSER_MOVABLE
 purgebench_vola-312     [001] .....     2.511733: volatile_shrink_end: nid=0 memcg=51 purged=384 visited=1 kept=128 skipped nofs=0 sem=1 ilock=0 freeing=0 mm=0 mmap=0 busy=0 locked=0 alongside=0
 kswapd_is_not_me-7      [000] .....     2.511800: volatile_shrink_start: nid=0 memcg=51 nr_to_scan=256 ranges=1 priority=7 gfp_flags=GFP_KERNEL
 kswapd_is_not_me-7      [000] .....     2.511900: volatile_shrink_end: nid=0 memcg=51 purged=256 visited=1 kept=0 skipped nofs=0 sem=0 ilock=0 freeing=0 mm=0 mmap=0 busy=0 locked=0 alongside=0
 kswapd_is_not_me-7      [000] .....     2.512000: volatile_purge_kept: nid=0 memcg=51 priority=4 kept=300 purged=256
         kswapd0-50      [002] .....     2.512100: volatile_purge_kept: nid=0 memcg=51 priority=4 kept=100 purged=64
         kswapd0-50      [002] .....     2.512200: mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=32 purged=9999
TRACE
expect 0 '^calls=3 ends=3 asked=1792 purged=1152 kept=128$' \
	"vtrace: shrinker calls, pages asked, purged and kept summed" -- \
	"$tmp/vtrace-sum" < "$tmp/trace"
expect 0 '^kswapd_calls=1 kswapd_purged=512$' \
	"vtrace: kswapd's purges apart from direct reclaim's, by the task's name" -- \
	"$tmp/vtrace-sum" < "$tmp/trace"
# kswapd: 2.505699 to 2.510048; purgebench: 2.511373 to 2.511733;
# kswapd_is_not_me: 2.511800 to 2.511900.
expect 0 '^shrink_us=4809 kswapd_us=4349$' \
	"vtrace: the time from each call's start to its task's end, kswapd's apart" -- \
	"$tmp/vtrace-sum" < "$tmp/trace"
expect 0 '^kept_calls=2 kept_purged=320$' \
	"vtrace: the purges of what LRU reclaim kept summed" -- \
	"$tmp/vtrace-sum" < "$tmp/trace"
expect 0 '^oom_calls=0 oom_purged=0 min_priority=5 lost=2$' \
	"vtrace: lowest priority, and events lost from the header" -- \
	"$tmp/vtrace-sum" < "$tmp/trace"

# --- bench-report.py ---------------------------------------------------
br=$S/bench-report.py
# Debian's python3: scipy (python3-scipy, deps.sh plot) is not in others.
py=/usr/bin/python3
bench_csv()
{
	printf '# kernel: k\n# series: s\n# machine: m\n# accel: tcg\n'
	printf '# ram_mib: 1\n# cpus: 1\n# date: d\n'
	printf '# clocksource: arch_sys_counter\n# clock_res_ns: 4000000\n'
	printf '# clock_step_ns: %s\n' "${1:-16}"
	echo "backend,bench,param,value,metric,unit,rep"
}
mkdir -p "$tmp/bench"
for b in ashmem volatile anon memfd madvfree pinned dontneed; do
	echo "$b,pin_size,size_kib=4,100,pair_ns_p50,ns,1"
done > "$tmp/bench/rows"
{ bench_csv; cat "$tmp/bench/rows"; } > "$tmp/bench/pin.csv"
{ bench_csv; sed 's/pin_size,size_kib=4,100,pair_ns_p50,ns/purge_reclaim,mib=8,4,purged_mib,MiB/' "$tmp/bench/rows"; } > "$tmp/bench/purge.csv"
{ bench_csv; sed 's/pin_size,size_kib=4,100,pair_ns_p50,ns/cache_regions,limit_mib=2,0.5,hit_rate,ratio/' "$tmp/bench/rows"
  echo "lru,cache_regions,limit_mib=2,0.5,hit_rate,ratio,1"
  echo "volatile,cache_regions,limit_mib=2,1,verify_failures,count,1"; } > "$tmp/bench/cache.csv"
expect 1 'not ok .* 1 failures' "bench-report: check fails on a verification failure" -- \
	"$py" "$br" check "$tmp/bench"
sed -i '/^lru,/d' "$tmp/bench/cache.csv"
expect 1 'missing cache_regions:lru' "bench-report: check names a missing backend" -- \
	"$py" "$br" check "$tmp/bench"
# The clock: a tick-driven one, zero and non-finite timings all fail.
cp "$tmp/bench/pin.csv" "$tmp/bench/pin.good"
{ bench_csv 4000000; cat "$tmp/bench/rows"; } > "$tmp/bench/pin.csv"
expect 1 'not ok .* smallest step seen 4000000 ns' \
	"bench-report: check fails on a clock that steps by more than 1 us" -- \
	"$py" "$br" check "$tmp/bench"
{ cat "$tmp/bench/pin.good"; echo "volatile,pin_size,size_kib=8,0,pair_ns_p50,ns,1"; } \
	> "$tmp/bench/pin.csv"
expect 1 'not ok .* every timing above zero \(1 of 8 not' \
	"bench-report: check fails on a zero timing" -- \
	"$py" "$br" check "$tmp/bench"
{ cat "$tmp/bench/pin.good"; echo "volatile,pin_size,size_kib=8,-nan,pair_ns_p50,ns,1"; } \
	> "$tmp/bench/pin.csv"
expect 1 'not ok .* every value finite \(1 inf or nan' \
	"bench-report: check fails on a nan" -- \
	"$py" "$br" check "$tmp/bench"
{ cat "$tmp/bench/pin.good"
  for i in 1 2 3 4 5 6 7 8; do
	echo "volatile,pin_size,size_kib=$i,4000250,pair_ns_p50,ns,1"
  done; } > "$tmp/bench/pin.csv"
expect 1 'not ok .* 4000250 ns, is 8 of 8' \
	"bench-report: check fails on timings quantised to a tick" -- \
	"$py" "$br" check "$tmp/bench"
# The answer in short: a verdict per question from what holds after
# Holm's correction, losses listed as wins are.
cat > "$tmp/evidence.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from bench_report.evidence import Evidence
from bench_report.stats import Holm

h, ev = Holm(), Evidence()
# useful: one holding for, one nominal against; badly: one holding
# against; user: nothing but a note.
ev.add("useful", True, "win", h.add(0.001))
ev.add("useful", False, "weak loss", h.add(0.04))
ev.add("useful", None, "tie", h.add(0.5))
ev.add("badly", False, "loss", h.add(0.0001))
ev.note("user", "model X did not act")
print(h.fill([h.defer(ev.render)])[0])
PY
expect 0 'useless\?\*\* Supported: 1 finding\(s\) hold for' \
	"bench-report: a finding that holds after Holm supports its question" -- \
	"$py" "$tmp/evidence.py" "$S"
expect 0 'Against, nominal only: weak loss' \
	"bench-report: a loss that does not hold is still listed" -- \
	"$py" "$tmp/evidence.py" "$S"
expect 0 'badly\?\*\* Contradicted: 1 finding\(s\) hold against' \
	"bench-report: a loss that holds contradicts its question" -- \
	"$py" "$tmp/evidence.py" "$S"
expect 0 'model\?\*\* Not answered.*' \
	"bench-report: a question without a comparison is not answered" -- \
	"$py" "$tmp/evidence.py" "$S"
# Android's regime: every backend, both swap settings, verified hits.
{ bench_csv
  for swap in 0 256; do
	for b in pinned memfd ashmem madvfree volatile; do
		echo "$b,app,swap_mib=$swap,0.5,hit_rate,ratio,1"
		echo "$b,app,swap_mib=$swap,0,verify_failures,count,1"
	done
  done; } > "$tmp/bench/app.csv"
cp "$tmp/bench/app.csv" "$tmp/bench/app.good"
sed -i '/^ashmem,app,swap_mib=256,0.5,hit_rate/d' "$tmp/bench/app.csv"
expect 1 'not ok .* missing app:ashmem=256' \
	"bench-report: check names a backend missing from Android's regime" -- \
	"$py" "$br" check "$tmp/bench"
sed '/swap_mib=256/d' "$tmp/bench/app.good" > "$tmp/bench/app.csv"
expect 1 'not ok .* without swap and with zram swap \(swap MiB seen: 0\)' \
	"bench-report: check fails when Android's regime ran without zram" -- \
	"$py" "$br" check "$tmp/bench"
sed 's/^volatile,app,swap_mib=0,0,verify_failures/volatile,app,swap_mib=0,2,verify_failures/' \
	"$tmp/bench/app.good" > "$tmp/bench/app.csv"
expect 1 "not ok .* apps' cache hits verified byte for byte: 2 failures" \
	"bench-report: check fails on an app's verification failure" -- \
	"$py" "$br" check "$tmp/bench"
{ cat "$tmp/bench/app.good"
  echo "volatile,app,swap_mib=0,100,requests,count,1"
  echo "volatile,app,swap_mib=0,20,requests_lost,count,1"
  echo "volatile,app,swap_mib=0,0.4,hit_rate_all,ratio,1"; } > "$tmp/bench/app.csv"
expect 1 '^ok [0-9]* bench: the hit rate over all requests agrees' \
	"bench-report: check accepts a consistent hit rate over all requests" -- \
	"$py" "$br" check "$tmp/bench"
sed -i 's/^volatile,app,swap_mib=0,0.4,hit_rate_all/volatile,app,swap_mib=0,0.6,hit_rate_all/' \
	"$tmp/bench/app.csv"
expect 1 'not ok .* over all requests 0.6, 20 of 100 lost' \
	"bench-report: check fails on a hit rate over all requests above the hit rate" -- \
	"$py" "$br" check "$tmp/bench"
{ sed '/^memfd,app,swap_mib=0,/d' "$tmp/bench/app.good"
  echo "memfd,app,swap_mib=0,1,ballast_lost,count,1"
  for b in uchrome upsi-10ms upsi-50ms upsi-150ms utrim; do
	echo "$b,app,swap_mib=0,0.5,hit_rate,ratio,1"
  done; } > "$tmp/bench/app.csv"
expect 1 '^not ok [0-9]* bench: app.csv: every backend at every point .app.; every run discarded .ballast lost. at app:memfd=0$' \
	"bench-report: check fails a point whose every run was discarded" -- \
	"$py" "$br" check "$tmp/bench"
expect 1 '^ok [0-9]* bench: app.csv: every backend at every point .app.; every run discarded .ballast lost. at app:memfd=0$' \
	"bench-report: check --quick names a discarded point but does not fail it" -- \
	"$py" "$br" check --quick "$tmp/bench"
cp "$tmp/bench/app.good" "$tmp/bench/app.csv"
expect 1 '^ok [0-9]* bench: the regime sweep # SKIP not run' \
	"bench-report: check skips the regime sweep when it did not run" -- \
	"$py" "$br" check "$tmp/bench"
# Android's killer beside the apps (bench app_lmkd): its kills counted in
# every run, apart from the kernel's, and a table of their own.
{ cat "$tmp/bench/app.good"
  for rep in 1 2 3; do
	for b in pinned memfd ashmem madvfree volatile; do
		kill=0
		[ "$b" = memfd ] && kill=2
		for m in "hit_rate 0.5" "hit_rate_all 0.5" "lmkd_kills_bg $kill" \
			 "lmkd_kills_fg 0" "oom_kills_bg 0" "oom_kills_fg 0"; do
			echo "$b,app_lmkd,swap_mib=0,${m#* },${m% *},x,$rep"
		done
	done
  done; } > "$tmp/bench/app.csv"
expect 1 '^ok [0-9]* bench: lmkd-like kills counted in every run with the killer .15 of 15.$' \
	"bench-report: check counts lmkd's kills in every run with the killer" -- \
	"$py" "$br" check "$tmp/bench"
"$py" "$br" report "$tmp/bench/lmkd.md" "$tmp/bench" > /dev/null 2>&1 || true
ok "$(grep -qF '| none | memfd | 3 | 0.5 [0.5-0.5] | n/a | n/a | 3 of 3 | 6 / 0 | 0 / 0 |' \
	"$tmp/bench/lmkd.md" 2>/dev/null; echo $?)" \
	"bench-report: the lmkd table counts lmkd's kills apart from the kernel's"
ok "$(grep -qF '| none | runs with a kill | 0 of 3 vs 0 of 3 (p = 1) | 0 of 3 vs 3 of 3 (p = 0.1) |' \
	"$tmp/bench/lmkd.md" 2>/dev/null; echo $?)" \
	"bench-report: the lmkd table compares runs with a kill by Fisher's test"
sed -i '/^volatile,app_lmkd,swap_mib=0,0,lmkd_kills_bg,x,2$/d; /^volatile,app_lmkd,swap_mib=0,0,lmkd_kills_fg,x,2$/d' \
	"$tmp/bench/app.csv"
expect 1 '^not ok [0-9]* bench: lmkd-like kills counted in every run with the killer .14 of 15.; first without: volatile at swap 0 rep 2$' \
	"bench-report: check names a run with the killer whose kills were not counted" -- \
	"$py" "$br" check "$tmp/bench"
# A run discarded in one bench (its ballast lost) and the same backend's
# run in the other: each bench's runs are its own.
{ bench_csv
  for bench in app app_lmkd; do
	for b in pinned memfd ashmem madvfree volatile; do
		for swap in 0 256; do
			if [ "$bench$b$swap" = appmemfd0 ]; then
				echo "$b,$bench,swap_mib=$swap,1,ballast_lost,count,1"
				continue
			fi
			echo "$b,$bench,swap_mib=$swap,0.5,hit_rate,ratio,1"
			echo "$b,$bench,swap_mib=$swap,0,verify_failures,count,1"
			echo "$b,$bench,swap_mib=$swap,1,pressure_episodes,count,1"
		done
	done
  done; } > "$tmp/bench/app.csv"
expect 1 '^ok [0-9]* bench: every app run measured its pressure episodes .19 of 19.$' \
	"bench-report: a run discarded in app is not the same backend's run in app_lmkd" -- \
	"$py" "$br" check --quick "$tmp/bench"
cp "$tmp/bench/app.good" "$tmp/bench/app.csv"
# The sweep: every app backend and userspace model at 4 levels, both swaps.
sweep_rows()
{
	local bench free b
	for bench in app_sweep app_sweep_zram; do
		for free in $1; do
			for b in pinned memfd ashmem madvfree volatile uchrome \
				 upsi-10ms upsi-50ms upsi-150ms utrim; do
				echo "$b,$bench,free_mib=$free,0.5,hit_rate,ratio,1"
				echo "$b,$bench,free_mib=$free,0.5,hit_rate_all,ratio,1"
				echo "$b,$bench,free_mib=$free,100,requests,count,1"
				echo "$b,$bench,free_mib=$free,0,requests_lost,count,1"
				echo "$b,$bench,free_mib=$free,0,verify_failures,count,1"
			done
		done
	done
}
{ bench_csv; sweep_rows "8 16 32 48"; } > "$tmp/bench/sweep.csv"
expect 1 '^ok [0-9]* bench: the sweep has at least 4 levels of free memory' \
	"bench-report: check accepts a sweep of 4 levels with and without zram" -- \
	"$py" "$br" check "$tmp/bench"
expect 1 '^ok [0-9]* bench: the sweep.s file working sets # SKIP none' \
	"bench-report: check names a sweep without file working sets" -- \
	"$py" "$br" check "$tmp/bench"
# With file working sets (appbench --file-mib): every run read its file.
sweep_files()
{
	sed -n 's/^\([^,]*,[^,]*,[^,]*\),[^,]*,hit_rate,ratio,\(.*\)$/\1,4,file_mib,MiB,\2\n\1,7,file_refaults,count,\2\n\1,'"$1"',file_sessions,count,\2\n\1,'"$2"',launches,count,\2/p'
}
{ bench_csv; sweep_rows "8 16 32 48"; sweep_rows "8 16 32 48" | sweep_files 6 6; } \
	> "$tmp/bench/sweep.csv"
expect 1 '^ok [0-9]* bench: the sweep.s apps read their file working sets: 0 of 80 runs' \
	"bench-report: check accepts a sweep whose apps read their files" -- \
	"$py" "$br" check "$tmp/bench"
{ bench_csv; sweep_rows "8 16 32 48"; sweep_rows "8 16 32 48" | sweep_files 0 6; } \
	> "$tmp/bench/sweep.csv"
expect 1 '^not ok [0-9]* bench: the sweep.s apps read their file working sets: 80 of 80 runs with sessions but no file read' \
	"bench-report: check fails a sweep whose apps never read their files" -- \
	"$py" "$br" check "$tmp/bench"
{ bench_csv; sweep_rows "8 16 32 48"; sweep_rows "8 16 32 48" | sweep_files 0 0; } \
	> "$tmp/bench/sweep.csv"
expect 1 '^ok [0-9]* bench: the sweep.s apps read their file working sets: 0 of 80 runs' \
	"bench-report: check passes runs whose every foreground was killed" -- \
	"$py" "$br" check "$tmp/bench"
{ bench_csv; sweep_rows "8 16"; } > "$tmp/bench/sweep.csv"
expect 1 '^not ok [0-9]* bench: the sweep has at least 4 levels' \
	"bench-report: check fails a sweep of 2 levels" -- \
	"$py" "$br" check "$tmp/bench"
{ bench_csv; sweep_rows "8 16 32 48" | grep -v '^utrim,app_sweep_zram,free_mib=32'; } \
	> "$tmp/bench/sweep.csv"
expect 1 '^not ok [0-9]* bench: sweep.csv: every backend at every point .*missing app_sweep_zram:utrim=32' \
	"bench-report: check names a backend missing from the sweep" -- \
	"$py" "$br" check "$tmp/bench"
rm "$tmp/bench/sweep.csv"
expect 1 '^ok [0-9]* bench: the arena # SKIP not in this run' \
	"bench-report: check skips the arena in an older run" -- \
	"$py" "$br" check "$tmp/bench"
{ bench_csv
  for k in 1 4; do
	for b in ashmem volatile anon madvfree; do
		echo "$b,purge_arena,ranges=$k,8,purged_mib,MiB,1"
		echo "$b,purge_arena,ranges=$k,4,needed_mib,MiB,1"
		echo "$b,purge_arena,ranges=$k,2,overpurge,ratio,1"
	done
  done; } > "$tmp/bench/arena.csv"
expect 1 '^ok [0-9]* bench: the arena has one range and more: ranges 1, 4' \
	"bench-report: check accepts an arena of 1 and 4 ranges" -- \
	"$py" "$br" check "$tmp/bench"
sed -i '/^anon,purge_arena,ranges=4/d' "$tmp/bench/arena.csv"
expect 1 '^not ok [0-9]* bench: arena.csv: every backend at every point .*missing purge_arena:anon=4' \
	"bench-report: check names a backend missing from the arena" -- \
	"$py" "$br" check "$tmp/bench"
rm "$tmp/bench/arena.csv"
rm "$tmp/bench/app.csv" "$tmp/bench/app.good"
cp "$tmp/bench/pin.good" "$tmp/bench/pin.csv"
echo "volatile,pin_size,size_kib=4,100,pair_ns_p50" >> "$tmp/bench/pin.csv"
expect 1 'pin.csv:[0-9]*: 5 fields, expected 7' \
	"bench-report: a malformed row is named by file and line" -- \
	"$py" "$br" report "$tmp/bench/out.md" "$tmp/bench"
ok "$([ ! -e "$tmp/bench/out.md" ]; echo $?)" \
	"bench-report: nothing is written from a malformed file"
expect 2 'usage' "bench-report: bad arguments get the usage" -- \
	"$py" "$br" plot
# Next to a series-v1 run, the report compares the two against the targets.
mkdir -p "$tmp/rep/arm64" "$tmp/rep/series-v1/arm64"
for d in "$tmp/rep/arm64" "$tmp/rep/series-v1/arm64"; do
	{ bench_csv; cat "$tmp/bench/rows"; } > "$d/pin.csv"
	{ bench_csv; sed 's/pin_size,size_kib=4,100,pair_ns_p50,ns/purge_reclaim,mib=8,4,purged_mib,MiB/' "$tmp/bench/rows"; } > "$d/purge.csv"
done
{ bench_csv; echo "volatile,cache_regions,limit_mib=2,0.5,hit_rate,ratio,1"; } > "$tmp/rep/arm64/cache.csv"
{ bench_csv; echo "volatile,cache_regions,limit_mib=2,0.6,hit_rate,ratio,1"; } > "$tmp/rep/series-v1/arm64/cache.csv"
"$py" "$br" report "$tmp/rep/out.md" "$tmp/rep/arm64" > /dev/null 2>&1 || true
# The wall time names the sweep, and its runs' time, when it ran.
mkdir -p "$tmp/sw/arm64/sweep"
cp "$tmp/rep/arm64/"*.csv "$tmp/sw/arm64/"
echo "4000 seconds from boot to graphs" > "$tmp/sw/arm64/run-seconds.txt"
{ bench_csv; sweep_rows "8 16 32 48"; } > "$tmp/sw/arm64/sweep.csv"
printf 'family,backend,args,seconds\nsweep,volatile,--rep 1,3\nsweep,ashmem,--rep 1,4\n' \
	> "$tmp/sw/arm64/sweep/run-seconds.csv"
"$py" "$br" report "$tmp/sw/out.md" "$tmp/sw/arm64" > /dev/null 2>&1 || true
want="ARCH=arm64 BENCH_SWEEP=1\` wall time | 66 min 40 s (the sweep's runs: 0 min 7 s) |"
ok "$(grep -qF "$want" \
	"$tmp/sw/out.md" 2>/dev/null; echo $?)" \
	"bench-report: the wall time names the sweep and its runs' time"
echo "sweep,memfd,--rep 1,x" >> "$tmp/sw/arm64/sweep/run-seconds.csv"
expect 1 'sweep/run-seconds.csv: a run.s seconds is not a whole number' \
	"bench-report: a malformed sweep/run-seconds.csv is named" -- \
	"$py" "$br" report "$tmp/sw/out2.md" "$tmp/sw/arm64"
ok "$(grep -qF '| unpin + pin p50, volatile / ashmem, worst size | 1 | 1 | <= 1.0 | met |' \
	"$tmp/rep/out.md" 2>/dev/null; echo $?)" \
	"bench-report: a target met against series v1 says met"
ok "$(grep -qF '| hit rate of volatile, cache_regions, memory.max 2 MiB | 0.6 | 0.5 | >= series v1 | MISSED |' \
	"$tmp/rep/out.md" 2>/dev/null; echo $?)" \
	"bench-report: a target missed against series v1 says MISSED"
# OOM kills and the range shrinker's trace (issue 26): the hand-made rows
# of bench-oom/purge.csv, the same without them (an older CSV), and a
# malformed one.
fixture=$top/scripts/tests/bench-oom/purge.csv
mkdir -p "$tmp/oom"
{ bench_csv; cat "$tmp/bench/rows"; } > "$tmp/oom/pin.csv"
{ bench_csv; echo "volatile,cache_regions,limit_mib=2,0.5,hit_rate,ratio,1"; } \
	> "$tmp/oom/cache.csv"
cp "$fixture" "$tmp/oom/purge.csv"
expect 0 '' "bench-report: a report from purgebench's OOM and trace rows" -- \
	"$py" "$br" report "$tmp/oom/out.md" "$tmp/oom"
ok "$(grep -qF '| volatile, 256 MiB | under global pressure | 3 | 2 of 3 | 1: 186 | 1.5 | 1 (sizing: nothing left to purge) | 1 |' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: a kill with volatile data left and a kill after all was purged are told apart"
ok "$(grep -q "^Kills after every unpinned page was purged, which belong to the test's sizing .*: volatile under global pressure at 256 MiB (1 of 3 runs)" \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: a kill after all was purged is put down to the test's sizing"
ok "$(grep -qF '| volatile, 64 MiB | under memory.max | 1 | 1 of 1 | not measured |' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: a kill without left_at_kill_mib is not measured"
ok "$(grep -qF '| volatile, 256 MiB | under global pressure | 3 | 29723 | 15218180 | 113664 | 90000 | 81.5 / 70.5 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 29238 | 0 | 0 | 7 / 0 | 0 / 0 | 113664 / 114176 | 12 |' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: the shrinker's calls, pages, kswapd's share and skip reasons are summed"
ok "$(grep -qF '| anon, 256 MiB | under global pressure | 3 | 900 | 450000 | 196608 | not measured | not measured | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 9 | 0 | 4 | 0 / 0 | not measured | 196608 / 196608 | none |' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: runs from before kswapd's share was split say not measured"
ok "$(grep -qF 'disagree for: volatile under global pressure at 256 MiB (113664 traced, 114176 counted; 1 calls without an end event)' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: tracepoints that disagree with pgvolatile_purged are named"
grep -vE ',(left_at_kill_mib|oom_kills_vmstat|volatile_oom_[a-z_]+|vmstat_purged_fg_pages|shrink_[a-z_]+|skip_[a-z]+|oom_purge[a-z_]+|oom_skipped_ranges|trace_lost_events),' \
	"$fixture" > "$tmp/oom/purge.csv"
expect 0 '' "bench-report: a report from a CSV before the OOM and trace rows" -- \
	"$py" "$br" report "$tmp/oom/out.md" "$tmp/oom"
ok "$(grep -qF '| volatile, 256 MiB | under global pressure | 3 | 2 of 3 | not measured | not measured | not measured | not measured |' \
	"$tmp/oom/out.md" && grep -q '^Not measured: no run has the volatile_ranges trace rows' \
	"$tmp/oom/out.md"; echo $?)" \
	"bench-report: an older CSV's kills and trace are not measured"
grep -v '^volatile,purge_global,mib=256,185.5,left_at_kill_mib,' "$fixture" \
	> "$tmp/oom/purge.csv"
expect 1 'not ok .* every OOM kill of a purge run recorded the unpinned data it left; missing in volatile purge_global mib=256 rep 1' \
	"bench-report: check fails on a kill that recorded nothing it left" -- \
	"$py" "$br" check "$tmp/oom"
{ cat "$fixture"; echo "volatile,purge_global,mib=256,lots,left_at_kill_mib,MiB,1"; } \
	> "$tmp/oom/purge.csv"
rm -f "$tmp/oom/out.md"
expect 1 "purge.csv:$(($(wc -l < "$fixture") + 1)): value or rep is not a number" \
	"bench-report: a malformed OOM row is named by file and line" -- \
	"$py" "$br" report "$tmp/oom/out.md" "$tmp/oom"
ok "$([ ! -e "$tmp/oom/out.md" ]; echo $?)" \
	"bench-report: nothing is written from a malformed OOM row"
# issue 27: the userspace model acted, killed runs apart, order balanced.
mkdir -p "$tmp/ck"
{ bench_csv; cat "$tmp/bench/rows"; } > "$tmp/ck/pin.csv"
{ bench_csv; echo "volatile,cache_regions,limit_mib=2,0.5,hit_rate,ratio,1"; } \
	> "$tmp/ck/cache.csv"
cp "$top/scripts/tests/bench-oom/purge.csv" "$tmp/ck/purge.csv"
# user_app EVENTS [BACKEND]: two runs of a userspace row (uchrome, the
# faithful one, by default) with EVENTS manager events each.
user_app()
{
	local b=${2:-uchrome}

	bench_csv
	for rep in 1 2; do
		echo "$b,app,swap_mib=0,0.5,hit_rate,ratio,$rep"
		echo "$b,app,swap_mib=0,$1,mgr_events,count,$rep"
		echo "$b,app,swap_mib=0,4,purged_mib,MiB,$rep"
	done
}
# check_line DIR PATTERN [FLAG...]: a line of check's TAP matches PATTERN.
check_line()
{
	local d=$1 pattern=$2

	shift 2
	"$py" "$br" check "$@" "$d" 2>&1 | grep -qE -- "$pattern"
}
user_app 3 > "$tmp/ck/app.csv"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: the userspace model acted: .* of uchrome at swap 0$'; echo $?)" \
	"bench-report: check passes a userspace model that acted in every run"
user_app 0 > "$tmp/ck/app.csv"
expect 1 'not ok .* uchrome at swap 0 did not act \(events in 0 of 2 runs' \
	"bench-report: check names a userspace row that did not act" -- \
	"$py" "$br" check "$tmp/ck"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: the userspace model acted: .* # SKIP a quick run' --quick; echo $?)" \
	"bench-report: check --quick does not judge whether the model acted"
# A quick run's only uchrome run lost its ballast (CI, 8922268).
{ bench_csv; echo "uchrome,app,swap_mib=0,1,ballast_lost,count,1"; } \
	> "$tmp/ck/app.csv"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: the userspace model acted: .* # SKIP a quick run: .*; every run discarded at uchrome at swap 0$' --quick; echo $?)" \
	"bench-report: check --quick names a userspace row whose runs were all discarded"
ok "$(check_line "$tmp/ck" '^not ok [0-9]+ bench: the userspace model acted: .* no row$'; echo $?)" \
	"bench-report: check fails a full run whose userspace runs were all discarded"
{ user_app 3; user_app 0 upsi-10ms | grep -v '^#\|^backend'; } > "$tmp/ck/app.csv"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: the userspace variants are labelled: upsi-10ms at swap 0 did not act and are not compared$'; echo $?)" \
	"bench-report: check labels a PSI variant that did not act, without failing"
user_app 3 upsi-10ms > "$tmp/ck/app.csv"
ok "$(check_line "$tmp/ck" '^not ok [0-9]+ bench: the userspace model acted: .* no row$'; echo $?)" \
	"bench-report: check fails a run whose only userspace rows are variants"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: killed runs reported apart: .* leave out the [0-9]+ killed'; echo $?)" \
	"bench-report: check passes purge runs that all record their kills"
grep -v '^volatile,purge_global,mib=256,[0-9.]*,oom_kills,count,1$' \
	"$top/scripts/tests/bench-oom/purge.csv" > "$tmp/ck/purge.csv"
expect 1 'not ok .* killed runs reported apart: .*no OOM kill record for volatile purge_global mib=256 rep 1' \
	"bench-report: check fails on a stall run that does not say whether it was killed" -- \
	"$py" "$br" check "$tmp/ck"
printf 'pin pinbench %s --size 4K --rep 1\n' ashmem volatile > "$tmp/ck/plan.txt"
printf 'pin pinbench %s --size 4K --rep 2\n' volatile ashmem >> "$tmp/ck/plan.txt"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: backend order balanced: .* \(from plan.txt\): 1 points$'; echo $?)" \
	"bench-report: check passes a rotated backend order"
# The benchmarks' own order_pos rows are 1-based: two backends rotated
# over four blocks are balanced (a 0-based reading found position 0
# empty, twice less often than the others).
cp "$tmp/ck/pin.csv" "$tmp/ck/pin.csv.saved"
for rep in 1 2 3 4; do
	echo "ashmem,pin_size,size_kib=4,$((rep % 2 + 1)),order_pos,position,$rep"
	echo "volatile,pin_size,size_kib=4,$(((rep + 1) % 2 + 1)),order_pos,position,$rep"
done >> "$tmp/ck/pin.csv"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: backend order balanced: .* \(from order_pos rows\): 1 points$'; echo $?)" \
	"bench-report: check passes a rotation recorded in 1-based order_pos rows"
mv "$tmp/ck/pin.csv.saved" "$tmp/ck/pin.csv"
printf 'pin pinbench %s --size 4K --rep 2\n' ashmem volatile > "$tmp/ck/plan.new"
head -2 "$tmp/ck/plan.txt" | cat - "$tmp/ck/plan.new" > "$tmp/ck/plan.txt.new"
mv "$tmp/ck/plan.txt.new" "$tmp/ck/plan.txt"
expect 1 "not ok .* backend order balanced: .* ashmem at position 1 in 2 of 2 blocks of 'pin pinbench --size 4K swap=none'" \
	"bench-report: check names a backend order that is not balanced" -- \
	"$py" "$br" check "$tmp/ck"
rm "$tmp/ck/plan.txt"
ok "$(check_line "$tmp/ck" '^ok [0-9]+ bench: backend order balanced: .* # SKIP order not recorded$'; echo $?)" \
	"bench-report: a run that does not record its order is not failed by default"
expect 1 'not ok .* order not recorded' \
	"bench-report: check --require-order fails a run that does not record its order" -- \
	"$py" "$br" check --require-order "$tmp/ck"
expect 2 "must be a positive integer" "boot.sh: a bad --mem is refused" -- \
	"$S/boot.sh" --arch arm64 --mem 1G --job /dev/null
expect 2 "must be a positive integer, not '1G'" "boot.sh: a bad --zram is refused" -- \
	"$S/boot.sh" --arch arm64 --zram 1G --job /dev/null
expect 2 "one key=value kernel parameter, not 'a b'" \
	"boot.sh: a --cmdline with a space is refused" -- \
	"$S/boot.sh" --arch arm64 --cmdline 'a b' --job /dev/null
expect 2 "QEMU CPU model name, not 'max;x'" "boot.sh: a bad --cpu is refused" -- \
	"$S/boot.sh" --arch arm64 --cpu 'max;x' --job /dev/null
expect 1 "MGLRU must be 0 or 1, not 'yes'" "run.sh: a bad MGLRU is refused" -- \
	env RUN=true MGLRU=yes "$S/run.sh" arm64 0 64 1 10
expect 2 "exclude each other" "boot.sh: --job with --shell is refused" -- \
	"$S/boot.sh" --arch arm64 --job /dev/null --shell
expect 1 "unknown ARCH 'sparc'" "boot.sh: an unknown arch is refused" -- \
	"$S/boot.sh" --arch sparc --job /dev/null
expect 1 "no kernel at" "boot.sh: a missing kernel is named" -- \
	env LAB_BUILD="$tmp/empty" "$S/boot.sh" --arch arm64 --job /dev/null
expect 1 "no kernel image at '$tmp/none/Image'" \
	"boot.sh: a missing --kernel image is named" -- \
	"$S/boot.sh" --arch arm64 --kernel "$tmp/none/Image" --job /dev/null
mkdir -p "$tmp/old/arch/arm64/boot"
printf 'junk\0Linux version 6.1.1-vlold (cc) #1 SMP\0junk' \
	> "$tmp/old/arch/arm64/boot/Image"
expect 1 "no initramfs at" \
	"boot.sh: --kernel needs no lab kernel build" -- \
	env LAB_BUILD="$tmp/empty" "$S/boot.sh" --arch arm64 \
	--kernel "$tmp/old/arch/arm64/boot/Image" --job /dev/null
expect 1 "no kernel image at '$tmp/none/Image'" \
	"run.sh: a missing KERNEL_IMAGE is named" -- \
	env RUN=true KERNEL_IMAGE="$tmp/none/Image" LAB_BUILD="$tmp/runs1" \
	"$S/run.sh" arm64 0 64 1 10
# make run side by side: a run directory each, and a link to the last.
runs=$tmp/runs2/runs
for i in 1 2; do
	env RUN="echo $i" LAB_BUILD="$tmp/runs2" "$S/run.sh" arm64 0 64 1 10 \
		> "$tmp/run$i.out" 2>&1 &
done
wait
env RUN='echo 3' LAB_BUILD="$tmp/runs2" "$S/run.sh" arm64 0 64 1 10 \
	> "$tmp/run3.out" 2>&1 || true
last=$(sed -n 's/.*run directory: //p' "$tmp/run3.out")
ok "$([ "$(find "$runs" -mindepth 2 -maxdepth 2 -path '*/run-arm64-2*/job' \
	-exec cat {} + | sort | tr -d '\n')" = 'echo 1echo 2echo 3' ]
	echo $?)" \
	"run.sh: runs side by side get a run directory each"
ok "$([ -L "$runs/run-arm64-last" ] && [ -n "$last" ] &&
	[ "$(cat "$runs/run-arm64-last/job")" = 'echo 3' ] &&
	[ "$(cd "$runs/run-arm64-last" && pwd -P)" = "$(cd "$last" && pwd -P)" ]
	echo $?)" "run.sh: run-<variant>-last names the run started last"
expect 2 "unknown group 'bogus'" "deps.sh: an unknown group is refused" -- \
	"$S/deps.sh" bogus

# --- kernel-tree.sh on a fake linux-source tarball ----------------------
fake=$tmp/fake/linux-source-6.1
mkdir -p "$fake/mm" "$tmp/patches"
printf '/*\n!/debian/\n*.patch\n' > "$fake/.gitignore"
printf 'int a;\nint b;\nint c;\n' > "$fake/mm/a.c"
echo 'all:' > "$fake/Makefile"
tar -C "$tmp/fake" -cJf "$tmp/fake.tar.xz" linux-source-6.1
echo "# test series" > "$tmp/patches/series"
export LAB_BUILD=$tmp/build LAB_PATCHES=$tmp/patches \
	LAB_LINUX_TARBALL=$tmp/fake.tar.xz LAB_LINUX_VERSION=0.1-test
tree=$tmp/build/src/linux-0.1-test
kt=$S/kernel-tree.sh
g()
{
	git -C "$tree" "$@"
}

expect 0 'series .* applied' "kernel-tree: extracts and applies an empty series" -- \
	"$kt" prepare
ok "$([ "$(g rev-parse HEAD)" = "$(g rev-parse lab-baseline)" ] &&
	[ "$(cat "$tree.extracted")" = 0.1-test ]; echo $?)" \
	"kernel-tree: HEAD is the baseline, the version is recorded"
echo 'new file' > "$tree/mm/new.c"
ok "$([ -n "$(g status --porcelain)" ]; echo $?)" \
	"kernel-tree: new files in the tree are not ignored"
rm "$tree/mm/new.c"
sed -i 's/int b;/int b2;/' "$tree/mm/a.c"
g commit -q -a -m "mm: rename b" -m "Signed-off-by: Lab <lab@localhost>"
head=$(g rev-parse HEAD)
echo "# changed" >> "$tmp/patches/series"
expect 1 'not in .*patches .HEAD is not' "kernel-tree: refuses to drop unexported commits" -- \
	"$kt" prepare
ok "$([ "$(g rev-parse HEAD)" = "$head" ]; echo $?)" \
	"kernel-tree: the unexported commit is still there"
expect 0 'exported 1 patch' "kernel-tree: export writes the commit as a patch" -- \
	"$kt" export
ok "$(grep -q '^0001-mm-rename-b.patch$' "$tmp/patches/series" &&
	[ -f "$tmp/patches/0001-mm-rename-b.patch" ]; echo $?)" \
	"kernel-tree: the series names the exported patch"
expect 0 '' "kernel-tree: prepare after export is a no-op" -- "$kt" prepare
ok "$([ "$(g rev-parse HEAD)" = "$head" ]; echo $?)" \
	"kernel-tree: the no-op kept HEAD"
rm -rf "$tmp/build"
expect 0 'applying 0001-mm-rename-b.patch' "kernel-tree: a fresh tree gets the series" -- \
	"$kt" prepare
ok "$(grep -q 'int b2;' "$tree/mm/a.c"; echo $?)" \
	"kernel-tree: the patch's change is in the fresh tree"
cp "$tmp/patches/0001-mm-rename-b.patch" "$tmp/good.patch"
sed -i 's/^ int c;$/ int d;/' "$tmp/patches/0001-mm-rename-b.patch"
expect 1 '0001-mm-rename-b.patch does not apply cleanly' \
	"kernel-tree: a patch that does not apply fails, named" -- "$kt" prepare
ok "$([ "$(g rev-parse HEAD)" = "$(g rev-parse lab-baseline)" ] &&
	[ -z "$(g status --porcelain)" ] && [ ! -f "$tree.applied" ]; echo $?)" \
	"kernel-tree: after the failure the tree is back at the baseline"
cp "$tmp/good.patch" "$tmp/patches/0001-mm-rename-b.patch"
expect 0 'applying' "kernel-tree: a re-run recovers once the patch is fixed" -- \
	"$kt" prepare
before=$(stat -c %y "$tree/mm/a.c")
sleep 0.05
echo "# a changed series, same patch" >> "$tmp/patches/series"
expect 0 'applying' "kernel-tree: a changed series is applied again" -- \
	"$kt" prepare
ok "$([ "$(stat -c %y "$tree/mm/a.c")" = "$before" ]; echo $?)" \
	"kernel-tree: a file the new series leaves as it was keeps its time"
echo "int e;" >> "$tree/mm/a.c"
echo "# changed again" >> "$tmp/patches/series"
expect 1 'uncommitted changes' "kernel-tree: refuses to drop uncommitted changes" -- \
	"$kt" prepare
ok "$(grep -q 'int e;' "$tree/mm/a.c"; echo $?)" \
	"kernel-tree: the uncommitted change is kept"
rm -f "$tree.extracted"
mkdir -p "$tree.tmp"
g checkout -q -- mm/a.c
g reset -q --hard lab-baseline
expect 0 'removing incompletely prepared' \
	"kernel-tree: an interrupted extraction is redone" -- "$kt" prepare
ok "$([ -f "$tree.extracted" ] && [ ! -d "$tree.tmp" ]; echo $?)" \
	"kernel-tree: the redone tree is complete"

# --- fresh machines -------------------------------------------------
# Tools the build calls that a minbase Debian 12 lacks (make fresh-check
# found the first one): each must come from deps.sh.
for tool in rsync:kernel bc:kernel flex:kernel xz-utils:kernel cpio:rootfs \
	python3:plot; do
	"$S/deps.sh" --list "${tool#*:}" > "$tmp/pkgs"
	ok "$(grep -qx "${tool%:*}" "$tmp/pkgs"; echo $?)" \
		"deps.sh: group ${tool#*:} installs ${tool%:*}"
done
expect 2 'usage' "fresh-check.sh: arguments are refused" -- \
	"$S/fresh-check.sh" now
expect 1 "unknown ARCH 'sparc'" "vm-selftests.sh: an unknown arch is refused" -- \
	"$S/vm-selftests.sh" sparc
expect 2 'usage' "modes.sh: ARCH alone is refused" -- "$S/modes.sh" arm64
expect 1 "unknown ARCH 'sparc'" "modes.sh: an unknown arch is refused" -- \
	"$S/modes.sh" sparc 0
expect 1 "DEBUG must be 0 or 1, not 'yes'" "modes.sh: a bad DEBUG is refused" -- \
	"$S/modes.sh" arm64 yes
# shellcheck source=scripts/lib.sh
ok "$(. "$S/lib.sh"; [ "$(LAB_KERNEL_BASELINE=1 variant_name arm64 0)" = \
	arm64-baseline ] && [ "$(variant_name arm64 1)" = arm64-debug ]; echo $?)" \
	"lib.sh: the unpatched kernel has a build directory of its own"
# shellcheck source=scripts/lib.sh disable=SC2030 # a subshell's own
ok "$(LAB_KERNEL=6.12 LAB_PATCHES='' && . "$S/lib.sh" &&
	[ "$(variant_name arm64 1)" = arm64-6.12-debug ] &&
	[ "$(LAB_KERNEL_BASELINE=1 variant_name arm64 0)" = \
	  arm64-6.12-baseline ] &&
	[ "$LAB_PATCHES" = "$LAB_TOP/kernel/patches-6.12" ] &&
	[ "$(headers_dir x86_64)" = "$LAB_BUILD/headers/x86_64-6.12" ]; echo $?)" \
	"lib.sh: KERNEL=6.12 has its own series, build directories and headers"
expect 1 "unknown KERNEL '5.10' .supported: 6.1 6.12." \
	"lib.sh: an unknown KERNEL is refused, with the supported ones" -- \
	env LAB_KERNEL=5.10 "$S/deps.sh" --list kernel
LAB_KERNEL=6.12 "$S/deps.sh" --list kernel > "$tmp/pkgs"
ok "$(grep -qx linux-source-6.12 "$tmp/pkgs" &&
	! grep -qx linux-source-6.1 "$tmp/pkgs"; echo $?)" \
	"deps.sh: KERNEL=6.12 installs linux-source-6.12, not 6.1"
expect 2 "unknown KERNEL '7.0'" "make: an unknown KERNEL is refused" -- \
	make -s -C "$top" KERNEL=7.0 help
# shellcheck source=scripts/lib.sh
ok "$(. "$S/lib.sh"; r1=$(image_release "$tmp/old/arch/arm64/boot/Image")
	echo 6.1.1-vlbuilt > "$tmp/old/lab-release"
	r2=$(image_release "$tmp/old/arch/arm64/boot/Image")
	[ "$r1" = 6.1.1-vlold ] && [ "$r2" = 6.1.1-vlbuilt ]; echo $?)" \
	"lib.sh: an image's release from its build directory or the image"
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$top" ls-files | grep -E '(^|/)(__pycache__/|build/)|\.(pyc|o|a)$' \
		> "$tmp/generated" || true
	sed 's/^/#   committed: /' "$tmp/generated"
	ok "$([ ! -s "$tmp/generated" ]; echo $?)" \
		"repository: no generated file is committed"
fi

# --- style ------------------------------------------------------------
if command -v shellcheck > /dev/null; then
	expect 0 '' "shellcheck: the lab's shell scripts are clean" -- \
		make -s -C "$top" lint
else
	n=$((n + 1))
	echo "ok $n shellcheck: the lab's shell scripts are clean # SKIP shellcheck not installed"
fi

echo "1..$n"
echo "# exit status: $failed"
[ "$failed" = 0 ]
