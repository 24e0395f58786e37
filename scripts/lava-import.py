#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lava-import.py --out OUTDIR [--machine M] [--accel A] RESULTS...: turn
the results of LAVA jobs made by scripts/lava-jobs.py back into the lab's
TAP and CSV files.

Each RESULTS file (one job's) is one of (all YAML; JSON is YAML too):
  - `lavacli results JOB --yaml` (or --json) output, or the server's
    /results/JOB/yaml download: a list of test cases with name, suite,
    result, measurement and unit (lava_results_app/utils.py,
    export_testcase(), in lava-server 2023.01);
  - the log lava-run prints (one {dt, lvl, msg} mapping a line): its
    "results" lines, as the dispatcher sends them to the server.
OUTDIR gets:
  <suite>.tap     every suite job's TAP, as run-tests writes it in the lab
  <family>.csv    every benchmark job's CSV, with the lab's header
  failed-runs.txt when a benchmark family did not run cleanly
  lava.tap        the LAVA side: each job's result, each suite's kernel
                  log and each family's run
--machine and --accel replace what the CSV header says (the guest writes
what it was told and, on a board, the device-tree model).
Run with /usr/bin/python3.  Exit 2 on bad arguments, 1 on unreadable
input, 0 otherwise (the TAP says what failed).
"""
import argparse
import os
import re
import sys
from urllib.parse import unquote

import yaml

HEADER = "backend,bench,param,value,metric,unit,rep"


def fail(msg):
    sys.exit(f"lava-import.py: {msg}")


def usage_error(msg):
    print(f"lava-import.py: {msg}", file=sys.stderr)
    print(__doc__.split("\n\n")[0], file=sys.stderr)
    sys.exit(2)


def load(path):
    """A list of (suite, case, result, measurement or None, unit, when):
    when is the time LAVA logged the result (ISO 8601, UTC)."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    cases = []
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, list) and data and "suite" in data[0]:
        for n, r in enumerate(data):
            try:
                m = r.get("measurement")
                m = None if m in (None, "None", "") else float(m)
                cases.append((r["suite"], r["name"], r["result"], m,
                              r.get("unit") or "", str(r.get("logged", ""))))
            except (KeyError, TypeError, ValueError) as e:
                fail(f"{path}: test case {n + 1} is malformed ({e!r})")
        return cases
    # A lava-run log: one YAML flow mapping a line.
    for n, line in enumerate(text.splitlines(), 1):
        if '"lvl": "results"' not in line:
            continue
        try:
            entry = yaml.safe_load(line)
            msg = entry["msg"]
            m = msg.get("measurement")
            cases.append((msg["definition"], msg["case"], msg["result"],
                          None if m is None else float(m),
                          msg.get("units", ""), str(entry.get("dt", ""))))
        except (yaml.YAMLError, KeyError, TypeError, ValueError) as e:
            fail(f"{path}:{n}: malformed results line ({e!r})")
    if not cases:
        fail(f"{path}: no LAVA results (neither a results list with "
             f"'suite' and 'name' nor lava-run log lines of level results)")
    return cases


def write_suite(outdir, suite, cases, lava):
    tests, plan, status = [], None, None
    for case, result, m, _, _ in cases:
        if case == "plan":
            plan = int(m) if result == "pass" and m is not None else None
        elif case == "exit-status":
            status = None if m is None else int(m)
        elif case == "kernel-log":
            lava.append((result == "pass",
                         f"{suite}: no kernel report while it ran"))
        else:
            num, _, desc = case.partition(".")
            if not num.isdigit():
                fail(f"suite {suite}: test case '{case}' is not <n>.<name>")
            tests.append((int(num), desc.replace("_", " "), result))
    lines = ["TAP version 13"]
    if plan is not None:
        lines.append(f"1..{plan}")
    for num, desc, result in sorted(tests):
        if result == "pass":
            lines.append(f"ok {num} {desc}")
        elif result == "skip":
            lines.append(f"ok {num} {desc} # SKIP (LAVA result: skip)")
        elif result == "unknown":
            lines.append(f"not ok {num} {desc} # TODO known failure "
                         "(LAVA result: unknown)")
        else:
            lines.append(f"not ok {num} {desc}")
    if status is not None:
        lines.append(f"# exit status: {status}")
    with open(os.path.join(outdir, f"{suite}.tap"), "w") as f:
        f.write("\n".join(lines) + "\n")


def field(s):
    return unquote(s, errors="strict")


def write_family(outdir, family, cases, lava, machine, accel):
    meta, rows, ran = {}, [], False
    for case, result, m, unit, when in cases:
        parts = case.split(".")
        if case == "bench-matrix":
            ran = result == "pass"
        elif parts[0] == "meta" and len(parts) == 3:
            meta[field(parts[1])] = field(parts[2])
        elif len(parts) == 5 and m is not None:
            backend, bench, param, metric, rep = map(field, parts)
            rows.append(f"{backend},{bench},{param},{m:.6g},{metric},"
                        f"{unit},{rep}")
        else:
            fail(f"benchmark family {family}: test case '{case}' is neither "
                 f"meta.<key>.<value> nor a measured "
                 f"<backend>.<bench>.<param>.<metric>.<rep>")
    # A guest without a real-time clock (QEMU virt without an RTC driver)
    # dates its CSV 1970: the time LAVA logged the results is the truth.
    if meta.get("date", "").startswith("1970-") and when:
        meta["date"] = when[:19].replace(" ", "T") + "Z"
    if machine:
        meta["machine"] = machine
    if accel:
        meta["accel"] = accel
    lava.append((ran, f"bench {family}: every run of the family passed"))
    if not ran:
        with open(os.path.join(outdir, "failed-runs.txt"), "a") as f:
            f.write(f"{family}: the LAVA job's bench-matrix case failed\n")
    with open(os.path.join(outdir, f"{family}.csv"), "w") as f:
        for k, v in meta.items():
            f.write(f"# {k}: {v}\n")
        f.write(HEADER + "\n")
        for r in rows:
            f.write(r + "\n")


def main():
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("results", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--machine", default="")
    p.add_argument("--accel", default="")
    p.error = usage_error
    a = p.parse_args()
    a.outdir = a.out
    by_def, lava = {}, []
    for path in a.results:
        for suite, case, result, m, unit, when in load(path):
            if suite == "lava":
                if case == "job":
                    lava.append((result == "pass", "LAVA job finished "
                                 f"correctly ({os.path.basename(path)})"))
                continue
            # The dispatcher names a definition's suite <index>_<name>.
            name = re.sub(r"^[0-9]+_", "", suite)
            by_def.setdefault(name, []).append((case, result, m, unit, when))
    if not by_def:
        fail(f"{', '.join(a.results)}: no test definition results, "
             "only LAVA's own")
    os.makedirs(a.outdir, exist_ok=True)
    failed = os.path.join(a.outdir, "failed-runs.txt")
    if os.path.exists(failed):
        os.unlink(failed)
    for name, cs in sorted(by_def.items()):
        if name.startswith("bench-"):
            write_family(a.outdir, name[len("bench-"):], cs, lava,
                         a.machine, a.accel)
        else:
            write_suite(a.outdir, name, cs, lava)
    with open(os.path.join(a.outdir, "lava.tap"), "w") as f:
        f.write(f"TAP version 13\n1..{len(lava)}\n")
        for n, (ok, what) in enumerate(lava, 1):
            f.write(f"{'ok' if ok else 'not ok'} {n} lava: {what}\n")
    print(f"lava-import.py: {', '.join(sorted(by_def))} -> {a.outdir}")


if __name__ == "__main__":
    main()
