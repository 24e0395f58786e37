#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-tests.sh: the LAVA bridge checked with LAVA's own code, in TAP.
# Installs LAVA's packages first (scripts/deps.sh lava; as root) and
# unpacks lava-server's device-type templates (scripts/lava-lib.sh), then:
# every job scripts/lava-jobs.py writes passes lava_common.schemas.validate
# in strict mode; the qemu jobs pass lava-run --validate against a device
# rendered from lava-server's qemu-aarch64.jinja2; malformed jobs fail with
# LAVA's own messages; the importer turns real lava-run results and a
# server-format results file into the lab's TAP and CSV; the in-guest TAP
# converter (lava/suite.sh) reports what it should; bad arguments exit 2.
# Boots nothing.  Exit status: 0 when every test passed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
S=$top/scripts
F=$S/tests/lava
# shellcheck source=scripts/lib.sh
. "$S/lib.sh"
# shellcheck source=scripts/lava-lib.sh
. "$S/lava-lib.sh"
py=$LAVA_PYTHON
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/tests/tap-lib.sh
. "$S/tests/tap-lib.sh"
finish()
{
	echo "1..$n"
	[ "$failed" = 0 ]
	exit
}

echo "TAP version 13"

# --- packages and templates --------------------------------------------
expect 0 '^lava-dispatcher$' "deps.sh: the lava group lists lava-dispatcher" -- \
	"$S/deps.sh" --list lava
expect 0 '' "LAVA's packages are installed (scripts/deps.sh lava)" -- \
	"$S/deps.sh" lava
if [ "$failed" != 0 ]; then
	echo "# without LAVA's packages nothing else can be checked"
	finish
fi
templates=$(lava_templates 2> "$tmp/templates.err") || true
ok "$([ -f "$templates/qemu-aarch64.jinja2" ]; echo $?)" \
	"lava-server's qemu-aarch64.jinja2 unpacked from its .deb, not installed"
[ -n "$templates" ] || { sed 's/^/#   /' "$tmp/templates.err"; finish; }

# --- the jobs -----------------------------------------------------------
# URLs to files that exist (lava-run --validate checks them), standing for
# the artifacts a lab serves.
art=$tmp/artifacts
mkdir -p "$art"
printf 'Image\n' > "$art/Image"
printf 'dtb\n' > "$art/meson-g12b-a311d-khadas-vim3.dtb"
initramfs=$(rootfs_image arm64)
args=()
if [ -f "$initramfs" ]; then
	cp "$initramfs" "$art/initramfs.cpio.gz"
else
	echo "# no $initramfs: jobs for volatile_test only"
	printf 'initramfs\n' > "$art/initramfs.cpio.gz"
	args=(--suites volatile_test --release 6.1.0-vl0000000000)
fi
jobs=$tmp/jobs
expect 0 ' jobs in ' "lava-jobs.py writes the jobs" -- \
	"$py" "$S/lava-jobs.py" --out "$jobs" "${args[@]}" \
	--kernel-url "file://$art/Image" \
	--ramdisk-url "file://$art/initramfs.cpio.gz" \
	--dtb-url "file://$art/meson-g12b-a311d-khadas-vim3.dtb"
nq=$(find "$jobs" -name '*-qemu.yaml' | wc -l)
nb=$(find "$jobs" -name '*-meson-g12b-a311d-khadas-vim3.yaml' | wc -l)
ok "$([ "$nq" -ge 7 ] && [ "$nq" = "$nb" ]; echo $?)" \
	"every suite and benchmark family has a qemu and a Khadas VIM3 job ($nq and $nb)"
for fam in pin purge cache share concurrency app; do
	[ -f "$jobs/bench-$fam-qemu.yaml" ] || echo "# no job for family $fam"
done
ok "$(find "$jobs" -name 'bench-*-qemu.yaml' | wc -l | grep -qx 6; echo $?)" \
	"one qemu job per benchmark family (6)"

