#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh ARCH: `make check`.  Runs the host-side unit tests, builds the
# normal and the debug kernel for ARCH, boots each and runs every in-guest
# suite, checks that results crossed back intact, tests the harness itself
# and runs the benchmarks' quick mode on the normal kernel, and prints one summary of all TAP results, ending
# with "N passed, N failed".  Exits non-zero on any failure.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: check.sh ARCH" >&2; exit 2; }
arch=$1
check_arch "$arch"

# Both series, whatever KERNEL says: 6.1 (the default) first, then 6.12.
[ "$LAB_KERNEL" = 6.1 ] ||
	log "make check runs both kernels; KERNEL=$LAB_KERNEL is not taken"
export LAB_KERNEL=6.1

results=$LAB_BUILD/check/$arch
rm -rf "$results"
mkdir -p "$results"
start=$(date +%s)

# Every make step prints its own progress; failures stop the check here.
# KERNEL on the command line: a make check KERNEL=... on the command line
# would otherwise reach every nested make through MAKEFLAGS.
lab_make()
{
	make -s -C "$LAB_TOP" ARCH="$arch" KERNEL="$LAB_KERNEL" "$@"
}

phase()
{
	log "[$(($(date +%s) - start))s] $*"
}

phase "host unit tests"
# The unit tests run the report scripts (python3) and the kernel tree's
# extract/apply cycle on a fake tarball (xz, git): a minbase system has
# none of them (make fresh-check).  The lint test is optional: shellcheck
# is installed when we may, and its test is skipped (and says so) when it
# is missing.
"$LAB_TOP/scripts/deps.sh" kernel plot
"$LAB_TOP/scripts/deps.sh" lint 2>/dev/null || log "shellcheck not installed; its test is skipped"
"$LAB_TOP/scripts/tests/host-tests.sh" > "$results/host.tap" 2>&1 || true

phase "preparing the kernel tree, guest programs and initramfs"
"$LAB_TOP/scripts/deps.sh" kernel "cross-$arch" rootfs "qemu-$arch"
lab_make rootfs
# The host half of the results-crossing check.
make -s -C "$LAB_TOP/guest-rootfs" O="$LAB_BUILD/guest/host" \
	"$LAB_BUILD/guest/host/bin/patterngen"

pattern_seed=20261203
pattern_bytes=$((8 * 1024 * 1024))
log_lines=5000

suites_job=$results/suites.job
cat > "$suites_job" <<JOB
run-tests
rc=\$?
# On the debug kernel: a short stress run and fuzzing, side by side.
if [ "\${LAB_DEBUG:-0}" = 1 ]; then
	vfuzz --seconds 60 > /lab/out/fuzz.tap 2>&1 &
	fuzz=\$!
	vstress --seconds 90 > /lab/out/stress.tap 2>&1
	echo "# exit status: \$?" >> /lab/out/stress.tap
	wait \$fuzz
	echo "# exit status: \$?" >> /lab/out/fuzz.tap
fi
patterngen $pattern_seed $pattern_bytes > /lab/out/pattern.bin || rc=1
i=1
while [ \$i -le $log_lines ]; do echo "crossing line \$i"; i=\$((i + 1)); done
exit \$rc
JOB

# crossing_tap RUN_DIR VARIANT: TAP for "results crossed back intact".
crossing_tap()
{
	local share=$1/share variant=$2 want

	echo "TAP version 13"
	echo "1..3"
	if [ "$(cat "$1/verdict" 2>/dev/null)" = ok ]; then
		echo "ok 1 $variant: guest powered off with a clean kernel log"
	else
		echo "not ok 1 $variant: guest run failed: $(cat "$1/verdict" 2>/dev/null || echo 'no verdict')"
	fi
	want=$("$LAB_BUILD/guest/host/bin/patterngen" $pattern_seed $pattern_bytes | sha256sum)
	if [ -f "$share/out/pattern.bin" ] &&
	   [ "$(sha256sum < "$share/out/pattern.bin")" = "$want" ]; then
		echo "ok 2 $variant: an 8 MiB file written in the guest matches the host's copy"
	else
		echo "not ok 2 $variant: the guest's pattern file differs from the host's"
	fi
	if awk -v n=$log_lines '
		/^crossing line / { if ($3 != ++seen) bad = 1 }
		END { exit (bad || seen != n) }' "$share/job.log"; then
		echo "ok 3 $variant: $log_lines job.log lines arrived complete and in order"
	else
		echo "not ok 3 $variant: job.log lines lost or out of order"
	fi
}

