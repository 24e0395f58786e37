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

# shellcheck source=scripts/suites.sh
. "$LAB_TOP/scripts/suites.sh"

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
suites_prepare

run_suites 0
# The memory modes are split between the two kernels and their variants,
# so that each runs once: 6.1's normal kernel MGLRU and zram, its debug
# kernel MGLRU with zram, 6.12's normal kernel MGLRU with zram (Android
# 16's configuration); the Rust-mode ashmem on each.  Every mode of one
# kernel: make modes ARCH=.. KERNEL=.. (CI took 4233 s with every mode on
# both normal kernels, against 1799 s before).
run_rust 0
run_mode 0 mglru --mglru
run_mode 0 zram --zram 256
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
run_rust 1
run_mode 1 mglru-zram --mglru --zram 256

# The 6.12 series (kernel/patches-6.12): its normal kernel runs every
# suite with the same initramfs, then in the Rust mode and with MGLRU and
# zram (every mode: make modes KERNEL=6.12 [DEBUG=1]).  The initramfs is
# built against the 6.1 series' uapi headers: first, that the two series
# define the same uapi.
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
	run_rust 0
	run_mode 0 mglru-zram --mglru --zram 256
	uapi_tap > "$results/$(variant_name "$arch" 0)/uapi.tap"
	# Where droppable, a baseline from 6.11 on, runs.
	quick_bench bench-6.12 0
)

phase "summary ($(($(date +%s) - start))s)"
cd "$results"
# shellcheck disable=SC2046 # the TAP file names have no spaces
exec "$LAB_TOP/scripts/tap-summary.sh" $(find . -name '*.tap' | sort)
