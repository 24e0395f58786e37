#!/bin/bash
# QEMU options are comma-separated key=value lists, not array elements.
# shellcheck disable=SC2054
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh: boot a lab kernel under QEMU and run one job in it.
#
#   boot.sh --arch ARCH [--debug 0|1] [--mem MIB] [--cpus N] [--timeout SEC]
#           [--extra DIR] [--run-dir DIR] [--quiet] [--mglru] [--zram MIB]
#           [--cpu MODEL] [--cmdline PARAM] [--kernel IMAGE] [--files]
#           (--job FILE | --shell)
#
# --kernel IMAGE boots that kernel image instead of the lab's build of
# ARCH/DEBUG (e.g. a kernel of an older series, to show that a test fails
# on it); --debug still says which variant it is (panic_on_warn=1 for 1).
# Its release (LAB_EXPECT_RELEASE) comes from a lab-release file beside
# the image or at the top of its build directory, else, on arm64, from the
# image itself.
# --cmdline PARAM adds one kernel parameter (key=value, no spaces; may be
# given more than once), e.g. ashmem.rust_mode=1.
# --cpu MODEL is QEMU's -cpu under TCG (default: cortex-a72 on arm64, max
# on x86_64; KVM always uses host); the job sees it as LAB_CPU.
# --mglru switches the multi-gen LRU on and --zram MIB swaps on a zram
# device of that size, both set up by the guest's /init before the job:
# Android's memory configuration, in the same kernel.
# --files shares RUN_DIR/files at /files with 9p's page cache on
# (cache=loose): files whose clean pages reclaim can drop and read back,
# as an app's code and resources are on a phone (the initramfs's are
# not; appbench --file-dir, the regime sweep).
# The job (a shell script) runs as /lab/job.sh in the guest; /lab is a
# virtio-9p share of RUN_DIR/share, so the job's output (job.log), exit
# status (status) and any files it writes (out/) reach the host as files.
# The kernel's console goes to RUN_DIR/console.log, which is checked for
# kernel reports afterwards.
#
# Exit status: the job's, when the guest powered off cleanly with a clean
# kernel log; 1 on a kernel report, a timeout or a missing job status;
# 2 on bad usage.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

arch="" debug=0 mem=1024 cpus=2 timeout=300 extra="" run_dir="" quiet=0
job="" shell=0 mglru=0 zram=0 cpu="" cmdline="" kernel="" files=0
need_arg()
{
	[ $# -ge 2 ] || { echo "boot.sh: $1 needs a value" >&2; usage; }
}
number()
{
	case "$2" in
	''|*[!0-9]*|0) echo "boot.sh: $1 must be a positive integer, not '$2'" >&2
		exit 2 ;;
	esac
}
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) need_arg "$@"; arch=$2; shift 2 ;;
	--debug) need_arg "$@"; debug=$2; shift 2 ;;
	--mem) need_arg "$@"; number "$1" "$2"; mem=$2; shift 2 ;;
	--cpus) need_arg "$@"; number "$1" "$2"; cpus=$2; shift 2 ;;
	--timeout) need_arg "$@"; number "$1" "$2"; timeout=$2; shift 2 ;;
	--extra) need_arg "$@"; extra=$2; shift 2 ;;
	--run-dir) need_arg "$@"; run_dir=$2; shift 2 ;;
	--job) need_arg "$@"; job=$2; shift 2 ;;
	--kernel) need_arg "$@"; kernel=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--quiet) quiet=1; shift ;;
	--mglru) mglru=1; shift ;;
	--files) files=1; shift ;;
	--zram) need_arg "$@"; number "$1" "$2"; zram=$2; shift 2 ;;
	--cmdline) need_arg "$@"
		case "$2" in
		''|*[!A-Za-z0-9_.=,-]*) echo "boot.sh: --cmdline takes one key=value kernel parameter, not '$2'" >&2
			exit 2 ;;
		esac
		cmdline="$cmdline $2"; shift 2 ;;
	--cpu) need_arg "$@"
		case "$2" in
		''|*[!a-z0-9-]*) echo "boot.sh: --cpu must be a QEMU CPU model name, not '$2'" >&2
			exit 2 ;;
		esac
		cpu=$2; shift 2 ;;
	*) echo "boot.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