# run_job NAME JOB BOOT_ARGS...: boot a guest that runs JOB and collect its
# TAP into $results/NAME; a guest that failed (kernel report, timeout, no
# status) is one more failure, in boot.tap.
# Four vCPUs (on whatever the host has): the OOM-ordering tests need
# several CPUs in reclaim at once, as on a phone (issue 26).
run_job()
{
	local name=$1 job=$2 run_dir=$LAB_BUILD/runs/check-$1 verdict cpus=4

	shift 2
	# The debug kernel keeps 2: its suites fit the 900 s only so, and
	# the OOM-ordering cases skip themselves there (vr_oom_test()).
	case " $* " in *" --debug 1 "*) cpus=2 ;; esac
	"$LAB_TOP/scripts/boot.sh" --arch "$arch" --mem 1024 --cpus "$cpus" \
		--timeout 900 --quiet "$@" --run-dir "$run_dir" \
		--job "$job" || true
	mkdir -p "$results/$name"
	cp "$run_dir/share/out/"*.tap "$results/$name/" 2>/dev/null || true
	verdict=$(cat "$run_dir/verdict" 2>/dev/null || echo 'no verdict')
	[ "$verdict" = ok ] ||
		printf '1..1\nnot ok 1 %s: guest run failed: %s\n' \
			"$name" "$verdict" > "$results/$name/boot.tap"
}

# run_suites DEBUG: build and boot one variant, collect its TAP.
run_suites()
{
	local debug=$1 variant

	variant=$(variant_name "$arch" "$debug")
	phase "building the $variant kernel"
	lab_make kernel DEBUG="$debug"
	phase "running the in-guest suites on $variant"
	run_job "$variant" "$suites_job" --debug "$debug"
	crossing_tap "$LAB_BUILD/runs/check-$variant" "$variant" \
		> "$results/$variant/crossing.tap"
}

# run_mode DEBUG NAME BOOT_ARGS...: the volatile suites again in one of
# Android's memory configurations (MGLRU, zram swap), same kernel: the
# kernel's (anonymous and shmem) and ashmem-compat's on volatile ranges.
run_mode()
{
	local debug=$1 name=$2 variant

	shift 2
	variant=$(variant_name "$arch" "$debug")
	phase "volatile suites on $variant with $name"
	run_job "$variant-$name" "$mode_job" --debug "$debug" "$@"
}
mode_job=$results/mode.job
echo 'run-tests volatile_test volatile_shmem_test volatile_trace_test cutils_api_volatile_test sharing_volatile_test client64_volatile_test' > "$mode_job"

# The ashmem driver's Rust mode (android16's shrinker), same kernel.
ashmem_job=$results/ashmem-rust.job
echo 'run-tests ashmem_mode_test ashmem_test' > "$ashmem_job"

run_suites 0
phase "ashmem suites on $(variant_name "$arch" 0) in the Rust mode"
run_job "$(variant_name "$arch" 0)-ashmem-rust" "$ashmem_job" --debug 0 \
	--cmdline ashmem.rust_mode=1
run_mode 0 mglru --mglru
run_mode 0 zram --zram 256
run_mode 0 mglru-zram --mglru --zram 256
# The LAVA bridge (lava/README.md): the jobs for the kernel and initramfs
# just built, checked with LAVA's own schema and dispatcher; boots nothing.
if [ "$arch" = arm64 ]; then
	phase "LAVA jobs for $(variant_name "$arch" 0), checked with LAVA's code"
	"$LAB_TOP/scripts/tests/lava-tests.sh" > "$results/lava.tap" 2>&1 ||
		true
