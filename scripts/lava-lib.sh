# SPDX-License-Identifier: GPL-2.0
# Helpers of the LAVA bridge (scripts/lava-*.sh).  Source it after lib.sh.
# shellcheck shell=bash

# lava_templates: print the directory of lava-server's device-type
# templates (qemu-aarch64.jinja2 and the rest), unpacked from Debian's
# lava-server .deb into $LAB_BUILD/dl/lava-server.  The package is never
# installed: its postinst wants a PostgreSQL database and services, and
# the templates are all the lab needs of it.
lava_templates()
{
	local dl=$LAB_BUILD/dl dir=$LAB_BUILD/dl/lava-server
	local sub=usr/share/lava-server/device-types deb

	if [ -f "$dir/$sub/qemu-aarch64.jinja2" ]; then
		printf '%s\n' "$dir/$sub"
		return 0
	fi
	mkdir -p "$dl"
	rm -f "$dl"/lava-server_*_all.deb
	if ! (cd "$dl" && apt-get download -q -o APT::Sandbox::User=root lava-server >&2); then
		[ "$(id -u)" = 0 ] ||
			die "cannot download lava-server's .deb (for its device-type templates); as root run: apt-get update"
		apt-get update -q >&2
		(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root lava-server >&2) ||
			die "cannot download lava-server's .deb (for its device-type templates)"
	fi
	deb=$(ls "$dl"/lava-server_*_all.deb)
	rm -rf "$dir.tmp"
	dpkg-deb -x "$deb" "$dir.tmp" || die "cannot unpack $deb"
	[ -f "$dir.tmp/$sub/qemu-aarch64.jinja2" ] ||
		die "$deb holds no $sub/qemu-aarch64.jinja2"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	printf '%s\n' "$dir/$sub"
}

# The Python that has Debian's python3-yaml and LAVA's modules (a python3
# earlier on PATH may be another one, e.g. a pyenv shim).
# shellcheck disable=SC2034 # used by the scripts that source this file
LAVA_PYTHON=/usr/bin/python3
