#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-selftests.sh ARCH: run the kernel tree's own mm selftests (6.1:
# tools/testing/selftests/vm, the programs kernel/vm-selftests/tests.list
# names; 6.12, LAB_KERNEL=6.12: tools/testing/selftests/mm and
# tests-6.12.list) on the kernel with the series and on the same config
# without it, print the two result lists side by side and fail on any
# difference.
#
# The programs are built once, statically, from the unpatched tree, so both
# kernels run the very same binaries.  The patched kernel is the normal
# variant (make kernel DEBUG=0); the unpatched one is
# build/kernel/<arch>-baseline (LAB_KERNEL_BASELINE=1 kernel-build.sh).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: vm-selftests.sh ARCH" >&2; exit 2; }
arch=$1
check_arch "$arch"

case "$LAB_KERNEL" in
6.1) list=tests.list sub=vm ;;
*) list=tests-$LAB_KERNEL.list sub=mm ;;
esac
list=$LAB_TOP/kernel/vm-selftests/$list
out=$LAB_BUILD/vm-selftests/$(variant_name "$arch" 0)
extra=$out/extra
cross=$(cross_prefix "$arch")
[ -r "$list" ] || die "cannot read $list"
# The series' own uapi headers (6.12's selftests use uapi 6.1 lacks).
headers=$("$LAB_TOP/scripts/kernel-build.sh" "$arch" 0 headers)
[ -d "$headers" ] || die "no uapi headers in $headers"

"$LAB_TOP/scripts/kernel-tree.sh" baseline
tree=$(baseline_src_dir)
vm=$tree/tools/testing/selftests/$sub
# What the tree's own Makefile provides: 6.12's local_config.h (made by
# its check_config.sh; no liburing here), and kselftest.h, which 6.12's
# khugepaged.c uses without including.
mkdir -p "$out/include"
echo "/* No liburing support (volatile-lab) */" > "$out/include/local_config.h"
# -D_GNU_SOURCE= as 6.12's lib.mk: the forced include would otherwise
# pull in features.h before a test's own #define _GNU_SOURCE.
cflags=()
[ "$sub" = vm ] ||
	cflags=(-D_GNU_SOURCE= -I "$out/include" -include "$vm/../kselftest.h")

# The list: NAME TIMEOUT [ARGS...]; comments and blank lines ignored.
tests=$(awk '!/^[ \t]*(#|$)/' "$list")
[ -n "$tests" ] || die "$list names no test"
while read -r name timeout _; do
	[ -r "$vm/$name.c" ] || die "$list: no $vm/$name.c"
	case "$timeout" in
	''|*[!0-9]*|0) die "$list: $name: TIMEOUT '$timeout' is not a positive integer" ;;
	esac
done <<< "$tests"

log "building $(wc -l <<< "$tests") vm selftests for $arch (static, from $tree)"
rm -rf "$extra"
mkdir -p "$extra/bin"
while read -r name _; do
	srcs=$vm/$name.c
	# uffd-common.h includes vm_util.h for its programs.
	if grep -q '"uffd-common.h"' "$srcs"; then
		srcs="$srcs $vm/uffd-common.c $vm/vm_util.c"
	elif grep -q '"vm_util.h"' "$srcs"; then
		srcs="$srcs $vm/vm_util.c"
	fi
	grep -q '"thp_settings.h"' "$vm/$name.c" &&
		srcs="$srcs $vm/thp_settings.c"
	# shellcheck disable=SC2086 # srcs is a list of paths
	"${cross}gcc" -static -O2 -Wall -I "$tree" -isystem "$headers" \
		${cflags[@]+"${cflags[@]}"} -o "$extra/bin/$name" $srcs \
		-lrt -lpthread -lm || die "$name does not build"
done <<< "$tests"
printf '%s\n' "$tests" > "$extra/tests.list"

# Build the unpatched kernel with the same fragments.
LAB_KERNEL_BASELINE=1 "$LAB_TOP/scripts/kernel-build.sh" "$arch" 0 image

# The guest half: run every program from a writable directory, keep its
# output, and classify it by exit status and by its TAP lines.
job=$out/vm-selftests.job
cat > "$job" <<'JOB'
mkdir -p /tmp/vm /lab/out/logs
cd /tmp/vm || exit 1
echo 1 > /proc/sys/vm/overcommit_memory || exit 1
# No brk randomization (1 keeps mmap's and the stack's): a static
# program's heap may otherwise start anywhere in the 1 GiB after its bss,
# and mremap_test's case 15 maps a 40 MiB preamble there with
# MAP_FIXED_NOREPLACE without looking first, so it failed with EEXIST in
# about 4% of runs on either kernel (kernel/patches-6.12/README.md).
echo 1 > /proc/sys/kernel/randomize_va_space || exit 1
: > /lab/out/results
while read -r name timeout args; do
	echo "# $name $args"
	# shellcheck disable=SC2086 # args is a list
	timeout "$timeout" "/extra/bin/$name" $args \
		> "/lab/out/logs/$name.log" 2>&1 < /dev/null
	rc=$?
	case $rc in
	0) verdict=pass ;;
	4) verdict=skip ;;
	124|137|143) verdict=timeout ;;
	*) verdict=fail ;;
	esac
	tap=$(awk '/^ok / && /# [Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok / { p++; next } /^not ok / { f++ }
		END { printf "ok=%d not_ok=%d skip=%d", p, f, s }' \
		"/lab/out/logs/$name.log")
	echo "$name $verdict rc=$rc $tap" >> /lab/out/results
done < /extra/tests.list
echo "# done"
JOB

total_timeout=$(awk '{ t += $2 } END { print t + 120 }' <<< "$tests")
run_kernel()
{
	local which=$1 base=$2 run=$out/run-$1

	log "running the vm selftests on the $which kernel"
	LAB_KERNEL_BASELINE=$base "$LAB_TOP/scripts/boot.sh" --arch "$arch" \
		--debug 0 --mem 1024 --cpus 2 --timeout "$total_timeout" \
		--quiet --run-dir "$run" --extra "$extra" --job "$job" ||
		die "the $which kernel's run failed: $(cat "$run/verdict" 2>/dev/null || echo 'no verdict') (see $run)"
	[ -s "$run/share/out/results" ] || die "the $which kernel left no results"
	cp "$run/share/out/results" "$out/$which.results"
	cp "$run/accel" "$out/$which.accel"
}
run_kernel baseline 1
run_kernel series 0

release_base=$(cat "$(LAB_KERNEL_BASELINE=1 kernel_out_dir "$arch" 0)/lab-release")
release_series=$(cat "$(kernel_out_dir "$arch" 0)/lab-release")
{
	echo "vm selftests on $arch ($(cat "$out/series.accel")), same binaries and config"
	printf '%-22s %-34s %-34s\n' test "$release_base" "$release_series"
	join -a1 -a2 -e missing -o 0,1.2,1.3,1.4,1.5,1.6,2.2,2.3,2.4,2.5,2.6 \
		<(sort "$out/baseline.results") <(sort "$out/series.results") |
	awk '{
		a = $2 " " $3 " " $4 " " $5 " " $6
		b = $7 " " $8 " " $9 " " $10 " " $11
		printf "%-22s %-34s %-34s%s\n", $1, a, b, (a == b) ? "" : "  DIFFERS"
	}'
} | tee "$out/side-by-side.txt"
if grep -q 'DIFFERS$' "$out/side-by-side.txt"; then
	die "the kernels differ (logs in $out/run-*/share/out/logs)"
fi
log "identical results on both kernels ($out/side-by-side.txt)"