fi
phase "testing the harness on $(variant_name "$arch" 0)"
"$LAB_TOP/scripts/tests/harness-tests.sh" "$arch" > "$results/harness.tap" 2>&1 || true

# The benchmarks' quick mode: every code path on tiny sizes, the arena
# and the regime sweep too (BENCH_SWEEP=1: a second boot), then the CSV
# and graphs are checked for shape and sanity (not for numbers).
# quick_bench NAME SWEEP: make bench BENCH_QUICK=1 (BENCH_SWEEP=SWEEP) on
# the normal kernel of LAB_KERNEL; its check goes to $results/NAME.tap.
quick_bench()
{
	local variant quick

	variant=$(variant_name "$arch" 0)
	quick=$LAB_BUILD/bench/$variant-quick
	phase "quick benchmarks on $variant"
	"$LAB_TOP/scripts/deps.sh" plot
	rm -f "$quick/check.tap"
	BENCH_SWEEP=$2 "$LAB_TOP/scripts/bench.sh" "$arch" quick \
		> "$results/$1.log" 2>&1 || true
	if [ -f "$quick/check.tap" ]; then
		cp "$quick/check.tap" "$results/$1.tap"
	else
		printf '1..1\nnot ok 1 %s: the quick run left no check (see %s)\n' \
			"$1" "$results/$1.log" > "$results/$1.tap"
	fi
}

quick_bench bench 1
run_suites 1
phase "ashmem suites on $(variant_name "$arch" 1) in the Rust mode"
run_job "$(variant_name "$arch" 1)-ashmem-rust" "$ashmem_job" --debug 1 \
	--cmdline ashmem.rust_mode=1
run_mode 1 mglru-zram --mglru --zram 256

# The 6.12 series (kernel/patches-6.12): its normal kernel runs every
# suite with the same initramfs, which is built against the 6.1 series'
# uapi headers; first, that the two series define the same uapi.
uapi_tap()
{
	local a b

	a=$(LAB_KERNEL=6.1 headers_dir "$arch")/include
	b=$(LAB_KERNEL=6.12 headers_dir "$arch")/include
	echo "TAP version 13"
	echo "1..1"
	if ! LAB_KERNEL=6.12 "$LAB_TOP/scripts/kernel-build.sh" "$arch" 0 \
		headers > /dev/null; then
		echo "not ok 1 the 6.12 series' uapi headers did not install"
	elif [ -n "$(uapi_defs "$a")" ] &&
	     [ "$(uapi_defs "$a")" = "$(uapi_defs "$b")" ]; then
		echo "ok 1 the 6.1 and 6.12 series define the same volatile and ashmem uapi ($(uapi_defs "$a" | wc -l) lines)"
	else
		echo "not ok 1 the 6.1 and 6.12 series' volatile and ashmem uapi differ (diff $a $b)"
	fi
}

# uapi_defs DIR: the lab's uapi definitions in the headers under DIR.
uapi_defs()
{
	grep -rhE '^#define[[:space:]]+((MADV|FALLOC_FL)_[A-Z_]*VOLATILE[A-Z_]*|_*ASHMEM[A-Z_]*)[[:space:]]' \
		"$1" 2>/dev/null | tr -s ' \t' ' ' | sort
}

(
	export LAB_KERNEL=6.12
	run_suites 0
	uapi_tap > "$results/$(variant_name "$arch" 0)/uapi.tap"
	# Where droppable, a baseline from 6.11 on, runs.
	quick_bench bench-6.12 0
)

phase "summary ($(($(date +%s) - start))s)"
cd "$results"
# shellcheck disable=SC2046 # the TAP file names have no spaces
exec "$LAB_TOP/scripts/tap-summary.sh" $(find . -name '*.tap' | sort)
