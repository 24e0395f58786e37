#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# aosp-ashmem-test.sh SRC.cpp OUTDIR
#
# Builds AOSP's libcutils ashmem_test.cpp (a googletest suite), unmodified,
# as two static arm64 guest programs:
#   OUTDIR/aosp_ashmem_test_driver   linked with libashmem_driver.a
#   OUTDIR/aosp_ashmem_test_compat   linked with libashmem_compat.a
# Run them with
#   make run ARCH=arm64 EXTRA=OUTDIR RUN='/extra/aosp_ashmem_test_driver'
#
# SRC.cpp is the test as AOSP ships it (system/core libcutils/ashmem_test.cpp;
# its source is not part of the lab and is never downloaded here).  What it
# needs from Android comes from ashmem-compat: <cutils/ashmem.h> and the
# stand-ins of ashmem-compat/tests/aosp/include (<android-base/macros.h>,
# <android-base/unique_fd.h>, and "ashmem-internal.h" for the newer versions
# of the test).  On bionic, <cutils/ashmem.h> brings in <linux/ashmem.h> and
# ioctl(); the test relies on that, so both are included here with -include.
#
# Environment:
#   HEADERS    the lab's arm64 uapi headers (default: build/headers/arm64/include,
#              from `make headers ARCH=arm64`)
#   WORK       intermediates: googletest (gtest-arm64/), both libraries built
#              from ashmem-compat/src (lib-arm64/), the test object (obj-arm64/)
#              (default: build/aosp-ashmem-test)
#   GTEST_SRC  googletest's sources (default: /usr/src/googletest/googletest,
#              Debian's googletest package)
#   ASHMEM_DIR the ashmem-compat tree whose libraries and <cutils/ashmem.h>
#              are used (default: the lab's ashmem-compat; e.g. a
#              `git archive` of a commit's ashmem-compat to test that commit)
# Packages: g++-aarch64-linux-gnu, gcc-aarch64-linux-gnu, googletest, make.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: ${0##*/} SRC.cpp OUTDIR" >&2
	sed -n '6,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -eq 2 ] || usage
src=$1 outdir=$2
if [ -z "$src" ] || [ -z "$outdir" ]; then
	usage
fi
if [ ! -f "$src" ] || [ ! -r "$src" ]; then
	die "cannot read the test source '$src'"
fi

headers=${HEADERS:-$LAB_BUILD/headers/arm64/include}
work=${WORK:-$LAB_BUILD/aosp-ashmem-test}
gtest_src=${GTEST_SRC:-/usr/src/googletest/googletest}
ashmem_dir=${ASHMEM_DIR:-$LAB_TOP/ashmem-compat}
aosp_inc=$LAB_TOP/ashmem-compat/tests/aosp/include

"$LAB_TOP/scripts/deps.sh" aosp cross-arm64
if [ "$(uname -m)" = aarch64 ]; then
	cross=""
else
	cross=aarch64-linux-gnu-
fi
for tool in "${cross}gcc" "${cross}g++" "${cross}ar"; do
	command -v "$tool" >/dev/null || die "$tool not found" \
		"(apt-get install g++-aarch64-linux-gnu gcc-aarch64-linux-gnu)"
done
if [ ! -f "$gtest_src/src/gtest-all.cc" ] ||
   [ ! -f "$gtest_src/src/gtest_main.cc" ]; then
	die "no googletest sources in '$gtest_src' (apt-get install googletest)"
fi
[ -f "$headers/linux/ashmem.h" ] ||
	die "no lab uapi headers in '$headers' (run: make headers ARCH=arm64)"
if [ ! -f "$ashmem_dir/Makefile" ] ||
   [ ! -f "$ashmem_dir/include/cutils/ashmem.h" ]; then
	die "'$ashmem_dir' is not an ashmem-compat tree"
fi

mkdir -p "$outdir" "$work/gtest-arm64" "$work/obj-arm64"
outdir=$(cd "$outdir" && pwd)
work=$(cd "$work" && pwd)
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")

# Both libraries from ASHMEM_DIR/src (make rebuilds what changed).
lib=$work/lib-arm64
log "libashmem_driver.a and libashmem_compat.a from $ashmem_dir in $lib"
make --no-print-directory -C "$ashmem_dir" CC="${cross}gcc" \
	AR="${cross}ar" HEADERS="$headers" O="$lib" \
	"$lib/libashmem_driver.a" "$lib/libashmem_compat.a"

# googletest and its main(), once per source version.
gtest=$work/gtest-arm64
cxx=("${cross}g++" -std=gnu++17 -O2 -g -pthread)
for unit in gtest-all gtest_main; do
	case $unit in
	gtest-all) a=$gtest/libgtest.a ;;
	gtest_main) a=$gtest/libgtest_main.a ;;
	esac
	if [ ! -f "$a" ] || [ "$gtest_src/src/$unit.cc" -nt "$a" ]; then
		log "googletest: $unit for arm64"
		"${cxx[@]}" -isystem "$gtest_src/include" -I "$gtest_src" \
			-c -o "$gtest/$unit.o" "$gtest_src/src/$unit.cc"
		rm -f "$a"
		"${cross}ar" rcs "$a" "$gtest/$unit.o"
	fi
done

# The test, compiled once and linked with each library.  The linker's
# warning about getaddrinfo in a static program is gtest's
# --gtest_stream_result_to, which the guest runs never use.
obj=$work/obj-arm64/ashmem_test.o
log "compiling $src"
"${cxx[@]}" -Wall -I "$aosp_inc" -I "$ashmem_dir/include" \
	-isystem "$gtest_src/include" -isystem "$headers" \
	-include sys/ioctl.h -include linux/ashmem.h \
	-c -o "$obj" "$src"
for pair in driver:libashmem_driver.a compat:libashmem_compat.a; do
	prog=$outdir/aosp_ashmem_test_${pair%%:*}
	"${cxx[@]}" -static -o "$prog.tmp" "$obj" "$lib/${pair#*:}" \
		"$gtest/libgtest_main.a" "$gtest/libgtest.a"
	mv "$prog.tmp" "$prog"
	log "built $prog (${pair#*:})"
done
echo "run: make run ARCH=arm64 EXTRA=$outdir RUN='/extra/aosp_ashmem_test_driver'"