check_arch "$arch"
check_debug "$debug"
if [ "$shell" = 1 ] && [ -n "$job" ]; then
	echo "boot.sh: --job and --shell exclude each other" >&2
	exit 2
fi
[ "$shell" = 1 ] || [ -n "$job" ] || { echo "boot.sh: need --job or --shell" >&2; usage; }
[ -z "$job" ] || [ -r "$job" ] || die "cannot read job file '$job'"
if [ -n "$extra" ]; then
	[ -d "$extra" ] || die "EXTRA '$extra' is not a directory"
	extra=$(cd "$extra" && pwd)
fi

rootfs=$(rootfs_image "$arch")
if [ -n "$kernel" ]; then
	[ -f "$kernel" ] || die "no kernel image at '$kernel' (--kernel / KERNEL_IMAGE)"
	image=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
	release=$(image_release "$image")
	[ -n "$release" ] ||
		log "no release known for $image: the in-guest release check will fail"
else
	image=$(kernel_image "$arch" "$debug")
	release_file=$(kernel_out_dir "$arch" "$debug")/lab-release
	if [ ! -f "$image" ] || [ ! -f "$release_file" ]; then
		die "no kernel at $image (run: make kernel ARCH=$arch DEBUG=$debug)"
	fi
	release=$(cat "$release_file")
fi
[ -f "$rootfs" ] || die "no initramfs at $rootfs (run: make rootfs ARCH=$arch)"

[ -n "$run_dir" ] || run_dir=$LAB_BUILD/runs/$(variant_name "$arch" "$debug")
mkdir -p "$run_dir"
run_dir=$(cd "$run_dir" && pwd)
share=$run_dir/share
rm -rf "$share" "$run_dir/files" "$run_dir/console.log" "$run_dir/verdict"
mkdir -p "$share/out"
[ "$files" = 0 ] || mkdir "$run_dir/files"

append="panic=-1 lab.mode=job"
[ "$shell" = 1 ] && append="panic=-1 lab.mode=shell"
[ "$debug" = 1 ] && append="$append panic_on_warn=1"
[ -n "$extra" ] && append="$append lab.extra=1"
[ "$mglru" = 1 ] && append="$append lab.mglru=1"
[ "$files" = 1 ] && append="$append lab.files=1"
[ "$zram" != 0 ] && append="$append lab.zram=$zram"
append="$append$cmdline"

accel=tcg

# kvm_works: a vCPU of -cpu host runs under KVM.  /dev/kvm opening is not
# enough: in a nested guest QEMU aborted setting MSR 0x10a
# (IA32_ARCH_CAPABILITIES) when the vCPU started, and every x86_64 boot
# failed.  A 64 KiB BIOS whose reset vector writes 1 to isa-debug-exit
# makes QEMU exit with status 3 when the vCPU ran; anything else (an
# abort, a hang) means TCG.
kvm_works()
{
	local rom=$run_dir/kvm-probe.rom status=0

	{
		head -c 65520 /dev/zero | tr '\0' '\364'
		printf '\260\001\346\364\364'
		head -c 11 /dev/zero | tr '\0' '\364'
	} > "$rom"
	# In a subshell, so that the shell's own "Aborted" goes to the log.
	( timeout 10 qemu-system-x86_64 -accel kvm -cpu host -M q35 -m 16 \
		-nodefaults -display none -no-reboot -bios "$rom" \
		-device isa-debug-exit,iobase=0xf4,iosize=1; exit $? ) \
		> "$run_dir/kvm-probe.log" 2>&1 || status=$?
	rm -f "$rom"
	[ "$status" = 3 ] && return 0
	log "/dev/kvm opens but a KVM vCPU did not run (QEMU status $status, $run_dir/kvm-probe.log): TCG"
	return 1
}
case "$arch" in
arm64)
	cpu=${cpu:-cortex-a72}
	qemu=(qemu-system-aarch64 -M virt -cpu "$cpu")
	append="console=ttyAMA0 $append"
	;;