# Strict schema validation, one test per job, in one Python process.
"$py" - "$jobs"/*.yaml > "$tmp/schema" 2>&1 <<'PY' || true
import sys, yaml
from lava_common.schemas import validate
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[1]
    try:
        validate(yaml.safe_load(open(path)), strict=True)
        print(f"PASS {name}")
    except Exception as e:
        print(f"FAIL {name}: {type(e).__name__}: {e}")
PY
grep -v '^PASS \|^FAIL ' "$tmp/schema" | sed 's/^/#   /' || true
while read -r verdict rest; do
	case "$verdict" in
	PASS) ok 0 "lava_common.schemas.validate (strict): $rest" ;;
	FAIL) echo "# $rest"
		ok 1 "lava_common.schemas.validate (strict): ${rest%%:*}" ;;
	esac
done < <(grep '^PASS \|^FAIL ' "$tmp/schema")
ok "$([ "$(grep -c '^PASS ' "$tmp/schema")" = "$((nq + nb))" ]; echo $?)" \
	"every job was validated ($((nq + nb)))"

# --- the qemu device and lava-run --validate ------------------------------
suite_job=$(find "$jobs" -name 'suite-*-qemu.yaml' | sort | head -n 1)
expect 0 '' "lava-device.py renders qemu-aarch64.jinja2 with the job's context (LAVA's device schema)" -- \
	"$py" "$S/lava-device.py" "$templates" qemu-aarch64 "$suite_job"
cp "$tmp/out" "$tmp/device.yaml"
ok "$(grep -q -- '-smp 4' "$tmp/device.yaml" && grep -q 'cortex-a72' "$tmp/device.yaml"; echo $?)" \
	"the rendered device boots -cpu cortex-a72 -smp 4, as make check"
for job in "$suite_job" "$jobs/bench-share-qemu.yaml"; do
	expect 0 '"msg": "Job finished correctly"' \
		"lava-run --validate: $(basename "$job")" -- \
		lava-run --validate --job-id 1 --output-dir "$tmp/lava-run" \
		--device "$tmp/device.yaml" "$job"
done

# --- malformed jobs fail with LAVA's own messages -------------------------
sed '/^visibility:/d' "$suite_job" > "$tmp/no-visibility.yaml"
expect 1 "required key not provided @ data\['visibility'\]" \
	"schema: a job without visibility fails, named by LAVA" -- \
	"$py" -c 'import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True)' "$tmp/no-visibility.yaml"
sed 's/^\(    \)to: tmpfs$/\1to: tmpfss/' "$suite_job" > "$tmp/bad-deploy.yaml"
expect 1 'None of the deployment strategies accepted your deployment parameters' \
	"lava-run --validate: an unknown deploy method fails with LAVA's message" -- \
	lava-run --validate --job-id 2 --output-dir "$tmp/lava-run" \
	--device "$tmp/device.yaml" "$tmp/bad-deploy.yaml"

# --- the in-guest TAP converter (lava/suite.sh), on the host ---------------
bin=$tmp/bin
mkdir -p "$bin" "$tmp/out-dir"
# shellcheck disable=SC2016 # written for the fake commands, not expanded here
{
	printf '#!/bin/sh\necho "$*" >> %s/cases\n' "$tmp" > "$bin/lava-test-case"
	printf '#!/bin/sh\n[ $# = 0 ] || exit 0\necho "[    5.000000] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0/0x4"\n' > "$bin/dmesg"
	printf '#!/bin/sh\ncp %s/fake.tap "$LAB_TAP_DIR/$1.tap"\n' "$tmp" > "$bin/run-tests"
}
chmod +x "$bin"/*
printf '%s\n' 'TAP version 13' '1..4' 'ok 1 a: first' '# diag' \
	'not ok 2 b, second' 'ok 3 c # SKIP no THP' \
	'not ok 4 d (e) # TODO kernel lacks x' '# exit status: 1' > "$tmp/fake.tap"
PATH=$bin:$PATH LAB_TAP_DIR=$tmp/out-dir \
	LAB_KERNEL_REPORTS="$("$py" -c 'import importlib.util as u
s = u.spec_from_file_location("j", "'"$S"'/lava-jobs.py"); m = u.module_from_spec(s)
s.loader.exec_module(m); print(m.kernel_reports())')" \
	sh "$top/lava/suite.sh" fake_test > "$tmp/suite.out" 2>&1 || true
cat > "$tmp/cases.want" <<'EOF'
1.a_first --result pass
2.b_second --result fail
3.c --result skip
4.d_e --result unknown
plan --result pass --measurement 4 --units count
exit-status --result fail --measurement 1 --units count
kernel-log --result fail
EOF
if diff "$tmp/cases.want" "$tmp/cases" > "$tmp/diff" 2>&1; then
	ok 0 "lava/suite.sh: TAP results, plan, exit status and a kernel WARNING become LAVA test cases"
else
	sed 's/^/#   /' "$tmp/diff"
	ok 1 "lava/suite.sh: TAP results, plan, exit status and a kernel WARNING become LAVA test cases"
fi

# --- the importer -------------------------------------------------------
imp=$tmp/imported
expect 0 'bench-share, volatile_trace_test' \
	"lava-import.py reads real lava-run logs (scripts/tests/lava/*.log)" -- \
	"$py" "$S/lava-import.py" --out "$imp" \
	"$F/suite-volatile_trace_test-qemu.log" "$F/bench-share-qemu.log"
expect 0 '^13 passed, 0 failed$' "imported TAP: volatile_trace_test's 9 tests and LAVA's 4 checks pass" -- \
	"$S/tap-summary.sh" "$imp/volatile_trace_test.tap" "$imp/lava.tap"
expect 0 '' "imported CSV: bench-report.py reads share.csv (header, 7 fields, param=value)" -- \
	"$py" -c 'import importlib.util as u, sys
s = u.spec_from_file_location("r", sys.argv[1]); m = u.module_from_spec(s)
s.loader.exec_module(m)
meta, rows = m.read_csv(sys.argv[2])
missing = [k for k in m.META_KEYS if k not in meta]
assert not missing, f"metadata lacks {missing}"
assert len(rows) == 39, f"{len(rows)} rows, expected 39"
print(meta["machine"], meta["accel"], meta["date"])' "$S/bench-report.py" "$imp/share.csv"
ok "$(grep -qx '# machine: virt, cortex-a72' "$imp/share.csv" &&
	grep -qx '# accel: tcg' "$imp/share.csv" &&
	! grep -q '^# date: 1970' "$imp/share.csv"; echo $?)" \
	"imported CSV: machine and accel say QEMU virt under TCG; the date is LAVA's, not the guest's 1970"
rest=$tmp/rest
expect 0 'bench-pin, volatile_test' \
	"lava-import.py reads the server's results format (scripts/tests/lava/rest-results.yaml)" -- \
	"$py" "$S/lava-import.py" --out "$rest" "$F/rest-results.yaml"
cat > "$tmp/rest.want" <<'EOF'
TAP version 13
1..4
ok 1 MADV VOLATILE on anonymous memory
ok 2 THP purged whole # SKIP (LAVA result: skip)
not ok 3 OOM ordering # TODO known failure (LAVA result: unknown)
not ok 4 purged pages read as zeros
# exit status: 1
EOF
ok "$(cmp -s "$tmp/rest.want" "$rest/volatile_test.tap"; echo $?)" \
	"imported TAP: pass, skip, known failure and failure as the lab writes them"
expect 1 'kernel report' "imported lava.tap: a failed job, a kernel report and a failed family fail" -- \
	"$S/tap-summary.sh" "$rest/lava.tap"
ok "$(grep -qx '# machine: Khadas VIM3' "$rest/pin.csv" &&
	grep -qx 'upsi-10ms,pin_size,size_kib=1024,1.23457e+06,pin_ns_p99,ns,2' "$rest/pin.csv" &&
	grep -q '^pin: ' "$rest/failed-runs.txt"; echo $?)" \
	"imported CSV of a board: its model, decoded rows, failed-runs.txt"
expect 1 'is neither meta' "lava-import.py: an undecodable benchmark case fails, named" -- \
	"$py" "$S/lava-import.py" --out "$tmp/bad" <(printf '%s\n' \
	"- {suite: 0_bench-pin, name: 'not a row', result: pass, measurement: '1', unit: ns}")

# --- arguments ------------------------------------------------------------
expect 2 '--out is required' "lava-jobs.py: missing arguments are a usage error" -- \
	"$py" "$S/lava-jobs.py"
expect 2 "unknown device type 'bogus'" "lava-jobs.py: an unknown device type is refused, named" -- \
	"$py" "$S/lava-jobs.py" --out "$tmp/x" --kernel-url u --ramdisk-url u \
	--device-types bogus
expect 2 '--dtb-url is required' "lava-jobs.py: a board job needs a DTB URL" -- \
	"$py" "$S/lava-jobs.py" --out "$tmp/x" --kernel-url u --ramdisk-url u
expect 2 'required' "lava-import.py: missing arguments are a usage error" -- \
	"$py" "$S/lava-import.py"
expect 1 "cannot read $tmp/none" "lava-import.py: a missing results file is named" -- \
	"$py" "$S/lava-import.py" --out "$tmp/x" "$tmp/none"
expect 2 'usage' "lava-device.py: missing arguments are a usage error" -- \
	"$py" "$S/lava-device.py"
expect 2 "only ARCH=arm64" "lava-run.sh: ARCH=x86_64 is refused" -- \
	"$S/lava-run.sh" x86_64
expect 2 "unknown family 'disk'" "lava-run.sh: an unknown family is refused" -- \
	"$S/lava-run.sh" arm64 volatile_test disk

# --- lint -------------------------------------------------------------------
if command -v shellcheck > /dev/null; then
	expect 0 '' "shellcheck: the LAVA scripts" -- shellcheck -x -P "$top" \
		"$S"/lava-run.sh "$S"/lava-lib.sh "$S"/tests/lava-tests.sh
	expect 0 '' "shellcheck -s sh: the in-guest scripts" -- \
		shellcheck -s sh "$top"/lava/suite.sh "$top"/lava/bench.sh
else
	ok 0 "shellcheck: the LAVA scripts # SKIP shellcheck not installed"
fi
finish
