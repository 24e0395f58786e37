#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kcidb-export.py --origin NAME [--checkout-id ID] [--patches DIR]
                [--meta KEY=VALUE]... --out FILE RUN_DIR...
kcidb-export.py --validate FILE

Write the in-guest suite results of lab runs as one KCIDB document
(KernelCI's report format, I/O schema v4.3 of kernelci/kcidb-io).

A RUN_DIR is either a run directory of scripts/boot.sh (build/runs/NAME:
TAP in share/out/, metadata from share/job.sh and console.log) or a
directory of TAP files with the lab's CSV headers beside them (what
scripts/lava-import.py writes for suite and benchmark jobs).  --meta
supplies or replaces kernel, arch, config, machine or accel for every
RUN_DIR (e.g. a LAVA import of suites only has no CSV header).  All runs
must be of one kernel release: one checkout, one build per arch and
config (normal, debug), one test per TAP result and one per suite.
--patches (default: the lab's kernel/patches) gives the patchset hash when
its series id is the runs' one.

--validate FILE checks a document against the structure of schema v4.3
(required keys, types, patterns, status values); the export checks its
own output the same way before writing it.

Exit 0 on success, 1 when --validate finds the document invalid, 2 on bad
arguments or input (missing directory, malformed TAP, no TAP, missing
metadata); the output file is then left as it was.
"""
import argparse
import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
from datetime import datetime, timezone

PROG = "kcidb-export.py"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = (4, 3)
ROOT_PATH = "volatile_lab"
META_KEYS = ("kernel", "arch", "config", "machine", "accel")


class BadInput(Exception):
    """Bad arguments or input: one line, exit 2."""


# --- TAP ----------------------------------------------------------------
RESULT_RE = re.compile(r"(ok|not ok)(?: (\d+))?(?: -)?(?: (.*))?$")
DIRECTIVE_RE = re.compile(r"(.*?)\s*#\s*(SKIP|TODO)\S*\s*(.*)$", re.I)


def parse_tap(path):
    """One suite: {suite, cases: [(n, desc, status, waived, note)], plan,
    bail, exit, path}.  Results are read as scripts/tap-summary.sh reads
    them: "ok # SKIP" skips, "not ok # TODO" is a known (waived) failure,
    any other "not ok" fails.  A line that is no TAP is an error."""
    suite = os.path.basename(path)[:-len(".tap")]
    if not re.fullmatch(r"[A-Za-z0-9_-]+", suite):
        raise BadInput(f"{path}: a suite name KCIDB cannot take in a path")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    s = {"suite": suite, "cases": [], "plan": None, "bail": False,
         "exit": None, "path": path}
    seen = set()
    for n, line in enumerate(lines, 1):
        # Blank, indented (subtests, YAML blocks) and comment lines carry
        # no top-level result; "# exit status: N" is run-tests' own.
        if not line.strip() or line[0] in " \t":
            continue
        if line.startswith("#"):
            m = re.fullmatch(r"# exit status: (-?\d+)\s*", line)
            if m:
                s["exit"] = int(m.group(1))
            continue
        if re.fullmatch(r"TAP version \d+", line):
            continue
        if line.startswith("Bail out!"):
            s["bail"] = True
            continue
        m = re.fullmatch(r"1\.\.(\d+)(\s*#.*)?", line)
        if m:
            if s["plan"] is not None:
                raise BadInput(f"{path}:{n}: a second plan")
            s["plan"] = int(m.group(1))
            continue
        m = RESULT_RE.fullmatch(line)
        if not m:
            raise BadInput(f"{path}:{n}: not a TAP line: {line[:60]!r}")
        if m.group(2) is None:
            raise BadInput(f"{path}:{n}: a result without its test number")
        num, desc = int(m.group(2)), (m.group(3) or "").strip()
        if num in seen:
            raise BadInput(f"{path}:{n}: test {num} reported twice")
        seen.add(num)
        d = DIRECTIVE_RE.fullmatch(desc)
        directive, note = (d.group(2).upper(), d.group(3)) if d else ("", "")
        if d:
            desc = d.group(1)
        if m.group(1) == "ok":
            status = "SKIP" if directive == "SKIP" else "PASS"
        else:
            status = "FAIL"
        waived = m.group(1) == "not ok" and directive == "TODO"
        s["cases"].append((num, desc, status, waived,
                           f"{directive} {note}".strip()))
    return s


def suite_status(s):
    """(status, notes) of a whole suite: ERROR when its TAP is truncated
    (no plan, fewer or more results than planned) or bailed out, or when
    the program failed after passing every test (a crash); FAIL when a
    test failed (known failures aside); SKIP when every test skipped."""
    notes, ran = [], len(s["cases"])
    if s["plan"] is None:
        notes.append("no TAP plan")
    elif s["plan"] != ran:
        notes.append(f"planned {s['plan']}, ran {ran}")
    if s["bail"]:
        notes.append("bailed out")
    truncated = bool(notes)
    if s["exit"]:
        notes.append(f"exited with status {s['exit']}")
    failed = any(c[2] == "FAIL" and not c[3] for c in s["cases"])
    if truncated or (s["exit"] and not failed):
        return "ERROR", notes
    if failed:
        return "FAIL", notes
    if all(c[2] == "SKIP" for c in s["cases"]):
        return "SKIP", notes
    return "PASS", notes


# --- metadata -------------------------------------------------------------
def machine_of(job, arch, cpu):
    """The machine as bench/matrix.sh writes it in the CSV header."""
    if arch == "arm64":
        return f"virt, {cpu}"
    if arch == "x86_64":
        return f"q35, cpu {cpu}"
    raise BadInput(f"{job}: unknown LAB_ARCH '{arch}'")


def boot_meta(run):
    """Metadata of a scripts/boot.sh run directory, or None."""
    job = os.path.join(run, "share", "job.sh")
    if not os.path.isfile(job):
        return None
    env = {}
    with open(job, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("export "):
                continue
            try:
                toks = shlex.split(line[len("export "):])
            except ValueError as e:
                raise BadInput(f"{job}:{n}: {e}") from None
            for tok in toks:
                k, _, v = tok.partition("=")
                env[k] = v
    for k in ("LAB_EXPECT_RELEASE", "LAB_ARCH", "LAB_DEBUG", "LAB_ACCEL",
              "LAB_CPU"):
        if not env.get(k):
            raise BadInput(f"{job}: no {k} (not written by boot.sh?)")
    meta = {"kernel": env["LAB_EXPECT_RELEASE"], "arch": env["LAB_ARCH"],
            "config": "debug" if env["LAB_DEBUG"] == "1" else "normal",
            "machine": machine_of(job, env["LAB_ARCH"], env["LAB_CPU"]),
            "accel": env["LAB_ACCEL"], "tap_dir": os.path.join(run, "share",
                                                               "out"),
            "harness": "scripts/boot.sh",
            # boot.sh writes job.sh just before it starts QEMU.
            "start": datetime.fromtimestamp(os.stat(job).st_mtime,
                                            timezone.utc),
            "misc": {"mglru": env.get("LAB_MGLRU", ""),
                     "zram_mib": env.get("LAB_ZRAM_MIB", "")}}
    console = os.path.join(run, "console.log")
    if os.path.isfile(console):
        with open(console, encoding="utf-8", errors="replace") as f:
            log = f.read()
        m = re.search(r"Linux version (\S+) \(\S+\) \((.*?)\) #", log)
        if m and m.group(1) != meta["kernel"]:
            raise BadInput(f"{console}: the guest ran {m.group(1)}, "
                           f"job.sh expected {meta['kernel']}")
        if m:
            meta["compiler"] = m.group(2)
        m = re.search(r"Kernel command line: (.*)", log)
        if m:
            meta["misc"]["kernel_cmdline"] = m.group(1).strip()
        m = re.search(r"smp: Brought up \d+ nodes?, (\d+) CPUs?", log)
        if m:
            meta["misc"]["cpus"] = m.group(1)
    return meta


def csv_meta(run, given):
    """Metadata of a directory of TAP files (a LAVA import, lava.tap beside
    them, or a copy of a run's TAP): the '# key: value' header of its CSV
    files, when it has any.  Every key --meta does not give must be in
    every header."""
    meta, lava = {}, os.path.isfile(os.path.join(run, "lava.tap"))
    for name in sorted(p for p in os.listdir(run) if p.endswith(".csv")):
        head = {}
        with open(os.path.join(run, name), encoding="utf-8",
                  errors="replace") as f:
            for line in f:
                if not line.startswith("#"):
                    break
                k, sep, v = line[1:].partition(":")
                if sep:
                    head[k.strip()] = v.strip()
        for k in ("kernel", "machine", "accel"):
            if k not in head and k not in given:
                raise BadInput(f"{run}/{name}: no '# {k}:' header line")
        for k, v in head.items():
            if meta.setdefault(k, v) != v and k in ("kernel", "series",
                                                     "machine", "accel"):
                raise BadInput(f"{run}: the CSV headers disagree on {k} "
                               f"('{meta[k]}', '{v}')")
    machine = meta.get("machine", "")
    # The lab's arm64 guest is QEMU virt and its x86_64 one q35; its LAVA
    # jobs (scripts/lava-jobs.py) are arm64 only, boards too.
    arch = ("arm64" if machine.startswith("virt") else
            "x86_64" if machine.startswith("q35") else
            "arm64" if lava else "")
    start = None
    if meta.get("date") and not meta["date"].startswith("1970-"):
        try:
            start = datetime.fromisoformat(meta["date"].replace("Z",
                                                                "+00:00"))
        except ValueError:
            raise BadInput(f"{run}: a CSV date that is not ISO 8601: "
                           f"'{meta['date']}'") from None
    return {"kernel": meta.get("kernel"), "series": meta.get("series"),
            "machine": machine, "accel": meta.get("accel"), "arch": arch,
            # Benchmarks and LAVA jobs boot the normal kernel only
            # (bench.sh --debug 0, lava-jobs.py's Image).
            "config": "normal" if meta or lava else "",
            "tap_dir": run, "start": start,
            "harness": "LAVA" if lava else "bench-matrix" if meta else "",
            "misc": {k: meta[k] for k in ("cpus", "ram_mib") if k in meta}}


def run_meta(run, given):
    """The metadata of one RUN_DIR, --meta's GIVEN keys replacing its own."""
    if not os.path.isdir(run):
        raise BadInput(f"{run}: no such directory")
    meta = boot_meta(run) or csv_meta(run, given)
    if not os.path.isdir(meta["tap_dir"]) or not any(
            p.endswith(".tap") for p in os.listdir(meta["tap_dir"])):
        raise BadInput(f"{meta['tap_dir']}: no TAP files (*.tap)")
    meta.update(given)
    missing = [k for k in META_KEYS if not meta.get(k)]
    if missing:
        raise BadInput(f"{run}: no metadata for {', '.join(missing)} "
                       "(neither boot.sh's share/job.sh nor a CSV header "
                       "says it; give --meta KEY=VALUE)")
    m = re.fullmatch(r"\S+-vl([0-9a-f]{10})", meta["kernel"])
    if not m:
        raise BadInput(f"{run}: kernel release '{meta['kernel']}' carries "
                       "no series id (-vl<id>)")
    if meta.get("series") and meta["series"] != m.group(1):
        raise BadInput(f"{run}: series {meta['series']} but kernel "
                       f"{meta['kernel']}")
    meta["series"] = m.group(1)
    if not re.fullmatch(r"[a-z0-9_]+", meta["arch"]):
        raise BadInput(f"{run}: architecture '{meta['arch']}' is not "
                       "[a-z0-9_]+")
    return meta


def environment(meta):
    """The test environment, as the run's accel and machine say it."""
    accel, machine = meta["accel"], meta["machine"]
    if accel == "tcg":
        text = f"QEMU {machine}, emulated by TCG (not KVM)"
    elif accel == "kvm":
        text = f"QEMU {machine}, under KVM"
    elif accel == "none":
        text = f"{machine}, bare metal"
    else:
        text = f"{machine}, accel {accel}"
    if meta["harness"]:
        text += f", run by {meta['harness']}"
    misc = {"machine": machine, "accel": accel, **meta["misc"]}
    return {"comment": text, "misc": {k: v for k, v in misc.items() if v}}


# --- the patch series -------------------------------------------------------
def patchset_hash(patches, series):
    """KCIDB's patchset hash (sha256 over each patch's newline-terminated
    sha256, in order) of the patches in DIR/series, when their series id
    (scripts/lib.sh series_id: the series file and every patch, sha256,
    10 digits) is SERIES; else None: the runs were of other patches."""
    try:
        with open(os.path.join(patches, "series"), "rb") as f:
            listing = f.read()
        # As series_id's "read -r": blank and '#' lines name no patch.
        names = [ln.strip() for ln in listing.decode().splitlines()
                 if ln.strip() and not ln.strip().startswith("#")]
        texts = []
        for p in names:
            with open(os.path.join(patches, p), "rb") as f:
                texts.append(f.read())
    except (OSError, UnicodeDecodeError):
        return None
    if hashlib.sha256(listing + b"".join(texts)).hexdigest()[:10] != series:
        return None
    each = "".join(hashlib.sha256(t).hexdigest() + "\n" for t in texts)
    return hashlib.sha256(each.encode()).hexdigest()


# --- the document ---------------------------------------------------------
def rfc3339(t):
    return t.astimezone(timezone.utc).isoformat(timespec="seconds")


def export(a, given):
    runs = [(r, run_meta(r, given)) for r in a.runs]
    kernels = sorted({m["kernel"] for _, m in runs})
    if len(kernels) > 1:
        raise BadInput(f"runs of different kernels ({', '.join(kernels)}): "
                       "export them separately")
    kernel, series = kernels[0], runs[0][1]["series"]
    checkout_id = a.checkout_id or f"{a.origin}:{kernel}"
    base = kernel[:-len(f"-vl{series}")]
    checkout = {"id": checkout_id, "origin": a.origin,
                "tree_name": "debian-linux-source-6.1",
                "comment": f"Debian's linux-source-6.1 ({base}) with the "
                           f"volatile-lab patch series {series}",
                "valid": True,
                "misc": {"series_id": series, "kernel_release": kernel}}
    phash = patchset_hash(a.patches, series)
    if phash:
        checkout["patchset_hash"] = phash
    builds, tests, run_keys = {}, [], set()
    for run, meta in runs:
        key = (meta["arch"], meta["config"])
        build_id = f"{a.origin}:{kernel}.{meta['arch']}.{meta['config']}"
        b = builds.setdefault(key, {
            "id": build_id, "checkout_id": checkout_id, "origin": a.origin,
            "architecture": meta["arch"], "config_name": meta["config"],
            "comment": f"{kernel}, {meta['config']} config, for "
                       f"{meta['arch']}", "valid": True})
        if meta.get("compiler"):
            b.setdefault("compiler", meta["compiler"])
        taps = sorted(p for p in os.listdir(meta["tap_dir"])
                      if p.endswith(".tap"))
        # A test run's id: the build, the run directory and its start.
        run_key = os.path.basename(os.path.realpath(run))
        if meta["start"]:
            run_key += "." + meta["start"].strftime("%Y%m%dT%H%M%SZ")
        if run_key in run_keys:
            raise BadInput(f"{run}: a second run {run_key}")
        run_keys.add(run_key)
        env = environment(meta)
        common = {"build_id": build_id, "origin": a.origin,
                  "environment": env}
        if meta["start"]:
            common["start_time"] = rfc3339(meta["start"])
        for name in taps:
            s = parse_tap(os.path.join(meta["tap_dir"], name))
            status, notes = suite_status(s)
            tid = f"{build_id}.{run_key}.{s['suite']}"
            counts = {st: sum(c[2] == st for c in s["cases"])
                      for st in ("PASS", "FAIL", "SKIP")}
            t = {**common, "id": tid, "path": f"{ROOT_PATH}.{s['suite']}",
                 "status": status,
                 "comment": f"{s['suite']}: {counts['PASS']} pass, "
                            f"{counts['FAIL']} fail, {counts['SKIP']} skip"
                            + "".join(f"; {n}" for n in notes),
                 "misc": {"tap_file": name, "planned": s["plan"],
                          "exit_status": s["exit"]}}
            t["misc"] = {k: v for k, v in t["misc"].items() if v is not None}
            if status == "ERROR":
                with open(s["path"], encoding="utf-8",
                          errors="replace") as f:
                    t["log_excerpt"] = "\n".join(
                        f.read().splitlines()[-20:])[-16384:]
            tests.append(t)
            for num, desc, st, waived, note in s["cases"]:
                c = {**common, "id": f"{tid}.{num}",
                     "path": f"{ROOT_PATH}.{s['suite']}.{num}",
                     "status": st, "comment": desc or f"test {num}"}
                if waived:
                    c["waived"] = True
                if note:
                    c["misc"] = {"tap_directive": note}
                tests.append(c)
    return {"version": {"major": SCHEMA[0], "minor": SCHEMA[1]},
            "checkouts": [checkout], "builds": list(builds.values()),
            "tests": tests}


def write_atomic(path, text):
    """Write PATH whole or not at all: a temporary file, then rename."""
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise BadInput(f"{path}: its directory does not exist")
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".kcidb-export.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            raise BadInput(f"{path}: cannot write it: {e.strerror}") from None
        raise


# --- the structure of schema v4.3 ---------------------------------------
# From kcidb-io's kcidb_io/schema/v04_03.py (patterns of v03_00.py, which
# v4.0-v4.3 inherit): property name -> kind, kind's argument.  Every
# object has additionalProperties false and no property may be null.
ORIGIN_ID = r"[a-z0-9_]+:.*"
DATE_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"
STATUS = ("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP")
COMMON = {"_timestamp": ("str", DATE_TIME), "id": ("str", ORIGIN_ID),
          "origin": ("str", r"[a-z0-9_]+"), "comment": ("str", None),
          "start_time": ("str", DATE_TIME), "log_url": ("str", None),
          "log_excerpt": ("excerpt", 16384), "misc": ("obj", None)}
OBJECTS = {
    "checkouts": (("id", "origin"), {
        **COMMON, "tree_name": ("str", None),
        "git_repository_url": ("str", r"(https|git)://.*"),
        "git_commit_hash": ("str", r"[0-9a-f]{40}"),
        "git_commit_name": ("str", None),
        "git_repository_branch": ("str", None),
        "patchset_files": ("resources", None),
        "patchset_hash": ("str", r"|[0-9a-f]{64}"),
        "message_id": ("str", None), "contacts": ("strings", None),
        "valid": ("bool", None)}),
    "builds": (("checkout_id", "id", "origin"), {
        **COMMON, "checkout_id": ("str", ORIGIN_ID),
        "duration": ("num", None),
        "architecture": ("str", r"[a-z0-9_]*"), "command": ("str", None),
        "compiler": ("str", None), "input_files": ("resources", None),
        "output_files": ("resources", None), "config_name": ("str", None),
        "config_url": ("str", None), "valid": ("bool", None)}),
    "tests": (("build_id", "id", "origin"), {
        **COMMON, "build_id": ("str", ORIGIN_ID),
        "environment": ("env", None), "path": ("str", r"[.a-zA-Z0-9_-]*"),
        "status": ("enum", STATUS), "waived": ("bool", None),
        "duration": ("num", None), "output_files": ("resources", None)}),
}


def check_value(where, kind, arg, v):
    """Problems (strings) of one property value."""
    if kind in ("str", "excerpt", "enum"):
        if not isinstance(v, str):
            return [f"{where}: not a string"]
        if kind == "str" and arg and not re.fullmatch(arg, v):
            return [f"{where}: '{v[:60]}' does not match ^{arg}$"]
        if kind == "excerpt" and len(v) > arg:
            return [f"{where}: longer than {arg}"]
        if kind == "enum" and v not in arg:
            return [f"{where}: '{v}' is not one of {', '.join(arg)}"]
        return []
    if kind == "bool":
        return [] if isinstance(v, bool) else [f"{where}: not a boolean"]
    if kind == "num":
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        return [] if ok else [f"{where}: not a number"]
    if kind == "obj":
        return [] if isinstance(v, dict) else [f"{where}: not an object"]
    if kind == "strings":
        ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
        return [] if ok else [f"{where}: not a list of strings"]
    if kind == "env":
        if not isinstance(v, dict):
            return [f"{where}: not an object"]
        return check_object(where, (), {"comment": ("str", None),
                                        "misc": ("obj", None)}, v)
    if kind == "resources":
        if not isinstance(v, list):
            return [f"{where}: not a list"]
        spec = {"name": ("str", r"[^/]+"), "url": ("str", None)}
        return [p for i, r in enumerate(v) for p in (
            check_object(f"{where}[{i}]", ("name", "url"), spec, r)
            if isinstance(r, dict) else [f"{where}[{i}]: not an object"])]
    raise AssertionError(kind)


def check_object(where, required, spec, obj):
    problems = [f"{where}: no '{k}'" for k in required if k not in obj]
    for k, v in obj.items():
        if k not in spec:
            problems.append(f"{where}: unknown property '{k}'")
        elif v is None:
            problems.append(f"{where}.{k}: null")
        else:
            problems += check_value(f"{where}.{k}", *spec[k], v)
    return problems


def validate(doc):
    """Problems of DOC as a KCIDB v4.3 document (empty when it is one),
    plus the exporter's own consistency: unique ids, known parents."""
    if not isinstance(doc, dict):
        return ["the document is not a JSON object"]
    problems = []
    ver = doc.get("version")
    if not isinstance(ver, dict) or set(ver) - {"major", "minor"} or \
            ver.get("major") != SCHEMA[0] or \
            type(ver.get("major")) is not int or \
            ("minor" in ver and (type(ver["minor"]) is not int or
                                 not 0 <= ver["minor"] <= SCHEMA[1])):
        problems.append(f"version: not {{major: {SCHEMA[0]}, minor: "
                        f"0..{SCHEMA[1]}}}")
    ids = {}
    for k, v in doc.items():
        if k == "version":
            continue
        if k in ("issues", "incidents"):
            problems.append(f"{k}: not written by the exporter, not checked")
            continue
        if k not in OBJECTS:
            problems.append(f"unknown property '{k}'")
            continue
        if not isinstance(v, list):
            problems.append(f"{k}: not a list")
            continue
        required, spec = OBJECTS[k]
        for i, obj in enumerate(v):
            where = f"{k}[{i}]"
            if not isinstance(obj, dict):
                problems.append(f"{where}: not an object")
                continue
            problems += check_object(where, required, spec, obj)
            oid = obj.get("id")
            if not isinstance(oid, str):
                continue
            if oid in ids.setdefault(k, set()):
                problems.append(f"{where}: id '{oid}' used twice")
            ids[k].add(oid)
            if not oid.startswith(f"{obj.get('origin')}:"):
                problems.append(f"{where}: id '{oid}' is not of its origin")
    for k, parent, ref in (("builds", "checkouts", "checkout_id"),
                           ("tests", "builds", "build_id")):
        for i, obj in enumerate(doc.get(k) or []):
            if isinstance(obj, dict) and isinstance(obj.get(ref), str) \
                    and obj[ref] not in ids.get(parent, set()):
                problems.append(f"{k}[{i}].{ref}: no such {parent[:-1]} "
                                "in the document")
    return problems


# --- main -----------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(prog=PROG, add_help=False)
    p.add_argument("runs", nargs="*")
    p.add_argument("--validate")
    p.add_argument("--origin")
    p.add_argument("--checkout-id")
    p.add_argument("--out")
    p.add_argument("--patches", default=os.path.join(TOP, "kernel",
                                                     "patches"))
    p.add_argument("--meta", action="append", default=[])

    def usage(msg):
        raise BadInput(f"{msg}\n{__doc__.split(chr(10) + chr(10))[0]}")
    p.error = usage
    a = p.parse_args()
    if a.validate:
        try:
            with open(a.validate, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise BadInput(f"{a.validate}: cannot read it as JSON: {e}")
        problems = validate(doc)
        for msg in problems[:20]:
            print(f"{PROG}: {a.validate}: {msg}", file=sys.stderr)
        if problems:
            sys.exit(1)
        print(f"{PROG}: {a.validate}: a valid KCIDB v{SCHEMA[0]}.{SCHEMA[1]}"
              f" document ({len(doc.get('tests', []))} tests)")
        return
    if not (a.origin and a.out and a.runs):
        usage("--origin, --out and at least one RUN_DIR are required")
    if not re.fullmatch(r"[a-z0-9_]+", a.origin):
        raise BadInput(f"origin '{a.origin}' is not [a-z0-9_]+ (KCIDB's "
                       "origin pattern)")
    if a.checkout_id and not a.checkout_id.startswith(f"{a.origin}:"):
        raise BadInput(f"checkout id '{a.checkout_id}' does not start with "
                       f"'{a.origin}:'")
    given = {}
    for kv in a.meta:
        k, sep, v = kv.partition("=")
        if not sep or k not in META_KEYS or not v:
            raise BadInput(f"--meta '{kv}': not KEY=VALUE with KEY one of "
                           f"{', '.join(META_KEYS)}")
        given[k] = v
    doc = export(a, given)
    problems = validate(doc)
    if problems:
        sys.exit(f"{PROG}: internal error, the document would be invalid: "
                 f"{problems[0]}")
    write_atomic(a.out, json.dumps(doc, indent=1) + "\n")
    count = {st: sum(t["status"] == st for t in doc["tests"]
                     if t["path"].count(".") == 2)
             for st in ("PASS", "FAIL", "SKIP")}
    errors = sum(t["status"] == "ERROR" for t in doc["tests"])
    print(f"{PROG}: {len(doc['builds'])} build(s), {len(doc['tests'])} "
          f"tests ({count['PASS']} pass, {count['FAIL']} fail, "
          f"{count['SKIP']} skip; {errors} suite(s) in error) -> {a.out}")


if __name__ == "__main__":
    try:
        main()
    except BadInput as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"{PROG}: {e.filename}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
