#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-matrix quick|full|cpumax|rust|sweep|sweep-quick OUTDIR: run the
# whole comparison inside one guest boot (installed as
# /opt/lab/bin/bench-matrix); sweep (sweep-quick: tiny): only Android's
# regime, at several levels of free memory, without and with zram, for
# every app backend and userspace model (rows in OUTDIR/sweep.csv), for
# a boot of its own (make bench BENCH_SWEEP=1); cpumax:
# only the points where the CPU model matters (madvfree's compare-and-swap
# on pin, which faults without a hardware dirty bit), for a second boot
# with another -cpu; rust: ashmem's points again, for a boot with
# ashmem.rust_mode=1 (android16's shrinker).  Every point runs
# once per backend and repetition, the backends of each in an order
# balanced over the repetitions (a seeded random order per point,
# rotated by one place at every repetition: a cyclic Latin square, so
# that with N backends each takes each place once in every N
# repetitions; the plan is the same at every run, and written to
# OUTDIR/plan.txt); every run gets its place in its block (1 for the
# first; a block: consecutive lines of the plan that differ only in the
# backend) in LAB_POS and its backend in LAB_POS_BACKEND, which the CSV
# records (rows "order_pos", bench/lib/bench.h); rows go to
# OUTDIR/<family>.csv; progress goes to stdout.
set -eu

usage()
{
	echo "usage: bench-matrix quick|full|cpumax|rust|sweep|sweep-quick OUTDIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
mode=$1 out=$2
case "$mode" in
quick|full|cpumax|rust|sweep|sweep-quick) ;;
*) usage ;;
esac
bin=/opt/lab/bin
mkdir -p "$out"

# The CSV header of every file (read by csv_open() in bench/lib/bench.c).
LAB_META_kernel=$(uname -r)
LAB_META_series=${LAB_META_kernel##*-vl}
case "${LAB_ARCH:-}" in
arm64) LAB_META_machine="virt, ${LAB_CPU:-unknown cpu}" ;;
x86_64) LAB_META_machine="q35, cpu ${LAB_CPU:-unknown}" ;;
*) LAB_META_machine=unknown ;;
esac
LAB_META_accel=${LAB_ACCEL:-unknown}
LAB_META_ram_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
LAB_META_cpus=$(grep -c ^processor /proc/cpuinfo)
LAB_META_date=${LAB_META_date:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
export LAB_META_kernel LAB_META_series LAB_META_machine LAB_META_accel \
	LAB_META_ram_mib LAB_META_cpus LAB_META_date

# MAP_DROPPABLE (6.11) is a baseline wherever the kernel has it.
droppable=droppable
case "$LAB_META_kernel" in
[0-5].* | 6.[0-9].* | 6.10.*) droppable= ;;
esac
backends="ashmem volatile anon memfd madvfree pinned dontneed${droppable:+ $droppable}"
if [ "$mode" = quick ] || [ "$mode" = sweep-quick ]; then
	reps=1
	sizes="4K 1M"
	fragments="1 64"
	order_fragments="64"
	purge_sizes=8
	cache_args="--objects 32 --object-kib 64 --ops 300"
	cache_limits="2 0"
	arena_limits="2"
	big_purge_sizes=8
	shares="4:64"
	# 8 MiB free: at 4 the OOM killer took the ballast of pinned and
	# memfd runs (nothing to purge) in 2 of the 4 quick runs of
	# 2026-12-06, once with bench-matrix after it (ballast freed too
	# late); the quick run checks code paths, not the regime.
	app_args="--apps 3 --cache-mib 4 --object-kib 256 --fg-mib 8 --free-mib 8 --switches 4 --ops 20"
	sweep_free="6 8 12"
	sweep_file_mib=1
	arena_mib=8
	arena_ranges="1 4"
	swaps="none zram"
	workers="1 2"
	region_counts="16 256"
