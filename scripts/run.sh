#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh ARCH DEBUG MEM CPUS TIMEOUT: `make run`.  Boots the patched kernel,
# runs the shell command line in $RUN inside the guest (with the host
# directory $EXTRA, if set, at /extra) and exits with its status.  MGLRU=1
# switches the multi-gen LRU on and ZRAM=MiB swaps on zram in the guest.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 5 ] || { echo "usage: run.sh ARCH DEBUG MEM CPUS TIMEOUT" >&2; exit 2; }
[ -n "${RUN:-}" ] || die "RUN is empty: give a command line, e.g. make run RUN='uname -r'"

run_dir=$LAB_BUILD/runs/run-$(variant_name "$1" "$2")
mkdir -p "$run_dir"
printf '%s\n' "$RUN" > "$run_dir/job"
extra=()
[ -z "${EXTRA:-}" ] || extra=(--extra "$EXTRA")
case "${MGLRU:-0}" in
0) ;;
1) extra+=(--mglru) ;;
*) die "MGLRU must be 0 or 1, not '$MGLRU'" ;;
esac
[ "${ZRAM:-0}" = 0 ] || extra+=(--zram "$ZRAM")
exec "$LAB_TOP/scripts/boot.sh" --arch "$1" --debug "$2" --mem "$3" \
	--cpus "$4" --timeout "$5" --run-dir "$run_dir" --job "$run_dir/job" \
	"${extra[@]}"
