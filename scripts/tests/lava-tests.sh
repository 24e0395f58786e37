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
# converter (lava/suite.sh) reports what it should; the KCIDB exporter
# writes documents of schema v4.3's structure with the TAP's results and
# refuses bad input; bad arguments exit 2.
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
printf 'Image for the VIM3\n' > "$art/Image-vim3"
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
	--board-kernel-url "file://$art/Image-vim3" \
	--dtb-url "file://$art/meson-g12b-a311d-khadas-vim3.dtb"
nq=$(find "$jobs" -name '*-qemu.yaml' | wc -l)
nb=$(find "$jobs" -name '*-meson-g12b-a311d-khadas-vim3.yaml' | wc -l)
ok "$([ "$nq" -ge 7 ] && [ "$nq" = "$nb" ]; echo $?)" \
	"every suite and benchmark family has a qemu and a Khadas VIM3 job ($nq and $nb)"
ok "$(grep -q "url: file://$art/Image-vim3$" "$jobs/bench-pin-meson-g12b-a311d-khadas-vim3.yaml" &&
	grep -q "url: file://$art/Image$" "$jobs/bench-pin-qemu.yaml"; echo $?)" \
	"the board jobs boot the board kernel, the qemu jobs the QEMU one"
for fam in pin purge cache share concurrency app arena; do
	[ -f "$jobs/bench-$fam-qemu.yaml" ] || echo "# no job for family $fam"
done
ok "$(find "$jobs" -name 'bench-*-qemu.yaml' | wc -l | grep -qx 7; echo $?)" \
	"one qemu job per benchmark family (7)"

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

# validate_on DEVICE_YAML JOB_ID JOB...: lava-run --validate of each JOB
# against the rendered device.
validate_on()
{
	local device=$1 id=$2 job

	shift 2
	for job in "$@"; do
		expect 0 '"msg": "Job finished correctly"' \
			"lava-run --validate: $(basename "$job")" -- \
			lava-run --validate --job-id "$id" \
			--output-dir "$tmp/lava-run" --device "$device" "$job"
	done
}

# --- the qemu device and lava-run --validate ------------------------------
suite_job=$(find "$jobs" -name 'suite-*-qemu.yaml' | sort | head -n 1)
expect 0 '' "lava-device.py renders qemu-aarch64.jinja2 with the job's context (LAVA's device schema)" -- \
	"$py" "$S/lava-device.py" "$templates" qemu-aarch64 "$suite_job"
cp "$tmp/out" "$tmp/device.yaml"
ok "$(grep -q -- '-smp 4' "$tmp/device.yaml" && grep -q 'cortex-a72' "$tmp/device.yaml"; echo $?)" \
	"the rendered device boots -cpu cortex-a72 -smp 4, as make check"
validate_on "$tmp/device.yaml" 1 "$suite_job" "$jobs/bench-share-qemu.yaml"

# --- the board: a lab's device dictionary and lava-run --validate ---------
# The dispatcher checks a U-Boot tftp job against a worker's tools: the
# tftp directory (tftpd-hpa's /etc/default/tftpd-hpa), mkimage (u-boot-tools)
# and the dictionary's console command (telnet), all from deps.sh lava.
board=$top/lava/devices/meson-g12b-a311d-khadas-vim3.jinja2
board_suite=${suite_job%-qemu.yaml}-meson-g12b-a311d-khadas-vim3.yaml
expect 0 '' "lava-device.py renders the lab's VIM3 device dictionary (LAVA's device schema)" -- \
	"$py" "$S/lava-device.py" "$templates" "$board" "$board_suite"
cp "$tmp/out" "$tmp/board.yaml"
ok "$(grep -q '^  booti:' "$tmp/board.yaml" && grep -q 'console=ttyAML0' "$tmp/board.yaml"; echo $?)" \
	"the rendered VIM3 boots the Image with booti, console on ttyAML0"
validate_on "$tmp/board.yaml" 3 "$board_suite" \
	"$jobs/bench-share-meson-g12b-a311d-khadas-vim3.yaml"
sed '/^      url: .*meson-g12b-a311d-khadas-vim3.dtb$/s/url: .*/url: file:\/\/\/nonexistent.dtb/' \
	"$board_suite" > "$tmp/board-no-dtb.yaml"
