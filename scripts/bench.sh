#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh ARCH quick|full: `make bench`.  Boots the normal kernel of
# ARCH (on LAB_KERNEL, make KERNEL=: 6.1's results go to results/ARCH,
# 6.12's to results/ARCH-6.12) once, runs the whole benchmark matrix in it (bench/matrix.sh)
# with its progress on the terminal, copies the CSV back and renders the
# graphs.  full: into results/ARCH/, then results/README.md is generated
# from every results/<arch>/ there is.  quick (BENCH_QUICK=1, and make
# check): tiny sizes into build/bench/ARCH-quick/, then checked (TAP on
# stdout is written to build/bench/ARCH-quick/check.tap).  BENCH_SWEEP=1
# adds a boot that runs Android's regime at several levels of free memory
# (bench-matrix sweep, or sweep-quick): its rows go to sweep.csv.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: bench.sh ARCH quick|full" >&2; exit 2; }
arch=$1 mode=$2
check_arch "$arch"
case "$mode" in
quick) out=$LAB_BUILD/bench/$(variant_name "$arch" 0)-quick timeout=900 ;;
# The full main boot took 3998 s on 2 TCG cores with the plan of
# 2026-12-07 (3760 runs, the lmkd-like killer's app blocks included),
# 4146 s with the second boot and the graphs.  The guard leaves room;
# about 75 minutes in all is the target.  On 6.12 the plan has 4210
# runs (droppable in every family) and its repetitions took 523-611 s
# (2026-12-07; 6.1's about 400 s: madvfree's four-thread concurrency
# runs alone take 161 s of one against 84 on 6.1), so about 90
# minutes: a guard of 4800 s stopped it.
full)
	out=$LAB_TOP/results/$(variant_name "$arch" 0) timeout=4800
	[ "$LAB_KERNEL" = 6.1 ] || timeout=7200
	;;
*) die "unknown mode '$mode' (quick or full)" ;;
esac
case "${BENCH_SWEEP:-0}" in
0|1) ;;
*) die "BENCH_SWEEP must be 0 or 1, not '$BENCH_SWEEP'" ;;
esac
report=$LAB_TOP/scripts/bench-report.py
# Debian's python3, which has python3-scipy and python3-numpy (deps.sh
# plot): another python3 on PATH (pyenv, a venv) may lack them.
py=/usr/bin/python3

start=$(date +%s)
run_dir=$LAB_BUILD/runs/bench-$(variant_name "$arch" 0)-$mode
mkdir -p "$run_dir"
{
	echo "export LAB_META_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "bench-matrix $mode /lab/out/bench"
} > "$run_dir/job"
status=0
if [ "${BENCH_REUSE_MAIN:-0}" = 1 ]; then
	# The main boot's output as the last make bench left it, e.g. after
	# an extra boot failed: only a matrix that ran to its end is taken.
	grep -q '^bench-matrix: done' "$run_dir/share/job.log" 2>/dev/null ||
		die "BENCH_REUSE_MAIN=1: no finished matrix in $run_dir"
	grep -q '0 failed run(s)$' "$run_dir/share/job.log" || status=1
	# Its wall time counts in the published figure, as if run now.
	main_seconds=$(cat "$run_dir/main-seconds" 2>/dev/null) ||
		die "BENCH_REUSE_MAIN=1: $run_dir/main-seconds is missing"
	case $main_seconds in
	'' | *[!0-9]*)
		die "BENCH_REUSE_MAIN=1: $run_dir/main-seconds: not a number"
		;;
	esac
	start=$((start - main_seconds))
	log "reusing the main boot's results in $run_dir ($main_seconds s)"
else
	log "benchmarks ($mode) on $arch; the guest prints its progress"
	rm -f "$run_dir/main-seconds"
	"$LAB_TOP/scripts/boot.sh" --arch "$arch" --debug 0 --mem 1024 \
		--cpus 4 --timeout "$timeout" --run-dir "$run_dir" \
		--job "$run_dir/job" || status=$?
	echo "$(($(date +%s) - start))" > "$run_dir/main-seconds"
fi

# Results replace the previous ones only once they are complete.
new=$out.new
rm -rf "$new"
mkdir -p "$new"
for f in pin.csv purge.csv cache.csv share.csv app.csv concurrency.csv \
	 arena.csv plan.txt failed-runs.txt discarded-runs.txt run-seconds.csv; do
	[ ! -f "$run_dir/share/out/bench/$f" ] ||
		cp "$run_dir/share/out/bench/$f" "$new/"
done
# A matrix that ran to its end with some runs failed (a run discarded
# when the OOM killer took appbench's ballast, after 47 minutes) is
# published with failed-runs.txt beside it, which the report's check
# names, and make bench fails at the end; a boot that crashed or timed
# out leaves the published results as they were.
finished=0
grep -q '^bench-matrix: done' "$run_dir/share/job.log" 2>/dev/null &&
	finished=1
