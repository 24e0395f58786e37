#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh ARCH DEBUG MEM CPUS TIMEOUT: `make run`.  Boots the patched kernel,
# runs the shell command line in $RUN inside the guest (with the host
# directory $EXTRA, if set, at /extra) and exits with its status.  MGLRU=1
# switches the multi-gen LRU on and ZRAM=MiB swaps on zram in the guest.
# KERNEL_IMAGE=path boots that image instead of the lab's build (boot.sh
# --kernel).
#
# Every invocation has a run directory of its own,
# build/runs/run-<variant>-<UTC time>-<pid>, so that runs side by side do
# not clobber each other; build/runs/run-<variant>-last is a symbolic link
# to the one started last.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 5 ] || { echo "usage: run.sh ARCH DEBUG MEM CPUS TIMEOUT" >&2; exit 2; }
[ -n "${RUN:-}" ] || die "RUN is empty: give a command line, e.g. make run RUN='uname -r'"

extra=()
[ -z "${EXTRA:-}" ] || extra=(--extra "$EXTRA")
case "${MGLRU:-0}" in
0) ;;
1) extra+=(--mglru) ;;
*) die "MGLRU must be 0 or 1, not '$MGLRU'" ;;
esac
[ "${ZRAM:-0}" = 0 ] || extra+=(--zram "$ZRAM")
[ -z "${KERNEL_IMAGE:-}" ] || extra+=(--kernel "$KERNEL_IMAGE")

runs=$LAB_BUILD/runs
name=run-$(variant_name "$1" "$2")
run_dir=$runs/$name-$(date -u +%Y%m%dT%H%M%SZ)-$$
mkdir -p "$runs"
mkdir "$run_dir"
printf '%s\n' "$RUN" > "$run_dir/job"
# Replace the link in one rename(2): a reader never finds it missing.
ln -sfn "${run_dir##*/}" "$runs/$name-last.$$"
mv -T "$runs/$name-last.$$" "$runs/$name-last"
log "run directory: $run_dir"
exec "$LAB_TOP/scripts/boot.sh" --arch "$1" --debug "$2" --mem "$3" \
	--cpus "$4" --timeout "$5" --run-dir "$run_dir" --job "$run_dir/job" \
	"${extra[@]}"