else
	reps=10
	sizes="4K 16K 64K 256K 1M 4M 16M 64M"
	# The hour (issue 15) is kept by the points that cost least to
	# drop, chosen from the guest's per-run times (run-seconds.csv):
	# ascending fragments at 1-4096 in steps of 16 and 1024 ...
	fragments="1 16 256 1024 4096"
	# Descending and random fragment orders, at fewer points.
	order_fragments="16 256 4096"
	# ... 256 MiB only where the size is the point (memory.max and
	# global pressure: over-purge and OOM kills), the throughput modes
	# at 16 and 64 MiB ...
	purge_sizes="16 64"
	big_purge_sizes="16 64 256"
	# 2000 operations (5000 until series 26c27ed9b1, then 3000): ten
	# repetitions of everything must fit in the hour make bench has.
	cache_args="--objects 256 --object-kib 256 --ops 2000"
	cache_limits="24 48 96"
	# ... and the arena layout at the tight limit only.
	arena_limits="24"
	shares="64:64 16:1024"
	# Android's regime (appbench): 4 apps of 16 MiB of images, a
	# foreground that grows by 24 MiB, 24 MiB for them all: pinned
	# memory ends in OOM kills, purgeable memory must give way (at 32
	# and 48 MiB the apps fit, or nearly, and nothing happens).
	app_args="--apps 4 --cache-mib 16 --object-kib 256 --fg-mib 24 --free-mib 24 --switches 6 --ops 60"
	# The regime sweep (mode sweep): from no room at all for the
	# foreground's 24 MiB to room for it and most of the caches; 24,
	# the headline point, is in the main run.
	sweep_free="8 16 32 48"
	# Each app's file-backed working set in the sweep (its code and
	# resources): 4 MiB, 16 for the four apps, a sixth of what the
	# apps ask at the headline point.
	sweep_file_mib=4
	# The arena: 64 MiB, half of it unpinned in 1, 4 or 16 ranges.
	arena_mib=64
	arena_ranges="1 4 16"
	swaps="none zram"
	workers="1 2 4"
	region_counts="16 256 4096"
fi
# Android's regime runs without swap and with zram swap (set up and torn
# down by the plan's @swap lines), the backends Android has had or might;
# the userspace models, Chromium's manager (uchrome), the lab's PSI purge
# manager (three trigger thresholds) and the trim model, run without swap
# only (the hour has no room for both).  Each block runs with the
# kernel's OOM killer alone ("oom"), then again with the lmkd-like
# killer beside the apps ("lmkd": appbench --lmkd, bench "app_lmkd"), as
# on a phone, where lmkd kills first (about 5 more minutes of the full
# plan: its app blocks took 310 s on 2026-12-06).  The guest's one
# panic with it ("no killable processes", the ballast at -1000 then) is
# gone since the ballast is killable, last (a run that loses it is
# discarded).
app_backends="pinned memfd ashmem madvfree volatile${droppable:+ $droppable}"
user_backends="uchrome upsi-10ms upsi-50ms upsi-150ms utrim"
app_killers="oom lmkd"
# Concurrency: the backends whose pin and unpin are system calls, and
# memfd (no call) as the floor.
con_backends="ashmem volatile anon madvfree memfd"
# Region count: the two libraries of <cutils/ashmem.h>.
scale_backends="ashmem volatile"
ZRAM_MIB=256
# The backends whose regions an fd shares between processes.
share_backends="ashmem volatile memfd"

# The binary that has @backend: ashmem needs the /dev/ashmem library,
# every other backend runs from the ashmem-compat one.
prog()
{
	case "$2" in
	ashmem) echo "$bin/$1_ashmem" ;;
	*) echo "$bin/$1_volatile" ;;
	esac
}

# The backends @2 of a point in a random order, seeded by @1 (the
# point's number within a repetition, kept by the caller: this runs in a
# subshell), so that every point gets its own order and the plan is the
# same at every run; rotated left by rep - 1 places, so that over N
# repetitions each of the N backends runs once in every place (a cyclic
# Latin square).
seq=0
ordered()
{
	echo "$2" | awk -v seed=$((20261204 + $1)) -v rep="$rep" '
	BEGIN { srand(seed) }
	{
		n = split($0, b, " ")
		for (i = n; i > 1; i--) {
			j = int(rand() * i) + 1
			t = b[i]; b[i] = b[j]; b[j] = t
		}
		for (p = 1; p <= n; p++) {
			i = (p - 1 + rep - 1) % n + 1
			printf "%s%s", b[i], (p < n ? " " : "\n")
		}
	}'
}

# The plan: one line per run, "family program backend args...".
plan=$out/plan.txt
: > "$plan"
rep=1
while [ "$mode" = cpumax ] && [ $rep -le $reps ]; do
	seq=0
	for size in 4K 64M; do
		seq=$((seq + 1))
		for b in $(ordered $seq "madvfree volatile ashmem"); do
			echo "pin pinbench $b --size $size --iters 20 --rep $rep" >> "$plan"
		done
	done
	for limit in 24 96; do
		seq=$((seq + 1))
		for b in $(ordered $seq "madvfree volatile"); do
			echo "cache cachebench $b --layout regions --limit-mib $limit $cache_args --rep $rep" >> "$plan"
		done
	done
	rep=$((rep + 1))
