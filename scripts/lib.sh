# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the lab's shell scripts.  Source it; do not run it.
# shellcheck shell=bash

LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_BUILD=${LAB_BUILD:-$LAB_TOP/build}
LAB_SUPPORTED_ARCHES="arm64 x86_64"
# The kernel the series is built on (make KERNEL=...): Debian's
# linux-source-$LAB_KERNEL, with kernel/patches (6.1) or
# kernel/patches-6.12.  6.1 is the default (kernel/README.md says why).
LAB_KERNEL=${LAB_KERNEL:-6.1}
LAB_SUPPORTED_KERNELS="6.1 6.12"
case "$LAB_KERNEL" in
6.1) LAB_PATCHES=${LAB_PATCHES:-$LAB_TOP/kernel/patches} ;;
6.12) LAB_PATCHES=${LAB_PATCHES:-$LAB_TOP/kernel/patches-6.12} ;;
*)
	printf '%s: error: unknown KERNEL %s (supported: %s)\n' "${0##*/}" \
		"'$LAB_KERNEL'" "$LAB_SUPPORTED_KERNELS" >&2
	exit 1
	;;
esac

die()
{
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

log()
{
	printf '==> %s\n' "$*" >&2
}

# check_arch ARCH: fail with the list of supported values on anything else.
check_arch()
{
	case "${1:-}" in
	arm64|x86_64) ;;
	*) die "unknown ARCH '${1:-}' (supported: $LAB_SUPPORTED_ARCHES)" ;;
	esac
}

# check_debug VALUE: DEBUG must be 0 or 1.
check_debug()
{
	case "${1:-}" in
	0|1) ;;
	*) die "DEBUG must be 0 or 1, not '${1:-}'" ;;
	esac
}

# variant_name ARCH DEBUG: the build directory name of one kernel variant,
# <arch>[-debug] on 6.1 and <arch>-6.12[-debug] on 6.12 (so the run
# directories of make check and make bench, which carry it, stay apart).
# LAB_KERNEL_BASELINE=1 names the kernel built without the series
# (make vm-selftests): <arch>-baseline.  LAB_KERNEL_BOARD=B names the
# kernel for board B (kernel/config/board-B.config, make lava-kernel):
# <arch>-B.
variant_name()
{
	local base=$1

	[ "$LAB_KERNEL" = 6.1 ] || base=$1-$LAB_KERNEL
	if [ -n "${LAB_KERNEL_BOARD:-}" ]; then
		printf '%s-%s\n' "$base" "$LAB_KERNEL_BOARD"
	elif [ "${LAB_KERNEL_BASELINE:-0}" = 1 ]; then
		printf '%s-baseline%s\n' "$base" "${2#0}"
	elif [ "$2" = 1 ]; then
		printf '%s-debug\n' "$base"
	else
		printf '%s\n' "$base"
	fi
}

# The Debian version of the installed linux-source-$LAB_KERNEL package.
# LAB_LINUX_VERSION and LAB_LINUX_TARBALL override both for the host tests.
linux_source_version()
{
	if [ -n "${LAB_LINUX_VERSION:-}" ]; then
		echo "$LAB_LINUX_VERSION"
		return
	fi
	dpkg-query -W -f='${Version}' "linux-source-$LAB_KERNEL" 2>/dev/null ||
		die "linux-source-$LAB_KERNEL is not installed (run: make deps)"
}

# shellcheck disable=SC2034 # used by the scripts that source this file
linux_source_tarball=${LAB_LINUX_TARBALL:-/usr/src/linux-source-$LAB_KERNEL.tar.xz}

# Where the kernel tree of the installed linux-source-$LAB_KERNEL lives.  One tree
# per package version, so an upgraded package never silently mixes with a
# tree that carries unexported work.
kernel_src_dir()
{
	printf '%s/src/linux-%s\n' "$LAB_BUILD" "$(linux_source_version)"
}

# The unpatched tree: a git worktree of kernel_src_dir at lab-baseline.
baseline_src_dir()
{
	printf '%s-baseline\n' "$(kernel_src_dir)"
}

# The id of the patch series: a hash of the series file and every patch it
# names, in order.  It goes into the kernel release string.
series_id()
{
	local series=$LAB_PATCHES/series p

	[ -f "$series" ] || die "missing $series"
	{
		cat "$series"
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			[ -f "$LAB_PATCHES/$p" ] ||
				die "series names missing patch $LAB_PATCHES/$p"
			cat "$LAB_PATCHES/$p"
		done < "$series"
	} | sha256sum | cut -c1-10
}