expect 1 "Image file '/nonexistent.dtb' does not exist or is not readable" \
	"lava-run --validate: a board job whose DTB does not exist fails with LAVA's message" -- \
	lava-run --validate --job-id 4 --output-dir "$tmp/lava-run" \
	--device "$tmp/board.yaml" "$tmp/board-no-dtb.yaml"
expect 1 'cannot read device dictionary' \
	"lava-device.py: a missing device dictionary is an error" -- \
	"$py" "$S/lava-device.py" "$templates" "$tmp/none.jinja2"

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

# --- the KCIDB exporter (scripts/kcidb-export.py) ----------------------------
kx=$S/kcidb-export.py
kd=$tmp/kcidb
mkdir -p "$kd"
# tap_counts TAP...: "PASS FAIL SKIP WAIVED" of the files' results, read as
# tap-summary.sh reads them (awk here, not the exporter's parser).
tap_counts()
{
	cat "$@" | awk '
		/^ok / && / # [Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok / { p++; next }
		/^not ok / { f++; if (/ # TODO/) w++ }
		END { printf "%d %d %d %d\n", p, f, s, w }'
}
# kcidb_counts JSON: the same of a document's per-result tests.
kcidb_counts()
{
	"$py" -c 'import json, sys
t = [x for x in json.load(open(sys.argv[1]))["tests"] if x["path"].count(".") == 2]
print(*[sum(x["status"] == s for x in t) for s in ("PASS", "FAIL", "SKIP")],
      sum(x.get("waived", False) for x in t))' "$1"
}
# same_counts NAME JSON TAP...: the document has the TAP's results.
same_counts()
{
	local name=$1 json=$2 want got
	shift 2
	want=$(tap_counts "$@")
	got=$(kcidb_counts "$json" 2>&1) || true
	[ "$want" = "$got" ] || echo "# PASS FAIL SKIP WAIVED: TAP $want, KCIDB $got"
	ok "$([ "$want" = "$got" ]; echo $?)" "$name"
}
# facts NAME JSON PYTHON: PYTHON's asserts hold of the document d, whose
# tests are also in t by path (the last one of a path) and in tests.
facts()
{
	local name=$1 json=$2 code=$3
	shift 3
	expect 0 '' "$name" -- "$py" -c 'import json, sys
d = json.load(open(sys.argv[1])); tests = d["tests"]
t = {x["path"]: x for x in tests}
'"$code" "$json" "$@"
}
# A patch series of two patches, and its id as the lab computes it.
mkdir -p "$tmp/patches"
printf 'From: a\nSubject: [PATCH 1/2] a\n' > "$tmp/patches/0001-a.patch"
printf 'From: b\nSubject: [PATCH 2/2] b\n' > "$tmp/patches/0002-b.patch"
printf '0001-a.patch\n0002-b.patch\n' > "$tmp/patches/series"
sid=$(LAB_PATCHES=$tmp/patches series_id)
phash=$(cd "$tmp/patches" && sha256sum 0001-a.patch 0002-b.patch |
	cut -c-64 | sha256sum | cut -c-64)

# A boot.sh run of the debug kernel (make check's): its job.sh, 5 of its
# TAP files and the first 67 lines of its console.log.
run=$tmp/kcidb-run
cp -r "$F/kcidb-run" "$run"
touch -d 2026-12-06T06:49:34Z "$run/share/job.sh"
expect 0 '1 build\(s\), 140 tests \(133 pass, 0 fail, 2 skip; 0 suite' \
	"kcidb-export.py: exports a boot.sh run (scripts/tests/lava/kcidb-run)" -- \
	"$py" "$kx" --origin volatile_lab --patches "$tmp/patches" \
	--out "$kd/run.json" "$run"
expect 0 'a valid KCIDB v4.3 document' \
	"kcidb-export.py --validate: the boot.sh run's document has schema v4.3's structure" -- \
	"$py" "$kx" --validate "$kd/run.json"
same_counts "KCIDB of the boot.sh run: as many PASS, FAIL, SKIP and waived as its TAP" \
	"$kd/run.json" "$run"/share/out/*.tap
facts "KCIDB of the boot.sh run: checkout, debug build, TCG environment, a SKIP with its reason" \
	"$kd/run.json" '
assert d["version"] == {"major": 4, "minor": 3}, d["version"]
[c] = d["checkouts"]
assert c["id"] == "volatile_lab:6.1.192-vla74398c8bd", c["id"]
assert c["tree_name"] == "debian-linux-source-6.1" and c["misc"]["series_id"] == "a74398c8bd", c
assert "patchset_hash" not in c, "a patchset hash of patches that are not the run'"'"'s"
[b] = d["builds"]
assert (b["architecture"], b["config_name"]) == ("arm64", "debug"), b
assert b["compiler"].startswith("aarch64-linux-gnu-gcc (Debian 12.2.0-14)"), b
e = t["volatile_lab.volatile_test.1"]["environment"]
assert "TCG" in e["comment"] and e["misc"]["accel"] == "tcg", e
assert e["misc"]["machine"] == "virt, cortex-a72" and "panic_on_warn=1" in e["misc"]["kernel_cmdline"], e
assert {x["start_time"] for x in tests} == {"2026-12-06T06:49:34+00:00"}
x = t["volatile_lab.volatile_test.95"]
assert (x["status"], x["comment"]) == ("SKIP", "OOM ordering, anonymous, 64 MiB volatile"), x
assert x["misc"]["tap_directive"].startswith("SKIP debug kernel under TCG"), x
suites = {p: x["status"] for p, x in t.items() if p.count(".") == 1}
assert suites == {f"volatile_lab.{s}": "PASS" for s in ("volatile_test", "pipeline_test", "psi_test", "fuzz", "stress")}, suites
assert len({x["id"] for x in tests}) == len(tests) == 140, len(tests)'

# The same run with the series id of $tmp/patches: KCIDB's patchset hash.
ser=$tmp/kcidb-series
cp -r "$run" "$ser"
sed -i "s/-vla74398c8bd/-vl$sid/g" "$ser/share/job.sh" "$ser/console.log"
expect 0 '' "kcidb-export.py: a run of the patches in --patches" -- \
	"$py" "$kx" --origin volatile_lab --patches "$tmp/patches" \
	--out "$kd/series.json" "$ser"
facts "KCIDB: the patchset hash is sha256sum *.patch | cut -c-64 | sha256sum of the run's patches" \
	"$kd/series.json" '
[c] = d["checkouts"]
assert c.get("patchset_hash") == sys.argv[2], (c.get("patchset_hash"), sys.argv[2])
assert c["misc"]["series_id"] == sys.argv[3], c' "$phash" "$sid"

# LAVA imports: a qemu job and a board job of one kernel, one document.
expect 0 '' "kcidb-export.py: exports LAVA imports of a qemu and a board run together" -- \
	"$py" "$kx" --origin volatile_lab --out "$kd/lava.json" "$imp" "$rest"
expect 0 'a valid KCIDB v4.3 document' \
	"kcidb-export.py --validate: the LAVA imports' document has schema v4.3's structure" -- \
	"$py" "$kx" --validate "$kd/lava.json"
same_counts "KCIDB of the LAVA imports: as many PASS, FAIL, SKIP and waived as their TAP" \
	"$kd/lava.json" "$imp"/*.tap "$rest"/*.tap
facts "KCIDB of the LAVA imports: QEMU under TCG and a bare-metal board, a known failure waived" \
	"$kd/lava.json" '
[b] = d["builds"]
assert (b["architecture"], b["config_name"]) == ("arm64", "normal"), b
env = {x["environment"]["comment"]: x.get("start_time") for x in tests}
assert env == {"QEMU virt, cortex-a72, emulated by TCG (not KVM), run by LAVA": "2026-12-06T00:37:13+00:00",
               "Khadas VIM3, bare metal, run by LAVA": "2026-12-06T11:00:03+00:00"}, env
board = {x["path"]: x for x in tests if "bare metal" in x["environment"]["comment"]}
x = board["volatile_lab.volatile_test.3"]
assert (x["status"], x.get("waived"), x["comment"]) == ("FAIL", True, "OOM ordering"), x
assert board["volatile_lab.volatile_test.4"].get("waived") is None
assert board["volatile_lab.volatile_test"]["status"] == "FAIL"
assert board["volatile_lab.lava.1"]["status"] == "FAIL"'

# Truncated, bailed out, crashed and failing suites.
err=$tmp/kcidb-err
cp -r "$run" "$err"
o=$err/share/out
head -n 40 "$run/share/out/volatile_test.tap" > "$o/volatile_test.tap"
printf 'TAP version 13\n1..3\nok 1 a\nBail out! out of memory\n' > "$o/bail_test.tap"
sed -i 's/^# exit status: 0$/# exit status: 139/' "$o/psi_test.tap"
sed -i -e 's/^ok 5 /not ok 5 /' -e 's/^ok 6 \(.*\)$/not ok 6 \1 # TODO known/' \
	"$o/pipeline_test.tap"
expect 0 '3 suite\(s\) in error' \
	"kcidb-export.py: exports truncated, bailed-out and failing suites" -- \
	"$py" "$kx" --origin volatile_lab --out "$kd/err.json" "$err"
same_counts "KCIDB of failing suites: as many PASS, FAIL, SKIP and waived as their TAP" \
	"$kd/err.json" "$o"/*.tap
facts "KCIDB: a truncated, a bailed-out and a crashed suite are ERROR, a failing one FAIL" \
	"$kd/err.json" '
suites = {p: x["status"] for p, x in t.items() if p.count(".") == 1}
want = {"volatile_test": "ERROR", "bail_test": "ERROR", "psi_test": "ERROR",
        "pipeline_test": "FAIL", "fuzz": "PASS", "stress": "PASS"}
assert suites == {f"volatile_lab.{k}": v for k, v in want.items()}, suites
assert "planned 99, ran " in t["volatile_lab.volatile_test"]["comment"]
assert t["volatile_lab.volatile_test"]["log_excerpt"].endswith("\n" + sys.argv[2]), sys.argv[2]
assert "exited with status 139" in t["volatile_lab.psi_test"]["comment"]
assert (t["volatile_lab.pipeline_test.5"]["status"], t["volatile_lab.pipeline_test.5"].get("waived")) == ("FAIL", None)
assert (t["volatile_lab.pipeline_test.6"]["status"], t["volatile_lab.pipeline_test.6"].get("waived")) == ("FAIL", True)' \
	"$(tail -n 1 "$o/volatile_test.tap")"

# Bad input: exit 2, one line naming the problem, no output file.
kbad=$tmp/kcidb-bad
mkdir -p "$kbad"
# refused PATTERN NAME ARGS...: the export exits 2 saying PATTERN and
# leaves nothing in $kbad (neither the output nor a temporary file).
refused()
{
	local pattern=$1 name=$2
	shift 2
	expect 2 "$pattern" "kcidb-export.py: $name" -- \
		"$py" "$kx" --out "$kbad/out.json" "$@"
	ok "$([ -z "$(ls -A "$kbad")" ] && [ "$(wc -l < "$tmp/out")" = 1 ]; echo $?)" \
		"kcidb-export.py: $name: one line said, no output file written"
	rm -rf "${kbad:?}"/* "$kbad"/.[!.]*
}
mk()
{
	rm -rf "$tmp/k-$1"
	cp -r "$2" "$tmp/k-$1"
	printf '%s\n' "$tmp/k-$1"
}
d=$(mk garbage "$run")
sed -i '5i Segmentation fault' "$d/share/out/psi_test.tap"
refused 'psi_test.tap:5: not a TAP line' "a TAP file with a stray line is refused, named" \
	--origin volatile_lab "$d"
d=$(mk nonumber "$run")
sed -i 's/^ok 3 /ok three /' "$d/share/out/pipeline_test.tap"
refused 'pipeline_test.tap:[0-9]+: a result without its test number' \
	"a result without a number is refused" --origin volatile_lab "$d"
d=$(mk twice "$run")
echo 'ok 2 again' >> "$d/share/out/fuzz.tap"
refused 'fuzz.tap:[0-9]+: test 2 reported twice' "a test reported twice is refused" \
	--origin volatile_lab "$d"
mkdir -p "$tmp/k-empty"
refused "k-empty: no TAP files" "an empty directory is refused" \
	--origin volatile_lab "$tmp/k-empty"
refused "k-none: no such directory" "a missing directory is refused" \
	--origin volatile_lab "$tmp/k-none"
d=$(mk nokernel "$rest")
sed -i '/^# kernel:/d' "$d/pin.csv"
refused "pin.csv: no '# kernel:' header line" "a CSV header without the kernel is refused" \
	--origin volatile_lab "$d"
d=$(mk norelease "$run")
sed -i '/LAB_EXPECT_RELEASE/d' "$d/share/job.sh"
refused 'job.sh: no LAB_EXPECT_RELEASE' "a boot.sh job without its release is refused" \
	--origin volatile_lab "$d"
d=$(mk suites "$rest")
rm "$d/pin.csv"
refused 'no metadata for kernel, machine, accel .*--meta' \
	"a LAVA import of suites only needs --meta" --origin volatile_lab "$d"
expect 0 '' "kcidb-export.py: --meta gives a LAVA import of suites its kernel, machine and accel" -- \
	"$py" "$kx" --origin volatile_lab --out "$kd/meta.json" \
	--meta kernel=6.1.192-vl37fa9bae81 --meta machine='Khadas VIM3' \
	--meta accel=none "$d"
refused 'runs of different kernels' "runs of two kernels are refused" \
	--origin volatile_lab "$run" "$imp"
refused "origin 'Volatile-Lab' is not" "an origin outside KCIDB's pattern is refused" \
	--origin Volatile-Lab "$run"
cp "$kd/run.json" "$tmp/keep.json"
expect 2 'not a TAP line' "kcidb-export.py: a failed export over an existing file" -- \
	"$py" "$kx" --origin volatile_lab --out "$tmp/keep.json" "$tmp/k-garbage"
ok "$(cmp -s "$kd/run.json" "$tmp/keep.json"; echo $?)" \
	"kcidb-export.py: a failed export leaves the existing output file as it was"
mkdir -p "$tmp/k-outdir/out.json"
expect 2 'out.json: cannot write it: Is a directory' "kcidb-export.py: an output path it cannot replace is refused" -- \
	"$py" "$kx" --origin volatile_lab --out "$tmp/k-outdir/out.json" "$run"
ok "$([ "$(ls -A "$tmp/k-outdir")" = out.json ]; echo $?)" \
	"kcidb-export.py: a failed rename leaves no temporary file"

# The structural check is no rubber stamp: each document below breaks
# one rule of schema v4.3 and must be refused, saying which.
"$py" - "$kd/run.json" "$kd" <<'PY'
import copy, json, sys
good = json.load(open(sys.argv[1]))
def variant(name, change):
    d = copy.deepcopy(good)
    change(d)
    json.dump(d, open(f"{sys.argv[2]}/v-{name}.json", "w"))
variant("status", lambda d: d["tests"][0].update(status="OK"))
variant("id", lambda d: d["tests"][0].update(id="no_origin_prefix"))
variant("required", lambda d: d["builds"][0].pop("checkout_id"))
variant("unknown", lambda d: d["tests"][0].update(flaky=True))
variant("minor", lambda d: d["version"].update(minor=4))
variant("hash", lambda d: d["checkouts"][0].update(patchset_hash="a74398c8bd"))
variant("env", lambda d: d["tests"][0]["environment"].update(machine="virt"))
variant("null", lambda d: d["tests"][1].update(comment=None))
variant("path", lambda d: d["tests"][1].update(path="volatile lab.x"))
variant("parent", lambda d: d["tests"][1].update(build_id="volatile_lab:other"))
PY
while IFS='|' read -r v pattern; do
	expect 1 "$pattern" "kcidb-export.py --validate refuses a document: $v" -- \
		"$py" "$kx" --validate "$kd/v-$v.json"
done <<'EOF'
status|tests\[0\]\.status: 'OK' is not one of FAIL, ERROR, MISS, PASS, DONE, SKIP
id|tests\[0\]\.id: 'no_origin_prefix' does not match
required|builds\[0\]: no 'checkout_id'
unknown|tests\[0\]: unknown property 'flaky'
minor|version: not \{major: 4, minor: 0\.\.3\}
hash|checkouts\[0\]\.patchset_hash: 'a74398c8bd' does not match
env|tests\[0\]\.environment: unknown property 'machine'
null|tests\[1\]\.comment: null
path|tests\[1\]\.path: 'volatile lab\.x' does not match
parent|tests\[1\]\.build_id: no such build
EOF

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
expect 2 '--origin, --out and at least one RUN_DIR are required' \
	"kcidb-export.py: missing arguments are a usage error" -- "$py" "$S/kcidb-export.py"
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
