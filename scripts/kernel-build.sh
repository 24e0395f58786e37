#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-build.sh ARCH DEBUG [config|image|headers]: configure and build one
# kernel variant out of tree in build/kernel/<arch>[-debug].  The config is
# allnoconfig plus kernel/config/{base,<arch>[,debug]}.config, regenerated
# only when a fragment or the series changes and checked option by option.
# The release string carries the series id: 6.1.N-vl<id>.
#
# With LAB_KERNEL_BASELINE=1 the same config is built from the unpatched
# tree (kernel-tree.sh baseline) into build/kernel/<arch>-baseline, release
# 6.1.N-vl-baseline; options only the series defines are left out of the
# fragments (they cannot exist there) and every other one is checked.
#
# With LAB_KERNEL_BOARD=B (arm64, not debug) the fragment
# kernel/config/board-B.config is added and the image step also builds the
# DTB its "# dtb: PATH" line names, into build/kernel/<arch>-B: a kernel
# for a real board (make lava-kernel), release the same as the QEMU one.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: kernel-build.sh ARCH DEBUG [config|image|headers]" >&2
	exit 2
fi
arch=$1
debug=$2
what=${3:-image}
check_arch "$arch"
check_debug "$debug"

out=$(kernel_out_dir "$arch" "$debug")
fragments="$LAB_TOP/kernel/config/base.config $LAB_TOP/kernel/config/$arch.config"
# What one kernel version adds: options another lacks on some arch.
version_config=$LAB_TOP/kernel/config/kernel-$LAB_KERNEL.config
[ -f "$version_config" ] && fragments="$fragments $version_config"
[ "$debug" = 1 ] && fragments="$fragments $LAB_TOP/kernel/config/debug.config"
board_dtb=
if [ -n "${LAB_KERNEL_BOARD:-}" ]; then
	board_config=$LAB_TOP/kernel/config/board-$LAB_KERNEL_BOARD.config
	[ -f "$board_config" ] ||
		die "unknown board '$LAB_KERNEL_BOARD' (no ${board_config#"$LAB_TOP"/})"
	if [ "$arch" != arm64 ] || [ "$debug" != 0 ]; then
		die "board kernels are arm64 and not debug (board $LAB_KERNEL_BOARD)"
	fi
	board_dtb=$(sed -n 's/^# dtb: *//p' "$board_config")
	[ -n "$board_dtb" ] || die "${board_config#"$LAB_TOP"/} names no '# dtb:'"
	fragments="$fragments $board_config"
fi

if [ "${LAB_KERNEL_BASELINE:-0}" = 1 ]; then
	src=$(baseline_src_dir)
	[ -f "$src.ready" ] ||
		die "no unpatched tree (run: scripts/kernel-tree.sh baseline)"
	id=-baseline
	# Every "config FOO" the series adds, as one grep -E alternative.
	series_syms=$(sed -n 's/^+config \([A-Za-z0-9_]*\)$/\1/p' \
		"$LAB_PATCHES"/*.patch | paste -sd'|')
	mkdir -p "$out"
	# shellcheck disable=SC2086 # fragments is a list of paths
	grep -vE "^(# )?CONFIG_(${series_syms:-NONE})[= ]" $fragments \
		--no-filename > "$out/baseline-fragments.config" || true
	fragments=$out/baseline-fragments.config
else
	src=$(kernel_src_dir)
	[ -f "$src.applied" ] || die "kernel tree not prepared (run: make kernel-tree)"
	id=$(series_id)
	[ "$(cut -d' ' -f1 "$src.applied")" = "$id" ] ||
		die "kernel tree does not carry series $id (run: make kernel-tree)"
fi

cross=$(cross_prefix "$arch")
# ccache rewrites absolute paths below LAB_BUILD as relative ones, so two
# checkouts (a CI clone and a work tree) share cache entries.
kmake()
{
	CCACHE_BASEDIR=$LAB_BUILD \
	make -C "$src" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" \
		LOCALVERSION="-vl$id" KBUILD_BUILD_USER=lab \
		KBUILD_BUILD_HOST=volatile-lab "$@"
}

configure()
{
	local stamp=$out/.lab-config-stamp want

	# shellcheck disable=SC2086 # fragments is a list of paths
	want=$( (cat $fragments; echo "$id $(linux_source_version)") | sha256sum)
	if [ -f "$out/.config" ] && [ -f "$stamp" ] &&
	   [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	mkdir -p "$out"
	rm -f "$stamp"
	# shellcheck disable=SC2086
	cat $fragments > "$out/lab-fragments.config"
	log "configuring $(variant_name "$arch" "$debug"): allnoconfig + ${fragments//$LAB_TOP\//}"
	kmake -s allnoconfig KCONFIG_ALLCONFIG="$out/lab-fragments.config"
	kmake -s olddefconfig
	# shellcheck disable=SC2086
	"$LAB_TOP/scripts/check-config.sh" "$out/.config" $fragments
	echo "$want" > "$stamp"
}

build_image()
{
	local target

	case "$arch" in
	arm64) target=Image ;;
	x86_64) target=bzImage ;;
	esac
	log "building $(variant_name "$arch" "$debug") kernel (series $id)"
	kmake -j"$(jobs)" "$target" ${board_dtb:+"$board_dtb"}
	kmake -s kernelrelease > "$out/lab-release"
	log "built $(kernel_image "$arch" "$debug") ($(cat "$out/lab-release"))"
}

install_headers()
{
	local dest stamp

	dest=$(headers_dir "$arch")
	stamp=$dest/.lab-series
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$id" ]; then
		return 0
	fi
	rm -rf "$dest"
	kmake -s headers_install INSTALL_HDR_PATH="$dest"
	echo "$id" > "$stamp"
}

configure
case "$what" in
config) ;;
image) build_image ;;
headers) install_headers; echo "$(headers_dir "$arch")/include" ;;
*) die "unknown step '$what'" ;;
esac