done
while [ "$mode" = rust ] && [ $rep -le $reps ]; do
	echo "app appbench ashmem $app_args --rep $rep" >> "$plan"
	for m in rootreclaim purgeall global; do
		echo "purge purgebench ashmem --mode $m --mib 64 --rep $rep" >> "$plan"
	done
	for kind in threads procs; do
		for n in $workers; do
			echo "concurrency conbench ashmem --workers $n --kind $kind --iters 300 --rep $rep" >> "$plan"
		done
	done
	rep=$((rep + 1))
done
# The regime sweep: the app regime's arguments but the free memory, and
# each app with a file-backed working set in /files (boot.sh --files: a
# 9p share through the page cache, which reclaim can drop and read back);
# 10 repetitions, so that each of the 10 backends (11 with droppable)
# takes each place of its block once (nearly).
case "$mode" in
sweep|sweep-quick)
	grep -q '^files /files 9p ' /proc/mounts || {
		echo "bench-matrix: $mode needs the files share at /files (boot.sh --files)" >&2
		exit 1
	}
	;;
esac
while { [ "$mode" = sweep ] || [ "$mode" = sweep-quick ]; } &&
      [ $rep -le $reps ]; do
	seq=0
	app_base=$(echo "$app_args" | sed 's/ --free-mib [0-9]*//')
	for swap in $swaps; do
		echo "@swap - $swap" >> "$plan"
		for free in $sweep_free; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$app_backends $user_backends"); do
				echo "sweep appbench $b $app_base --free-mib $free --sweep --file-mib $sweep_file_mib --file-dir /files --rep $rep" >> "$plan"
			done
		done
	done
	echo "@swap - none" >> "$plan"
	rep=$((rep + 1))
done
case "$mode" in
cpumax|rust|sweep|sweep-quick) rep=$((reps + 1)) ;;
esac
while [ $rep -le $reps ]; do
	seq=0
	for size in $sizes; do
		case "$size" in
		*M) iters=$([ "$mode" = quick ] && echo 5 || echo 20) ;;
		*) iters=$([ "$mode" = quick ] && echo 20 || echo 200) ;;
		esac
		seq=$((seq + 1))
		for b in $(ordered $seq "$backends"); do
			echo "pin pinbench $b --size $size --iters $iters --rep $rep" >> "$plan"
		done
	done
	iters=$([ "$mode" = quick ] && echo 3 || echo 5)
	for order in asc desc random; do
		ks=$order_fragments
		[ "$order" = asc ] && ks=$fragments
		for k in $ks; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends"); do
				echo "pin pinbench $b --fragments $k --order $order --iters $iters --rep $rep" >> "$plan"
			done
		done
	done
	for m in reclaim rootreclaim purgeall limit global; do
		mibs=$purge_sizes
		case "$m" in
		limit|global) mibs=$big_purge_sizes ;;
		esac
		for mib in $mibs; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends"); do
				echo "purge purgebench $b --mode $m --mib $mib --rep $rep" >> "$plan"
			done
		done
	done
	# The reference for file-backed purges: the kernel's own hole punch.
	for mib in $purge_sizes; do
		seq=$((seq + 1))
		for b in $(ordered $seq "volatile memfd"); do
			echo "purge purgebench $b --mode punchhole --mib $mib --rep $rep" >> "$plan"
		done
	done
	for layout in regions arena regions_competitor; do
		extra="--layout ${layout%_competitor}"
		[ "$layout" = regions_competitor ] && extra="$extra --competitor"
		limits=$cache_limits
		[ "$layout" = arena ] && limits=$arena_limits
		for limit in $limits; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends lru"); do
				echo "cache cachebench $b $extra --limit-mib $limit $cache_args --rep $rep" >> "$plan"
			done
		done
	done
	for share in $shares; do
		seq=$((seq + 1))
		for b in $(ordered $seq "$share_backends"); do
			echo "share sharebench $b --regions ${share%%:*} --region-kib ${share#*:} --rep $rep" >> "$plan"
		done
	done
	for kind in threads procs shared; do
		for n in $workers; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$con_backends"); do
				echo "concurrency conbench $b --workers $n --kind $kind --iters $([ "$mode" = quick ] && echo 50 || echo 300) --rep $rep" >> "$plan"
			done
		done
	done
	for n in $region_counts; do
		seq=$((seq + 1))
		for b in $(ordered $seq "$scale_backends"); do
			echo "pin pinbench $b --regions $n --iters $([ "$mode" = quick ] && echo 20 || echo 500) --rep $rep" >> "$plan"
		done
	done
	for swap in $swaps; do
		echo "@swap - $swap" >> "$plan"
		these=$app_backends
		[ "$swap" = none ] && these="$these $user_backends"
		for killer in $app_killers; do
			seq=$((seq + 1))
			extra=''
			[ "$killer" = lmkd ] && extra=--lmkd
			for b in $(ordered $seq "$these"); do
				echo "app appbench $b $app_args${extra:+ $extra} --rep $rep" >> "$plan"
			done
		done
	done
	echo "@swap - none" >> "$plan"
	# The arena (purgebench --ranges): partial unpins under global
	# pressure, whole-range against page-granular purge; rows in
	# arena.csv.  Last, so that the orders of the points before it are
	# those of the plans before it.
	for k in $arena_ranges; do
		seq=$((seq + 1))
		for b in $(ordered $seq "ashmem volatile anon madvfree${droppable:+ $droppable}"); do
			echo "arena purgebench $b --mode global --mib $arena_mib --ranges $k --rep $rep" >> "$plan"
		done
	done
	rep=$((rep + 1))
