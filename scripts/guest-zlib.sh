#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-zlib.sh ARCH: print the directory holding include/zlib.h and
# lib/<triplet>/libz.a for the guest's architecture, unpacked from
# Debian's zlib1g-dev (never installed on the host).  The benchmarks link
# zlib statically: a cache miss decodes a compressed object (appbench).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: guest-zlib.sh ARCH" >&2; exit 2; }
check_arch "$1"
dir=$(deb_unpack zlib1g-dev "$(debian_arch "$1")" usr/include/zlib.h)
ls "$dir"/usr/lib/*/libz.a > /dev/null 2>&1 ||
	die "zlib1g-dev in $dir has no libz.a"
printf '%s/usr\n' "$dir"
