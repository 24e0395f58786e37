#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-tree.sh prepare: extract the installed linux-source-$LAB_KERNEL
#     (6.1 unless make KERNEL= says otherwise) into
#     build/src/linux-<debian version>, make it a git repository with a
#     baseline commit (tag lab-baseline) and apply the series file of
#     kernel/patches (6.1) or kernel/patches-6.12.
# kernel-tree.sh export: write the tree's commits since the baseline back to
#     that directory and rewrite the series file.
# kernel-tree.sh baseline: a git worktree of the tree at lab-baseline (the
#     unpatched Debian source) next to it, for kernels without the series.
#
# Both are idempotent; state lives in stamp files next to the tree, never
# inside it, so the tree's own git status stays meaningful.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: kernel-tree.sh prepare|export|path|baseline" >&2
	exit 2
}

src=$(kernel_src_dir)
extracted_stamp=$src.extracted
applied_stamp=$src.applied
patches=$LAB_PATCHES
# How messages name the series directory and the package.
patches_name=${patches#"$LAB_TOP"/}
package=linux-source-$LAB_KERNEL

git_tree()
{
	git -C "$src" -c core.autocrlf=false -c gc.auto=0 "$@"
}

extract()
{
	local tmp=$src.tmp version

	[ -f "$extracted_stamp" ] && [ -d "$src/.git" ] && return 0
	version=$(linux_source_version)
	[ -r "$linux_source_tarball" ] ||
		die "$linux_source_tarball missing although $package $version is installed"
	if [ -d "$src" ]; then
		# A tree without its stamp is the remains of an interrupted
		# extraction; but never throw away commits somebody made.
		if [ -d "$src/.git" ] &&
		   [ "$(git_tree rev-list --count lab-baseline..HEAD 2>/dev/null || echo 0)" != 0 ]; then
			die "$src has commits but no $extracted_stamp; move it away by hand"
		fi
		log "removing incompletely prepared $src"
		rm -rf "$src"
	fi
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log "extracting $package $version into $src"
	tar -xf "$linux_source_tarball" -C "$tmp" --strip-components=1
	log "creating the baseline commit (takes a minute)"
	git -C "$tmp" init -q
	git -C "$tmp" config user.name "volatile-lab"
	git -C "$tmp" config user.email "volatile-lab@localhost"
	git -C "$tmp" config gc.auto 0
	# -f: the tarball ships files its own .gitignore rules match.
	git -C "$tmp" add -A -f
	git -C "$tmp" commit -q -m "Debian $package $version"
	# Debian's top-level .gitignore ignores the whole tree ("/*"), which
	# would hide every new file a patch adds.  Drop that rule in a
	# commit of its own, below the baseline tag, so no patch carries it.
	sed -i -e '\|^/\*$|d' -e '\|^!/debian/$|d' "$tmp/.gitignore"
	git -C "$tmp" commit -q -a -m "lab: track new files in the whole tree"
	git -C "$tmp" tag lab-baseline
	git -C "$tmp" checkout -q -b lab
	mv "$tmp" "$src"
	rm -f "$applied_stamp"
	echo "$version" > "$extracted_stamp"
}

# The tree must hold nothing that applying the series would lose: no
# uncommitted change, and HEAD must be what the last apply (or export) left.
check_tree_safe()
{
	local expect

	if [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
		die "$src has uncommitted changes; commit them and run 'make export-patches', or discard them with 'git -C $src reset --hard'"
	fi
	expect=lab-baseline
	[ -f "$applied_stamp" ] && expect=$(cut -d' ' -f2 "$applied_stamp")
	if [ "$(git_tree rev-parse HEAD)" != "$(git_tree rev-parse "$expect")" ]; then
		die "$src has commits that are not in $patches_name (HEAD is not $expect); run 'make export-patches KERNEL=$LAB_KERNEL' to save them first"
	fi
}

# Re-applying a series rewrites every file it touches, which would make
# kbuild rebuild everything that includes, say, mm.h for a one-line change
# elsewhere.  Remember the files the applied series changed, and afterwards
# give back their old times to those whose contents came out the same.
mtimes=$LAB_BUILD/src/.mtimes
save_mtimes()
{
	local f

	old_head=$(git_tree rev-parse HEAD)
	: > "$mtimes"
	git_tree diff --name-only lab-baseline HEAD | while read -r f; do
		[ -f "$src/$f" ] &&
			printf '%s\t%s\n' "$(stat -c %y "$src/$f")" "$f"
	done >> "$mtimes"
}

restore_mtimes()
{
	local when f

	while IFS="$(printf '\t')" read -r when f; do
		if [ -f "$src/$f" ] &&
		   [ "$(git_tree rev-parse -q --verify "$old_head:$f")" = \
		     "$(git_tree rev-parse -q --verify "HEAD:$f")" ]; then
			touch -d "$when" "$src/$f"
		fi
	done < "$mtimes"
	rm -f "$mtimes"
}

apply_series()
{
	local id p head

	id=$(series_id)
	if [ -f "$applied_stamp" ] &&
	   [ "$(cut -d' ' -f1 "$applied_stamp")" = "$id" ]; then
		check_tree_safe
		return 0
	fi
	check_tree_safe
	save_mtimes
	rm -f "$applied_stamp"
	git_tree checkout -q -B lab lab-baseline
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		log "applying $p"
		if ! git_tree am -q --whitespace=nowarn "$patches/$p"; then
			git_tree am --abort || true
			git_tree checkout -q -B lab lab-baseline
			die "$patches_name/$p does not apply cleanly to $package $(linux_source_version); rebase it in $src and run 'make export-patches KERNEL=$LAB_KERNEL'"
		fi
	done < "$patches/series"
	head=$(git_tree rev-parse HEAD)
	restore_mtimes
	echo "$id $head" > "$applied_stamp"
	log "series $id applied"
}

export_series()
{
	local n files f

	[ -f "$extracted_stamp" ] || die "no prepared kernel tree at $src"
	if [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
		die "$src has uncommitted changes; commit them first"
	fi
	n=$(git_tree rev-list --count lab-baseline..HEAD)
	# Remove the old series' files only now that the new ones are known.
	files=$(git_tree format-patch --zero-commit --no-signature \
		-o "$src.export" lab-baseline..HEAD)
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		rm -f "$patches/$f"
	done < "$patches/series"
	{
		echo "# Applied in order on top of Debian's $package."
		for f in $files; do
			mv "$f" "$patches/"
			basename "$f"
		done
	} > "$patches/series"
	rmdir "$src.export" 2>/dev/null || true
	echo "$(series_id) $(git_tree rev-parse HEAD)" > "$applied_stamp"
	log "exported $n patch(es) to $patches_name, series $(series_id)"
}

# The worktree is checked out detached at lab-baseline and never moved:
# nothing is ever committed there.
baseline_tree()
{
	local dir

	dir=$(baseline_src_dir)
	extract
	if [ -d "$dir" ] && [ -f "$dir.ready" ]; then
		[ "$(git -C "$dir" rev-parse HEAD)" = \
		  "$(git_tree rev-parse lab-baseline)" ] ||
			die "$dir is not at lab-baseline; remove it and retry"
		return 0
	fi
	log "checking out the unpatched tree into $dir"
	rm -rf "$dir" "$dir.ready"
	git_tree worktree prune
	git_tree worktree add -q --detach "$dir" lab-baseline
	touch "$dir.ready"
}

[ $# -eq 1 ] || usage
case "$1" in
prepare) extract; apply_series ;;
baseline) baseline_tree ;;
export) export_series ;;
path) echo "$src" ;;
*) usage ;;
esac
