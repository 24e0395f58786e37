#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-matrix quick|full OUTDIR: run the whole comparison inside one
# guest boot (installed as /opt/lab/bin/bench-matrix).  Every point runs
# once per backend and repetition, the backends of each in a random order
# (seeded: the plan is the same at every run, and written to
# OUTDIR/plan.txt); rows go to OUTDIR/<family>.csv; progress goes to
# stdout.
set -eu

usage()
{
	echo "usage: bench-matrix quick|full OUTDIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
mode=$1 out=$2
case "$mode" in
quick|full) ;;
*) usage ;;
esac
bin=/opt/lab/bin
mkdir -p "$out"

# The CSV header of every file (read by csv_open() in bench/lib/bench.c).
LAB_META_kernel=$(uname -r)
LAB_META_series=${LAB_META_kernel##*-vl}
case "${LAB_ARCH:-}" in
arm64) LAB_META_machine="virt, cortex-a72" ;;
x86_64) LAB_META_machine="q35, cpu $([ "${LAB_ACCEL:-}" = kvm ] && echo host || echo max)" ;;
*) LAB_META_machine=unknown ;;
esac
LAB_META_accel=${LAB_ACCEL:-unknown}
LAB_META_ram_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
LAB_META_cpus=$(grep -c ^processor /proc/cpuinfo)
LAB_META_date=${LAB_META_date:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
export LAB_META_kernel LAB_META_series LAB_META_machine LAB_META_accel \
	LAB_META_ram_mib LAB_META_cpus LAB_META_date

backends="ashmem volatile anon memfd madvfree pinned dontneed"
if [ "$mode" = quick ]; then
	reps=1
	sizes="4K 1M"
	fragments="1 64"
	order_fragments="64"
	purge_sizes=8
	cache_args="--objects 32 --object-kib 64 --ops 300"
	cache_limits="2 0"
	shares="4:64"
else
	reps=10
	sizes="4K 16K 64K 256K 1M 4M 16M 64M"
	fragments="1 4 16 64 256 1024 4096"
	# Descending and random fragment orders, at fewer points.
	order_fragments="16 256 4096"
	purge_sizes="16 64 256"
	# 3000 operations (5000 until series 26c27ed9b1): ten repetitions
	# must fit in the hour make bench has.
	cache_args="--objects 256 --object-kib 256 --ops 3000"
	cache_limits="24 48 96"
	shares="64:64 16:1024"
fi
# The backends whose regions an fd shares between processes.
share_backends="ashmem volatile memfd"

# The binary that has @backend: ashmem needs the /dev/ashmem library,
# every other backend runs from the ashmem-compat one.
prog()
{
	case "$2" in
	ashmem) echo "$bin/$1_ashmem" ;;
	*) echo "$bin/$1_volatile" ;;
	esac
}

# The backends @2 in a random order, seeded by @1 (a count of the calls,
# kept by the caller: this runs in a subshell), so that every point gets
# its own order and the plan is the same at every run.
seq=0
ordered()
{
	echo "$2" | awk -v seed=$((20261204 + $1)) '
	BEGIN { srand(seed) }
	{
		n = split($0, b, " ")
		for (i = n; i > 1; i--) {
			j = int(rand() * i) + 1
			t = b[i]; b[i] = b[j]; b[j] = t
		}
		for (i = 1; i <= n; i++)
			printf "%s%s", b[i], (i < n ? " " : "\n")
	}'
}

# The plan: one line per run, "family program backend args...".
plan=$out/plan.txt
: > "$plan"
rep=1
while [ $rep -le $reps ]; do
	for size in $sizes; do
		case "$size" in
		*M) iters=$([ "$mode" = quick ] && echo 5 || echo 20) ;;
		*) iters=$([ "$mode" = quick ] && echo 20 || echo 200) ;;
		esac
		seq=$((seq + 1))
		for b in $(ordered $seq "$backends"); do
			echo "pin pinbench $b --size $size --iters $iters --rep $rep" >> "$plan"
		done
	done
	iters=$([ "$mode" = quick ] && echo 3 || echo 10)
	for order in asc desc random; do
		ks=$order_fragments
		[ "$order" = asc ] && ks=$fragments
		for k in $ks; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends"); do
				echo "pin pinbench $b --fragments $k --order $order --iters $iters --rep $rep" >> "$plan"
			done
		done
	done
	for m in reclaim rootreclaim purgeall limit global; do
		for mib in $purge_sizes; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends"); do
				echo "purge purgebench $b --mode $m --mib $mib --rep $rep" >> "$plan"
			done
		done
	done
	for layout in regions arena regions_competitor; do
		extra="--layout ${layout%_competitor}"
		[ "$layout" = regions_competitor ] && extra="$extra --competitor"
		for limit in $cache_limits; do
			seq=$((seq + 1))
			for b in $(ordered $seq "$backends lru"); do
				echo "cache cachebench $b $extra --limit-mib $limit $cache_args --rep $rep" >> "$plan"
			done
		done
	done
	for share in $shares; do
		seq=$((seq + 1))
		for b in $(ordered $seq "$share_backends"); do
			echo "share sharebench $b --regions ${share%%:*} --region-kib ${share#*:} --rep $rep" >> "$plan"
		done
	done
	rep=$((rep + 1))
done

total=$(wc -l < "$plan")
start=$(date +%s)
i=0
failed=0
echo "bench-matrix: $mode, $total runs, $reps repetition(s); CSV in $out"
while read -r family program backend args; do
	i=$((i + 1))
	now=$(date +%s)
	elapsed=$((now - start))
	if [ $i -gt 1 ]; then
		left="~$((elapsed * (total - i + 1) / (i - 1)))s left"
	else
		left="estimating"
	fi
	echo "[$i/$total] $family: $backend $args (${elapsed}s, $left)"
	# shellcheck disable=SC2086 # args are words
	if ! "$(prog "$program" "$backend")" --backend "$backend" $args \
		--csv "$out/$family.csv" 2> "$out/last-error.txt"; then
		echo "  FAILED: $(cat "$out/last-error.txt")"
		echo "$family $backend $args" >> "$out/failed-runs.txt"
		failed=$((failed + 1))
	fi
done < "$plan"
rm -f "$out/last-error.txt"
echo "bench-matrix: done in $(($(date +%s) - start))s, $failed failed run(s)"
echo "$(($(date +%s) - start))" > "$out/guest-seconds.txt"
[ $failed -eq 0 ]
