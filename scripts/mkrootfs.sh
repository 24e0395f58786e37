#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkrootfs.sh ARCH: build the guest initramfs build/rootfs/<arch>/
# initramfs.cpio.gz from busybox-static for ARCH, guest-rootfs/init,
# guest-rootfs/run-tests and the programs in build/guest/<arch>/bin.
# The archive is written with the kernel's gen_init_cpio, so device nodes
# and owners need no root and the result does not depend on the host.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: mkrootfs.sh ARCH" >&2; exit 2; }
arch=$1
check_arch "$arch"

out=$LAB_BUILD/rootfs/$arch
dl=$LAB_BUILD/dl
progs=$LAB_BUILD/guest/$arch/bin
src=$(kernel_src_dir)
mkdir -p "$out" "$dl" "$LAB_BUILD/host"

# busybox-static for a foreign architecture comes from Debian's archive as
# a .deb that is only unpacked here, never installed on the host.
foreign_busybox()
{
	local dir

	dir=$(deb_unpack busybox-static "$1" bin/busybox) || exit 1
	echo "$dir/bin/busybox"
}

busybox_for()
{
	case "$1" in
	x86_64) [ "$(uname -m)" = x86_64 ] && { echo /bin/busybox; return; }
		foreign_busybox amd64 ;;
	arm64) [ "$(uname -m)" = aarch64 ] && { echo /bin/busybox; return; }
		foreign_busybox arm64 ;;
	esac
}

busybox=$(busybox_for "$arch")
[ -x "$busybox" ] || die "no busybox-static for $arch at $busybox"
[ -d "$progs" ] || die "no guest programs in $progs (run: make guest-progs ARCH=$arch)"

gen=$LAB_BUILD/host/gen_init_cpio
if [ ! -x "$gen" ] || [ "$src/usr/gen_init_cpio.c" -nt "$gen" ]; then
	gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c"
fi

list=$out/initramfs.list
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp \
		 /lab /extra /root /etc /opt /opt/lab /opt/lab/bin; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $LAB_TOP/guest-rootfs/init 0755 0 0"
	echo "file /opt/lab/bin/run-tests $LAB_TOP/guest-rootfs/run-tests 0755 0 0"
	echo "file /opt/lab/bin/bench-matrix $LAB_TOP/bench/matrix.sh 0755 0 0"
	for p in "$progs"/*; do
		[ -f "$p" ] || continue
		echo "file /opt/lab/bin/${p##*/} $p 0755 0 0"
	done
	# The dynamically linked client: its libraries in /opt/lab/lib (its
	# rpath), the C library's loader in /lib, where the binary asks.
	dynamic=$progs/../dynamic
	echo "dir /lib 0755 0 0"
	echo "slink /lib64 lib 0777 0 0"
	echo "dir /opt/lab/lib 0755 0 0"
	for p in "$dynamic"/opt/* "$dynamic"/lib/libc.so.6; do
		[ -f "$p" ] || continue
		echo "file /opt/lab/lib/${p##*/} $p 0755 0 0"
	done
	for p in "$dynamic"/lib/ld-*; do
		[ -f "$p" ] || continue
		echo "file /lib/${p##*/} $p 0755 0 0"
	done
} > "$list.tmp"
mv "$list.tmp" "$list"
"$gen" "$list" | gzip -n -6 > "$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
log "initramfs $(rootfs_image "$arch") ($(du -k "$out/initramfs.cpio.gz" | cut -f1) KiB)"
