# SPDX-License-Identifier: GPL-2.0
"""bench-report.py check: the CSV and graphs of one run, as TAP."""

import collections
import math
import os

from .common import *  # noqa: F401,F403
from .families import SECTIONS
from .gnuplot import GRAPHS


def check(d, quick=False, require_order=False):
    """TAP of the run in @d.  @quick: a quick run (tiny sizes, one
    repetition), whose numbers are not judged: the checks of what the
    numbers must show (the userspace model acted, the order was
    balanced) are skipped, and say so.  @require_order: a run that does
    not record its backends' order fails."""
    opts = dict(quick=quick, require_order=require_order)
    results = []

    def result(ok, what):
        results.append((ok, what))

    try:
        meta, data = load(d)
    except BadInput as e:
        print("1..1\nnot ok 1 bench CSV readable: " + str(e))
        return 1
    result(all(k in meta for k in META_KEYS),
           "CSV metadata names " + ", ".join(META_KEYS))
    for ok, what in clock_checks(meta, data):
        result(ok, what)
    # Each family's own checks (families.py lists the families).
    for module in SECTIONS:
        for ok, what in getattr(module, "checks",
                                lambda d, data, opts: ())(d, data, opts):
            result(ok, what)
    result(*order_check(d, data, opts))
    failed = os.path.join(d, "failed-runs.txt")
    result(not os.path.exists(failed),
           "no benchmark run failed" + ("" if not os.path.exists(failed)
                                        else ": see " + failed))
    for g in GRAPHS:
        # A run without pressure (the quick one) has no episode to draw.
        if g.needs_metric and not any(r["metric"] in g.metrics
                                      for r in data[g.fam]):
            continue
        # Nor is a family that did not run (the sweep without
        # BENCH_SWEEP=1): plot() leaves its optional graphs out.
        if g.optional and not any(r["bench"] == g.bench
                                  for r in data[g.fam]):
            continue
        for ext in ("svg", "png"):
            p = os.path.join(d, f"{g.name}.{ext}")
            result(os.path.exists(p) and os.path.getsize(p) > 1000,
                   f"graph {g.name}.{ext} rendered")
    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} bench: {what}")
    return 0 if all(ok for ok, _ in results) else 1


def clock_checks(meta, data):
    """(ok, what) for the clock that made the timings, and the timings."""
    step = meta.get("clock_step_ns", "")
    try:
        step_ok = 0 < float(step) <= MAX_CLOCK_STEP_NS
    except ValueError:
        step_ok = False
    yield (step_ok and meta.get("clocksource", "unknown") != "unknown",
           f"the guest clock: clocksource {meta.get('clocksource', '?')}, "
           f"smallest step seen {step or '?'} ns (at most "
           f"{MAX_CLOCK_STEP_NS}), clock_getres "
           f"{meta.get('clock_res_ns', '?')} ns")
    rows = [r for fam in data for r in data[fam]]
    bad = [r for r in rows if not math.isfinite(r["value"])]
    yield (not bad, f"every value finite ({len(bad)} inf or nan"
           + (f", first: {row_name(bad[0])}" if bad else "") + ")")
    times = [r for r in rows if r["unit"] in TIME_UNITS]
    zero = [r for r in times if r["value"] <= 0]
    yield (times and not zero,
           f"every timing above zero ({len(zero)} of {len(times)} not"
           + (f", first: {row_name(zero[0])}" if zero else "") + ")")
    # A tick-driven clock gives the same few values over and over (the
    # x86_64 guest once gave 4000250 ns to 130 of 530 timings): with a
    # fine clock no timing of a millisecond or more repeats often.
    ms = collections.Counter(round(r["value"] * TIME_UNITS[r["unit"]])
                             for r in times
                             if r["value"] * TIME_UNITS[r["unit"]] >= 1e6)
    top, count = ms.most_common(1)[0] if ms else (0, 0)
    total = sum(ms.values())
    yield (count < 5 or count * 20 < total,
           f"timings not quantised to a tick (the commonest timing of 1 ms "
           f"or more, {top} ns, is {count} of {total})")


def plan_positions(path):
    """{point: {backend: Counter(position)}} from bench-matrix's plan.txt,
    which it runs line by line in order: a block is the backends of one
    point in one repetition (consecutive lines that differ only in the
    backend), a point its program, arguments and swap setting."""
    points, swap, block, prev = {}, "none", [], None
    with open(path, encoding="utf-8") as f:
        lines = [line.split() for line in f if line.strip()]
    lines.append(None)
    for words in lines:
        if words and words[0] == "@swap":
            swap = words[2] if len(words) > 2 else "?"
            continue
        key = None
        if words:
            fam, prog, backend, args = words[0], words[1], words[2], words[3:]
            rep = args[args.index("--rep") + 1] if "--rep" in args[:-1] \
                else "?"
            args = [a for i, a in enumerate(args) if a != "--rep" and
                    (i == 0 or args[i - 1] != "--rep")]
            key = (f"{fam} {prog} {' '.join(args)} swap={swap}", rep)
        if key != prev and block:
            point = prev[0]
            for pos, b in enumerate(block):
                points.setdefault(point, {}).setdefault(
                    b, collections.Counter())[pos] += 1
            block = []
        if words:
            block.append(backend)
        prev = key
    return points


def csv_positions(data):
    """The same from rows of metric order_pos (the 1-based position of
    the run's backend in its block), where the benchmark writes them."""
    points = {}
    for fam, rows in data.items():
        for r in rows:
            if r["metric"] == "order_pos":
                point = f"{fam} {r['bench']} {r['pname']}={r['pvalue']:g}"
                # 0-based, as plan_positions() counts.
                points.setdefault(point, {}).setdefault(
                    r["backend"], collections.Counter())[
                        int(r["value"]) - 1] += 1
    return points


def order_check(d, data, opts):
    """(ok, what): every backend took each position of its blocks equally
    often (within one, when the repetitions are not a multiple of the
    block's size), as a Latin square or a rotation gives."""
    what = ("backend order balanced: each backend takes each position in "
            "its point's blocks equally often (within 1)")
    if opts["quick"]:
        return True, what + " # SKIP a quick run: its numbers are not judged"
    points, source = csv_positions(data), "order_pos rows"
    plan = os.path.join(d, "plan.txt")
    if not points and os.path.exists(plan):
        points, source = plan_positions(plan), "plan.txt"
    if not points:
        if opts["require_order"]:
            return False, what + "; order not recorded (no order_pos rows, no plan.txt)"
        return True, what + " # SKIP order not recorded"
    bad = []
    for point, per in sorted(points.items()):
        size = max(len(per), max(p for c in per.values() for p in c) + 1)
        for b, c in sorted(per.items()):
            counts = [c.get(p, 0) for p in range(size)]
            if max(counts) - min(counts) > 1:
                top = max(range(size), key=lambda p: counts[p])
                bad.append(f"{b} at position {top + 1} in {counts[top]} of "
                           f"{sum(counts)} blocks of '{point}'")
                break
    return (not bad, what + f" (from {source}): "
            + (f"{len(bad)} of {len(points)} points unbalanced, e.g. "
               + "; ".join(bad[:3]) if bad else f"{len(points)} points"))
