# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# suites.sh: the in-guest suites in each variant and mode, for check.sh
# and modes.sh, which source it.  The caller sets arch, results (the
# directory that collects every TAP file) and start (the epoch second the
# run began), sources lib.sh first and calls suites_prepare once.
# shellcheck disable=SC2154 # arch, results and start: set by the caller

# Every make step prints its own progress; failures stop the caller.
# KERNEL on the command line: a make KERNEL=... on the command line would
# otherwise reach every nested make through MAKEFLAGS.
lab_make()
{
	make -s -C "$LAB_TOP" ARCH="$arch" KERNEL="$LAB_KERNEL" "$@"
}

phase()
{
	log "[$(($(date +%s) - start))s] $*"
}

# The volatile suites that each memory mode runs again: the kernel's
# (anonymous, shmem, tracepoints, foreign PTE markers) and ashmem-compat's
# on volatile ranges.
mode_suites='volatile_test volatile_shmem_test volatile_trace_test volatile_marker_test cutils_api_volatile_test sharing_volatile_test client64_volatile_test'

pattern_seed=20261203
pattern_bytes=$((8 * 1024 * 1024))
log_lines=5000

# suites_prepare: the job files in $results and the host's patterngen.
suites_prepare()
{
	# The host half of the results-crossing check.
	make -s -C "$LAB_TOP/guest-rootfs" O="$LAB_BUILD/guest/host" \
		"$LAB_BUILD/guest/host/bin/patterngen"
	suites_job=$results/suites.job
	cat > "$suites_job" <<JOB
run-tests
rc=\$?
# On the debug kernel: a short stress run and fuzzing, side by side.
if [ "\${LAB_DEBUG:-0}" = 1 ]; then
	vfuzz --seconds 60 > /lab/out/fuzz.tap 2>&1 &
	fuzz=\$!
	vstress --seconds 90 > /lab/out/stress.tap 2>&1
	echo "# exit status: \$?" >> /lab/out/stress.tap
	wait \$fuzz
	echo "# exit status: \$?" >> /lab/out/fuzz.tap
fi
patterngen $pattern_seed $pattern_bytes > /lab/out/pattern.bin || rc=1
i=1
while [ \$i -le $log_lines ]; do echo "crossing line \$i"; i=\$((i + 1)); done
exit \$rc
JOB
	mode_job=$results/mode.job
	echo "run-tests $mode_suites" > "$mode_job"
	# The ashmem driver's Rust mode (android16's shrinker), same kernel.
	ashmem_job=$results/ashmem-rust.job
	echo 'run-tests ashmem_mode_test ashmem_test' > "$ashmem_job"
}

# crossing_tap RUN_DIR VARIANT: TAP for "results crossed back intact".
crossing_tap()
{
	local share=$1/share variant=$2 want

	echo "TAP version 13"
	echo "1..3"
	if [ "$(cat "$1/verdict" 2>/dev/null)" = ok ]; then
		echo "ok 1 $variant: guest powered off with a clean kernel log"
	else
		echo "not ok 1 $variant: guest run failed: $(cat "$1/verdict" 2>/dev/null || echo 'no verdict')"
	fi
	want=$("$LAB_BUILD/guest/host/bin/patterngen" $pattern_seed $pattern_bytes | sha256sum)
	if [ -f "$share/out/pattern.bin" ] &&
	   [ "$(sha256sum < "$share/out/pattern.bin")" = "$want" ]; then
		echo "ok 2 $variant: an 8 MiB file written in the guest matches the host's copy"
	else
		echo "not ok 2 $variant: the guest's pattern file differs from the host's"
	fi
	if awk -v n=$log_lines '
		/^crossing line / { if ($3 != ++seen) bad = 1 }
		END { exit (bad || seen != n) }' "$share/job.log"; then
		echo "ok 3 $variant: $log_lines job.log lines arrived complete and in order"
	else
		echo "not ok 3 $variant: job.log lines lost or out of order"
	fi
}

# run_job NAME JOB BOOT_ARGS...: boot a guest that runs JOB and collect its
# TAP into $results/NAME; a guest that failed (kernel report, timeout, no
# status) is one more failure, in boot.tap.
# Four vCPUs (on whatever the host has): the OOM-ordering tests need
# several CPUs in reclaim at once, as on a phone (issue 26).
run_job()
{
	local name=$1 job=$2 run_dir=$LAB_BUILD/runs/check-$1 verdict cpus=4

	shift 2
	# The debug kernel keeps 2: its suites fit the 900 s only so, and
	# the OOM-ordering cases skip themselves there (vr_oom_test()).
	case " $* " in *" --debug 1 "*) cpus=2 ;; esac
	"$LAB_TOP/scripts/boot.sh" --arch "$arch" --mem 1024 --cpus "$cpus" \
		--timeout 900 --quiet "$@" --run-dir "$run_dir" \
		--job "$job" || true
	mkdir -p "$results/$name"
	cp "$run_dir/share/out/"*.tap "$results/$name/" 2>/dev/null || true
	verdict=$(cat "$run_dir/verdict" 2>/dev/null || echo 'no verdict')
	[ "$verdict" = ok ] ||
		printf '1..1\nnot ok 1 %s: guest run failed: %s\n' \
			"$name" "$verdict" > "$results/$name/boot.tap"
}

# run_suites DEBUG: build and boot one variant, collect its TAP.
run_suites()
{
	local debug=$1 variant

	variant=$(variant_name "$arch" "$debug")
	phase "building the $variant kernel"
	lab_make kernel DEBUG="$debug"
	phase "running the in-guest suites on $variant"
	run_job "$variant" "$suites_job" --debug "$debug"
	crossing_tap "$LAB_BUILD/runs/check-$variant" "$variant" \
		> "$results/$variant/crossing.tap"
}

# run_mode DEBUG NAME BOOT_ARGS...: the volatile suites again in one of
# Android's memory configurations (MGLRU, zram swap), same kernel: the
# kernel's (anonymous and shmem) and ashmem-compat's on volatile ranges.
run_mode()
{
	local debug=$1 name=$2 variant

	shift 2
	variant=$(variant_name "$arch" "$debug")
	phase "volatile suites on $variant with $name"
	run_job "$variant-$name" "$mode_job" --debug "$debug" "$@"
}

# run_rust DEBUG: the ashmem suites in the driver's Rust mode.
run_rust()
{
	local variant

	variant=$(variant_name "$arch" "$1")
	phase "ashmem suites on $variant in the Rust mode"
	run_job "$variant-ashmem-rust" "$ashmem_job" --debug "$1" \
		--cmdline ashmem.rust_mode=1
}

# run_every_mode DEBUG: after run_suites DEBUG, every other mode of that
# kernel: the Rust-mode ashmem, MGLRU, zram, and both together.
run_every_mode()
{
	run_rust "$1"
	run_mode "$1" mglru --mglru
	run_mode "$1" zram --zram 256
	run_mode "$1" mglru-zram --mglru --zram 256
}

