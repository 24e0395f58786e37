#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh GROUP...: make sure the Debian packages a step needs are installed.
# As root, missing packages are installed with apt-get; otherwise the exact
# command to run is printed and the script fails.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat >&2 <<'USAGE'
usage: deps.sh GROUP...      install what the groups need
       deps.sh --list GROUP...  print their packages, install nothing
groups: kernel cross-arm64 cross-x86_64 rootfs qemu-arm64 qemu-x86_64 plot
        lint fresh vm-selftests aosp lava all
USAGE
	exit 2
}

group_packages()
{
	case "$1" in
	# The source of the kernel being built (LAB_KERNEL, make KERNEL=).
	kernel)
		# rsync: headers_install copies the uapi tree with it.
		echo "linux-source-$LAB_KERNEL" xz-utils git gcc make flex bison bc \
			libssl-dev libelf-dev ccache rsync
		;;
	cross-arm64)
		[ "$(uname -m)" = aarch64 ] && { echo gcc libc6-dev; return; }
		echo gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		;;
	cross-x86_64)
		[ "$(uname -m)" = x86_64 ] && { echo gcc libc6-dev; return; }
		echo gcc-x86-64-linux-gnu libc6-dev-amd64-cross
		;;
	rootfs) echo cpio gzip busybox-static ;;
	qemu-arm64) echo qemu-system-arm ;;
	qemu-x86_64) echo qemu-system-x86 ;;
	plot) echo gnuplot-nox python3 python3-scipy python3-numpy ;;
	lint) echo shellcheck ;;
	# scripts/aosp-ashmem-test.sh: AOSP's gtest suite, built for arm64.
	aosp)
		[ "$(uname -m)" = aarch64 ] && { echo g++ googletest; return; }
		echo g++-aarch64-linux-gnu googletest
		;;
	# scripts/lava-*: LAVA's schemas and job checker (lava-common), its
	# dispatcher (lava-run) and client (lavacli); lava-server's device-type
	# templates are unpacked from its .deb, never installed (it wants a
	# database), by scripts/lava-lib.sh; cpio: the dispatcher adds its test
	# overlay to the initramfs with it.  A board's U-Boot tftp job needs
	# what a LAVA worker has: a tftp directory (tftpd-hpa), mkimage
	# (u-boot-tools) and the console command of the lab's device
	# dictionary (telnet, as to ser2net).
	lava) echo lava-common lava-dispatcher lavacli python3-yaml python3-jinja2 cpio \
		tftpd-hpa u-boot-tools telnet ;;
	# make fresh-check: a pristine Debian root, entered with chroot.
	fresh) echo mmdebstrap git ;;
	all)
		for g in kernel cross-arm64 cross-x86_64 rootfs qemu-arm64 \
			 qemu-x86_64 plot; do
			group_packages "$g"
		done
		# Both kernels' sources (make KERNEL=6.1 and KERNEL=6.12).
		echo linux-source-6.1 linux-source-6.12
		;;
	*) echo "deps.sh: unknown group '$1'" >&2; usage ;;
	esac
}

is_installed()
{
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = \
		"install ok installed" ]
}

list_only=0
if [ "${1:-}" = --list ]; then
	list_only=1
	shift
fi
[ $# -gt 0 ] || usage
wanted=""
for g in "$@"; do
	wanted="$wanted $(group_packages "$g")"
done
if [ "$list_only" = 1 ]; then
	# shellcheck disable=SC2086 # one package per line
	printf '%s\n' $wanted
	exit 0
fi

missing=""
for p in $wanted; do
	case " $missing " in *" $p "*) continue ;; esac
	is_installed "$p" || missing="$missing $p"
done
missing=${missing# }
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
	die "missing Debian packages; as root run:
    apt-get update && apt-get install -y --no-install-recommends $missing"
fi

log "installing: $missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # $missing is a list of package names
if ! apt-get install -y -q --no-install-recommends $missing; then
	log "apt-get install failed; refreshing the package lists and retrying"
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing ||
		die "apt-get install failed for: $missing"
fi
