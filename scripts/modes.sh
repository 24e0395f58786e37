#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modes.sh ARCH DEBUG: every in-guest suite on one kernel of LAB_KERNEL's
# series (make modes ARCH=... KERNEL=... DEBUG=...), then again in each
# of its other modes: the ashmem driver's Rust mode, MGLRU, zram and
# both.  make check runs this set on the normal kernels of both series
# and a part of it on 6.1's debug kernel; this is the rest, on demand.
# Prints one summary of the TAP results, "N passed, N failed"; exits
# non-zero on any failure.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: modes.sh ARCH DEBUG(0|1)" >&2; exit 2; }
arch=$1
check_arch "$arch"
case $2 in
0 | 1) debug=$2 ;;
*) die "DEBUG must be 0 or 1, not '$2'" ;;
esac

results=$LAB_BUILD/modes/$(variant_name "$arch" "$debug")
rm -rf "$results"
mkdir -p "$results"
start=$(date +%s)

# shellcheck source=scripts/suites.sh
. "$LAB_TOP/scripts/suites.sh"

"$LAB_TOP/scripts/deps.sh" kernel "cross-$arch" rootfs "qemu-$arch"
lab_make rootfs
suites_prepare
run_suites "$debug"
run_every_mode "$debug"

phase "summary ($(($(date +%s) - start))s)"
cd "$results"
# shellcheck disable=SC2046 # the TAP file names have no spaces
exec "$LAB_TOP/scripts/tap-summary.sh" $(find . -name '*.tap' | sort)