done

# swap_set none|zram: no swap, or swap on a fresh ZRAM_MIB zram device.
swap_set()
{
	if grep -q '^/dev/zram0 ' /proc/swaps; then
		swapoff /dev/zram0
	fi
	[ -e /sys/block/zram0/reset ] && echo 1 > /sys/block/zram0/reset
	[ "$1" = zram ] || return 0
	echo "${ZRAM_MIB}M" > /sys/block/zram0/disksize &&
		mkswap /dev/zram0 > /dev/null && swapon /dev/zram0
}

# The clocksource every timing is made with: a watchdog that finds it
# unstable switches the kernel to a coarser one in mid-run (the x86_64
# guest of series v1 fell back to jiffies: 4 ms steps), which fails the
# run below.
clock_file=/sys/devices/system/clocksource/clocksource0/current_clocksource
clock_at_start=$(cat "$clock_file")

total=$(grep -vc '^@' "$plan")
start=$(date +%s)
i=0
failed=0
echo "family,backend,args,seconds" > "$out/run-seconds.csv"
echo "bench-matrix: $mode, $total runs, $reps repetition(s); CSV in $out"
block='' pos=0
while read -r family program backend args; do
	if [ "$family" = @swap ]; then
		block=
		if ! swap_set "$backend"; then
			echo "bench-matrix: cannot set swap to $backend" >&2
			failed=$((failed + 1))
		fi
		continue
	fi
	i=$((i + 1))
	# The run's place in its block: the lines before it that differ
	# only in the backend.
	if [ "$family $program $args" = "$block" ]; then
		pos=$((pos + 1))
	else
		block="$family $program $args" pos=1
	fi
	now=$(date +%s)
	elapsed=$((now - start))
	if [ $i -gt 1 ]; then
		left="~$((elapsed * (total - i + 1) / (i - 1)))s left"
	else
		left="estimating"
	fi
	echo "[$i/$total] $family: $backend $args (${elapsed}s, $left)"
	rc=0
	# shellcheck disable=SC2086 # args are words
	LAB_POS=$pos LAB_POS_BACKEND=$backend \
		"$(prog "$program" "$backend")" --backend "$backend" $args \
		--csv "$out/$family.csv" 2> "$out/last-error.txt" || rc=$?
	if [ "$rc" = 3 ] && [ "$program" = appbench ]; then
		# appbench's ballast was lost: a discarded run, counted in
		# the CSV (ballast_lost), not a failure of the harness.
		echo "  DISCARDED: $(cat "$out/last-error.txt")"
		echo "$family $backend $args" >> "$out/discarded-runs.txt"
	elif [ "$rc" != 0 ]; then
		echo "  FAILED: $(cat "$out/last-error.txt")"
		echo "$family $backend $args" >> "$out/failed-runs.txt"
		failed=$((failed + 1))
	fi
	# What each run cost (whole seconds of the guest's clock): the
	# data the plan is trimmed by when the hour is short.
	echo "$family,$backend,$args,$(($(date +%s) - now))" >> \
		"$out/run-seconds.csv"
done < "$plan"
rm -f "$out/last-error.txt"
if [ "$(cat "$clock_file")" != "$clock_at_start" ]; then
	echo "  FAILED: the clocksource changed from $clock_at_start to $(cat "$clock_file") during the run"
	echo "clocksource $clock_at_start -> $(cat "$clock_file")" >> "$out/failed-runs.txt"
	failed=$((failed + 1))
fi
echo "bench-matrix: done in $(($(date +%s) - start))s, $failed failed run(s)"
echo "$(($(date +%s) - start))" > "$out/guest-seconds.txt"
[ $failed -eq 0 ]
