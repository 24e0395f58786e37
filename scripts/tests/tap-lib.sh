# SPDX-License-Identifier: GPL-2.0
#
# tap-lib.sh: TAP helpers of the host-side test scripts, sourced after the
# caller has made its scratch directory $tmp.  The caller prints the plan
# ("1..$n") last and exits with the failures counted in $failed.
# shellcheck shell=bash

n=0 failed=0
# ok STATUS NAME: one result, passed when STATUS is 0.
ok()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}
# expect STATUS PATTERN NAME -- CMD...: CMD exits STATUS and its output
# (stdout and stderr) matches the extended regex PATTERN ('' for any).
# On a failure the last lines of the output are shown: errors end it.
expect()
{
	local want=$1 pattern=$2 name=$3 rc=0
	shift 4
	# shellcheck disable=SC2154 # $tmp is the caller's
	"$@" > "$tmp/out" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "# $name: exit $rc, wanted $want; output:"
		sed 's/^/#   /' "$tmp/out" | tail -20
		ok 1 "$name"
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "# $name: output lacks /$pattern/:"
		sed 's/^/#   /' "$tmp/out" | tail -20
		ok 1 "$name"
	else
		ok 0 "$name"
	fi
}