[ "$status" = 0 ] || {
	[ "$mode" = quick ] || [ "$finished" = 1 ] ||
		die "the benchmark run failed (status $status); partial CSV in $new, guest log in $run_dir"
	log "the benchmark run failed (status $status); checking what it left"
}

# extra_boot NAME MATRIX_MODE BOOT_ARGS...: another boot of the same
# kernel running bench-matrix MATRIX_MODE; its CSV go to $new/NAME/.
# EXTRA_TIMEOUT: the boot's limit in seconds (900).
extra_boot()
{
	local name=$1 matrix=$2 f dir

	dir=$LAB_BUILD/runs/bench-$(variant_name "$arch" 0)-$1

	shift 2
	mkdir -p "$dir"
	{
		echo "export LAB_META_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "bench-matrix $matrix /lab/out/bench"
	} > "$dir/job"
	# A matrix that ran to its end with failed runs is kept, as the
	# main boot's is, and make bench fails at the end.
	if ! "$LAB_TOP/scripts/boot.sh" --arch "$arch" --debug 0 --mem 1024 \
		--cpus 4 --timeout "${EXTRA_TIMEOUT:-900}" --run-dir "$dir" \
		--job "$dir/job" "$@"; then
		grep -q '^bench-matrix: done' "$dir/share/job.log" 2>/dev/null ||
			die "the $name run failed; guest log in $dir"
		log "the $name run had failed runs: $new/$name/failed-runs.txt"
		status=1
	fi
	mkdir -p "$new/$name"
	for f in pin.csv purge.csv cache.csv app.csv concurrency.csv \
		 sweep.csv arena.csv plan.txt run-seconds.csv failed-runs.txt \
		 discarded-runs.txt; do
		[ ! -f "$dir/share/out/bench/$f" ] ||
			cp "$dir/share/out/bench/$f" "$new/$name/"
	done
	# What the guest kernel detected (the dirty bit, on arm64).
	grep -o 'CPU features: detected: .*' "$dir/console.log" \
		> "$new/$name/cpu-features.txt" || true
}

if [ "$mode" = full ]; then
	grep -o 'CPU features: detected: .*' "$run_dir/console.log" \
		> "$new/cpu-features.txt" || true
	# Android's newest ashmem: its points again with the Rust-mode
	# shrinker (kernel patch 16).
	log "ashmem's points again in the Rust mode (ashmem.rust_mode=1)"
	extra_boot ashmem-rust rust --cmdline ashmem.rust_mode=1
	# arm64's headline CPU is cortex-a72 (a common Android core,
	# without the hardware dirty bit FEAT_HAFDBS); the points where
	# that matters run again on -cpu max, which has it.
	if [ "$arch" = arm64 ]; then
		log "the CPU-model points again on -cpu max"
		extra_boot cpu-max cpumax --cpu max
	fi
fi
if [ "${BENCH_SWEEP:-0}" = 1 ]; then
	# 800 app runs of about 3 s in the full sweep; the guard leaves room.
	# --files: the apps' file-backed working sets (appbench --file-dir).
	log "Android's regime at several levels of free memory (BENCH_SWEEP=1)"
	EXTRA_TIMEOUT=$([ "$mode" = quick ] && echo 900 || echo 4200) \
		extra_boot sweep "$([ "$mode" = quick ] && echo sweep-quick || echo sweep)" \
		--files
	# Top level, where the report and the graphs read a family.
	mv "$new/sweep/sweep.csv" "$new/"
fi
"$py" "$report" plot "$new" || [ "$mode" = quick ] ||
	die "plotting failed; CSV in $new"
echo "$(($(date +%s) - start)) seconds from boot to graphs" \
	> "$new/run-seconds.txt"
rm -rf "$out"
mv "$new" "$out"
log "CSV and graphs in $out"

if [ "$mode" = quick ]; then
	"$py" "$report" check --quick "$out" | tee "$out/check.tap"
	exit "${PIPESTATUS[0]}"
fi
dirs=()
# Each arch on each kernel (results/<arch>, results/<arch>-6.12).
for d in "$LAB_TOP"/results/arm64 "$LAB_TOP"/results/arm64-6.12 \
	 "$LAB_TOP"/results/x86_64 "$LAB_TOP"/results/x86_64-6.12; do
	[ ! -f "$d/pin.csv" ] || dirs+=("$d")
done
"$py" "$report" report "$LAB_TOP/results/README.md" "${dirs[@]}"
log "report: results/README.md ($(($(date +%s) - start))s in all)"
[ "$status" = 0 ] ||
	die "published, but runs failed: see $out/failed-runs.txt and '$py $report check $out'"
