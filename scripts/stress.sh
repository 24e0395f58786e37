#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh ARCH DEBUG SECONDS: `make stress`.  Boots one kernel variant
# (the debug one by default: KASAN, lockdep, DEBUG_VM, panic_on_warn) and
# runs the stress program and the fuzzer side by side for SECONDS, then
# prints their TAP and the summary.  A run of 1200 s or more regenerates
# results/reliability.md from its figures.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || { echo "usage: stress.sh ARCH DEBUG SECONDS" >&2; exit 2; }
arch=$1 debug=$2 seconds=$3
check_arch "$arch"
case "$seconds" in
''|*[!0-9]*) die "SECONDS must be a positive integer, not '$seconds'" ;;
esac
[ "$seconds" -gt 0 ] || die "SECONDS must be a positive integer"
seed=${STRESS_SEED:-20261203}
case "$seed" in
''|*[!0-9]*|0) die "STRESS_SEED must be a positive integer, not '$seed'" ;;
esac

variant=$(variant_name "$arch" "$debug")
run_dir=$LAB_BUILD/runs/stress-$variant
mkdir -p "$run_dir"
cat > "$run_dir/job" <<JOB
vfuzz --seconds $seconds --seed $seed --report /lab/out/fuzz.txt \
	> /lab/out/fuzz.tap 2>&1 &
fuzz=\$!
vstress --seconds $seconds --seed $seed --report /lab/out/stress.txt \
	> /lab/out/stress.tap 2>&1
echo "# exit status: \$?" >> /lab/out/stress.tap
wait \$fuzz
echo "# exit status: \$?" >> /lab/out/fuzz.tap
JOB
log "stress and fuzz for ${seconds}s on $variant (seed $seed)"
status=0
"$LAB_TOP/scripts/boot.sh" --arch "$arch" --debug "$debug" --mem 1024 \
	--cpus 2 --timeout $((seconds + 600)) --quiet --run-dir "$run_dir" \
	--job "$run_dir/job" || status=$?
reports=0
[ "$status" = 0 ] || reports=1
cat "$run_dir/verdict" 2>/dev/null || true
out=$run_dir/share/out
cat "$out/stress.tap" "$out/fuzz.tap" 2>/dev/null || true
summary_status=0
"$LAB_TOP/scripts/tap-summary.sh" "$out/stress.tap" "$out/fuzz.tap" ||
	summary_status=$?

if [ "$seconds" -ge 1200 ] && [ -f "$out/stress.txt" ] &&
   [ -f "$out/fuzz.txt" ]; then
	python3 "$LAB_TOP/scripts/reliability-report.py" \
		"$LAB_TOP/results/reliability.md" "$out/stress.txt" \
		"$out/fuzz.txt" "$variant" "$(cat "$LAB_BUILD/kernel/$variant/lab-release" 2>/dev/null || echo unknown)" \
		"$reports" "$summary_status"
	log "results/reliability.md regenerated"
fi
[ "$status" = 0 ] && [ "$summary_status" = 0 ]