x86_64)
	qemu=(qemu-system-x86_64 -M q35)
	append="console=ttyS0 $append"
	# KVM only for a native guest on a host where /dev/kvm opens and a
	# vCPU runs (kvm_works).
	if [ "$(uname -m)" = x86_64 ] && [ "${LAB_ACCEL:-}" != tcg ] &&
	   [ -c /dev/kvm ] && { : 3<>/dev/kvm; } 2>/dev/null &&
	   kvm_works; then
		accel=kvm
	fi
	if [ "$accel" = kvm ]; then
		cpu=host
	else
		cpu=${cpu:-max}
	fi
	qemu+=(-cpu "$cpu")
	;;
esac
command -v "${qemu[0]}" >/dev/null ||
	die "${qemu[0]} not found (run: make deps)"
if [ "$accel" = kvm ]; then
	qemu+=(-accel kvm)
else
	qemu+=(-accel tcg,thread=multi)
fi
echo "$accel" > "$run_dir/accel"
# -mem-prealloc: the host backs all of the guest's RAM before it boots.
# Left lazy, the first run of a boot that touched most of the RAM paid a
# host page fault per guest page: a purgebench --mode global run took 4 s
# instead of 0.2-0.4 s, whichever backend came first.
qemu+=(-nodefaults -no-reboot -smp "$cpus" -m "$mem" -mem-prealloc
	-kernel "$image" -initrd "$rootfs" -append "$append"
	-fsdev "local,id=lab,path=$share,security_model=none"
	-device virtio-9p-pci,fsdev=lab,mount_tag=lab)
if [ -n "$extra" ]; then
	qemu+=(-fsdev "local,id=extra,path=$extra,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=extra,mount_tag=extra)
fi
if [ "$files" = 1 ]; then
	qemu+=(-fsdev "local,id=files,path=$run_dir/files,security_model=none"
		-device virtio-9p-pci,fsdev=files,mount_tag=files)
fi

if [ "$shell" = 1 ]; then
	log "interactive shell on ${release:-$image} ($accel); Ctrl-a x quits QEMU"
	exec "${qemu[@]}" -display none -serial mon:stdio
fi

{
	echo "# written by boot.sh for ${release:-$image}"
	echo "export LAB_EXPECT_RELEASE='$release'"
	echo "export LAB_ARCH=$arch LAB_DEBUG=$debug LAB_ACCEL=$accel LAB_CPU=$cpu"
	echo "export LAB_MGLRU=$mglru LAB_ZRAM_MIB=$zram"
	cat "$job"
} > "$share/job.sh"
: > "$share/job.log"

[ "$quiet" = 1 ] || log "booting ${release:-$image} on ${qemu[0]} ($accel, $cpus CPUs, $mem MiB, timeout ${timeout}s)"
timeout --kill-after=10 "$timeout" "${qemu[@]}" -display none -monitor none \
	-serial "file:$run_dir/console.log" < /dev/null &
qemu_pid=$!
trap 'kill "$qemu_pid" 2>/dev/null || true' INT TERM
if [ "$quiet" = 0 ]; then
	tail -n +1 -f --pid="$qemu_pid" "$share/job.log" &
	tail_pid=$!
fi
qemu_rc=0
wait "$qemu_pid" || qemu_rc=$?
[ "$quiet" = 1 ] || wait "$tail_pid" || true
trap - INT TERM

failed=""
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	failed="the guest did not power off within ${timeout}s (hung?); see $run_dir/console.log"
elif [ "$qemu_rc" != 0 ]; then
	failed="QEMU exited with status $qemu_rc; see $run_dir/console.log"
fi
if [ -f "$run_dir/console.log" ] &&
   ! "$LAB_TOP/scripts/check-log.sh" "$run_dir/console.log"; then
	failed="${failed:+$failed; }the guest kernel log shows the reports above"
fi
status=""
[ -f "$share/status" ] && status=$(cat "$share/status")
case "$status" in
''|*[!0-9]*)
	failed="${failed:+$failed; }the guest reported no job status (crash or power-off before the job ended)"
	;;
esac
if [ -n "$failed" ]; then
	echo "boot.sh: FAILED: $failed" >&2
	echo "$failed" > "$run_dir/verdict"
	exit 1
fi
echo ok > "$run_dir/verdict"
[ "$quiet" = 1 ] || log "job exited with status $status"
exit "$status"