cross_prefix()
{
	case "$1" in
	arm64)
		if [ "$(uname -m)" = aarch64 ]; then
			printf '\n'
		else
			printf 'aarch64-linux-gnu-\n'
		fi
		;;
	x86_64)
		if [ "$(uname -m)" = x86_64 ]; then
			printf '\n'
		else
			printf 'x86_64-linux-gnu-\n'
		fi
		;;
	esac
}

# Files of a build variant.
kernel_out_dir()
{
	printf '%s/kernel/%s\n' "$LAB_BUILD" "$(variant_name "$1" "$2")"
}

kernel_image()
{
	case "$1" in
	arm64) printf '%s/arch/arm64/boot/Image\n' "$(kernel_out_dir "$1" "$2")" ;;
	x86_64) printf '%s/arch/x86/boot/bzImage\n' "$(kernel_out_dir "$1" "$2")" ;;
	esac
}

# image_release IMAGE: the release of a kernel image given by path (boot.sh
# --kernel): the lab-release file beside it or at the top of its build
# directory (IMAGE is arch/*/boot/<image> there), else the "Linux version"
# string in the image, which an uncompressed arm64 Image holds; empty when
# none is found.
image_release()
{
	local dir f

	dir=$(dirname "$1")
	for f in "$dir/lab-release" "$dir/../../../lab-release"; do
		if [ -f "$f" ]; then
			cat "$f"
			return 0
		fi
	done
	LC_ALL=C grep -a -o -m 1 'Linux version [^ ]*' "$1" 2>/dev/null |
		head -n 1 | cut -d' ' -f3
}

# The uapi headers of ARCH's series: build/headers/<arch> for 6.1 (what
# the guest programs are built with), build/headers/<arch>-6.12 for 6.12.
headers_dir()
{
	if [ "$LAB_KERNEL" = 6.1 ]; then
		printf '%s/headers/%s\n' "$LAB_BUILD" "$1"
	else
		printf '%s/headers/%s-%s\n' "$LAB_BUILD" "$1" "$LAB_KERNEL"
	fi
}

rootfs_image()
{
	printf '%s/rootfs/%s/initramfs.cpio.gz\n' "$LAB_BUILD" "$1"
}

jobs()
{
	printf '%s\n' $(($(nproc) + 1))
}

# debian_arch ARCH: Debian's name of a lab architecture.
debian_arch()
{
	case "$1" in
	arm64) printf 'arm64\n' ;;
	x86_64) printf 'amd64\n' ;;
	*) die "no Debian architecture for '$1'" ;;
	esac
}

# deb_unpack PACKAGE DEBARCH CHECK: the directory where Debian's PACKAGE
# for DEBARCH is unpacked (build/dl/PACKAGE-DEBARCH), downloading and
# unpacking it if the file CHECK (relative to it) is not there yet.  The
# package is never installed on the host; a foreign architecture is
# enabled first (as root), as apt needs it to download.
deb_unpack()
{
	local pkg=$1 debarch=$2 check=$3 dl=$LAB_BUILD/dl dir deb

	dir=$dl/$pkg-$debarch
	if [ -e "$dir/$check" ]; then
		printf '%s\n' "$dir"
		return 0
	fi
	mkdir -p "$dl"
	if [ "$debarch" != "$(dpkg --print-architecture)" ] &&
	   ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
		[ "$(id -u)" = 0 ] ||
			die "Debian architecture $debarch is not enabled; as root run:
    dpkg --add-architecture $debarch && apt-get update"
		log "enabling Debian architecture $debarch for $pkg:$debarch"
		dpkg --add-architecture "$debarch"
		apt-get update -q >&2
	fi
	rm -f "$dl/${pkg}"_*_"$debarch".deb
	if ! (cd "$dl" && apt-get download -q -o APT::Sandbox::User=root "$pkg:$debarch" >&2); then
		[ "$(id -u)" = 0 ] || die "cannot download $pkg:$debarch"
		apt-get update -q >&2
		(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root "$pkg:$debarch" >&2) ||
			die "cannot download $pkg:$debarch"
	fi
	deb=$(ls "$dl/${pkg}"_*_"$debarch".deb)
	rm -rf "$dir.tmp"
	dpkg-deb -x "$deb" "$dir.tmp"
	[ -e "$dir.tmp/$check" ] || die "$deb holds no $check"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	printf '%s\n' "$dir"
}
