#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-run.sh ARCH [SUITE [FAMILY]]: `make lava-run`.  Runs the lab's
# qemu LAVA jobs on this machine with the real lava-dispatcher (lava-run,
# no server, no scheduler): the suite SUITE (default volatile_trace_test)
# and, unless FAMILY is "none", the quick benchmark family FAMILY (default
# share; "all": the seven, whose imported CSV bench-report.py check takes
# like make bench's), one after the other, one guest at a time.  The device is
# lava-server's qemu-aarch64 device type rendered with each job's context
# (scripts/lava-device.py).  The results are imported (scripts/
# lava-import.py) into the lab's TAP and CSV under
# $LAB_BUILD/lava/run/results/, and the TAP summary ends the output.
#
# Needs root (lava-run works in /var/lib/lava/dispatcher) and the lab's
# arm64 Image and initramfs.  Exit status: tap-summary.sh's (0 when every
# test passed), 1 on an error, 2 on bad usage.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lava-lib.sh
. "$(dirname "$0")/lava-lib.sh"

usage()
{
	echo "usage: lava-run.sh arm64 [SUITE [FAMILY|all|none]]" >&2
	exit 2
}
if [ $# -lt 1 ] || [ $# -gt 3 ]; then usage; fi
arch=$1 suite=${2:-volatile_trace_test} family=${3:-share}
[ "$arch" = arm64 ] || {
	echo "lava-run.sh: only ARCH=arm64 has LAVA jobs, not '$arch'" >&2
	exit 2
}
case "$suite" in ''|*[!A-Za-z0-9_]*) echo "lava-run.sh: bad suite name '$suite'" >&2; exit 2 ;; esac
case "$family" in pin|purge|cache|share|concurrency|app|arena|all|none) ;;
*) echo "lava-run.sh: unknown family '$family' (pin purge cache share concurrency app arena, all or none)" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || die "lava-run needs root (it works in /var/lib/lava/dispatcher)"
command -v lava-run > /dev/null || die "lava-run not found (run: scripts/deps.sh lava)"

image=$(kernel_image arm64 0)
rootfs=$(rootfs_image arm64)
[ -f "$image" ] || die "no kernel at $image (run: make kernel ARCH=arm64)"
[ -f "$rootfs" ] || die "no initramfs at $rootfs (run: make rootfs ARCH=arm64)"
templates=$(lava_templates)

dir=$LAB_BUILD/lava/run
rm -rf "$dir"
mkdir -p "$dir/jobs"
case "$family" in
none) families="" ;;
all) families=pin,purge,cache,share,concurrency,app,arena ;;
*) families=$family ;;
esac
"$LAVA_PYTHON" "$LAB_TOP/scripts/lava-jobs.py" --out "$dir/jobs" \
	--device-types qemu --suites "$suite" --families "$families" \
	--bench-mode quick --initramfs "$rootfs" \
	--kernel-url "file://$image" --ramdisk-url "file://$rootfs" >&2

logs=()
id=0
for job in "$dir/jobs"/*.yaml; do
	name=$(basename "$job" .yaml)
	id=$((id + 1))
	"$LAVA_PYTHON" "$LAB_TOP/scripts/lava-device.py" "$templates" \
		qemu-aarch64 "$job" > "$dir/$name.device.yaml"
	log "lava-run $name (the dispatcher's log: $dir/$name.log)"
	start=$(date +%s)
	rc=0
	lava-run --job-id "$id" --output-dir "$dir/$name.out" \
		--device "$dir/$name.device.yaml" "$job" > "$dir/$name.log" 2>&1 ||
		rc=$?
	log "$name: lava-run exited $rc after $(($(date +%s) - start))s"
	grep -o '"msg": "Job finished correctly"\|"lvl": "error", "msg": .*' \
		"$dir/$name.log" | head -n 5 >&2 || true
	logs+=("$dir/$name.log")
done

"$LAVA_PYTHON" "$LAB_TOP/scripts/lava-import.py" --out "$dir/results" \
	"${logs[@]}" >&2
for csv in "$dir/results"/*.csv; do
	[ -f "$csv" ] && log "CSV: $csv"
done
cd "$dir/results"
# shellcheck disable=SC2046 # the TAP file names have no spaces
exec "$LAB_TOP/scripts/tap-summary.sh" $(ls -- *.tap)
