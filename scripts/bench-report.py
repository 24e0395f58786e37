#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check, plot and report the comparison's CSV (bench/, make bench).

  bench-report.py check DIR          sanity of DIR's CSV and graphs, as TAP
  bench-report.py plot DIR           DIR/*.svg and DIR/*.png with gnuplot
  bench-report.py report OUT DIR...  OUT (markdown) from one DIR per arch

Each DIR holds pin.csv, purge.csv and cache.csv as bench-matrix writes
them: "# key: value" metadata lines, then the header
backend,bench,param,value,metric,unit,rep and one row per measurement.
Every number in the report comes from those files; a malformed file is
an error naming the file and line, and nothing is written.
"""

import collections
import math
import os
import random
import statistics
import subprocess
import sys

HEADER = "backend,bench,param,value,metric,unit,rep"
FAMILIES = ("pin", "purge", "cache")
BACKENDS = ("ashmem", "volatile", "anon", "memfd", "madvfree", "pinned",
            "dontneed")
# lru: a userspace LRU with a budget found by search; belady: the offline
# optimum on the same trace and budget (added with appbench; older runs
# sized lru by a formula and have no belady).
CACHE_BACKENDS = BACKENDS + ("lru", "belady")
# sharebench: regions handed from a producer to a consumer through the fd
# (share.csv, from series b73e0cb909 on; older runs have none).
SHARE = "share"
SHARE_BACKENDS = ("ashmem", "volatile", "memfd")
# appbench (Android's regime) and conbench (concurrency), added with the
# guest's CONFIG_PSI; older runs have neither.
APP = "app"
APP_BACKENDS = ("pinned", "memfd", "ashmem", "madvfree", "volatile")
# Android's and Chromium's userspace model (issue 17): a purge manager on
# a PSI trigger of 10, 50 or 150 ms of stall per second, and the trim
# model; run without swap only.
USER_BACKENDS = ("upsi-10ms", "upsi-50ms", "upsi-150ms", "utrim")
# Every backend a graph may draw, in the order of their colours.
PLOT_BACKENDS = CACHE_BACKENDS + USER_BACKENDS
CONC = "concurrency"
# Kernel against userspace (section 5 and the answer): metric, what, and
# whether more is better (None: neither; over-purge near 1 is the aim,
# and a manager that never purged has 0).
USER_MEASURES = (("hit_rate", "hit rate", True),
                 ("launch_ms_p50", "launch p50", False),
                 ("session_s", "foreground time", False),
                 ("psi_some_pct", "PSI some", False),
                 ("psi_some_avg10_max", "PSI some avg10 max", False),
                 ("freed_ms_p50", "onset to freed p50", False),
                 ("freed_ms_max", "onset to freed max", False),
                 ("overpurge", "over-purge", None))
# Graphs of measures older runs do not have (appbench before 2026-12-05).
OPTIONAL_GRAPHS = ("app_freed",)
CONC_BACKENDS = ("ashmem", "volatile", "anon", "madvfree", "memfd")
# Benchmarks measured for some backends only.
BENCH_BACKENDS = {"pin_regions": ("ashmem", "volatile"),
                  # the hole punch needs a shmem file: a reference row
                  "purge_punchhole": ("volatile", "memfd")}
OPTIONAL_FAMILIES = (SHARE, APP, CONC)
META_KEYS = ("kernel", "series", "machine", "accel", "ram_mib", "cpus",
             "date", "clocksource", "clock_res_ns", "clock_step_ns")

# The foreground's OOM kills (purgebench --mode limit|global, issue 26):
# left_at_kill_mib is written only by a run whose foreground was killed;
# the vmstat deltas only where the kernel keeps the counter (volatile and
# anon only for the engine's own); the trace rows only where tracefs has
# the volatile_ranges events.  Older runs have none of them.
OOM_BENCHES = (("purge_limit", "under memory.max"),
               ("purge_global", "under global pressure"))
ENGINE_BACKENDS = ("volatile", "anon")
SKIP_REASONS = ("nofs", "sem", "ilock", "freeing", "mm", "mmap", "busy",
                "locked")
NOT_MEASURED = "not measured"

# Units of timings, in ns.
TIME_UNITS = {"ns": 1, "us": 1e3, "ms": 1e6}
# A clock that steps by more than this cannot time a pin or a page fault.
MAX_CLOCK_STEP_NS = 1000


class BadInput(Exception):
    pass


def read_csv(path):
    """(metadata dict, list of row dicts) of one CSV file."""
    meta, rows, header_seen = {}, [], False
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    with f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = f"{path}:{n}"
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if not sep:
                    raise BadInput(f"{where}: metadata line without ':'")
                meta[key.strip()] = value.strip()
                continue
            if not header_seen:
                if line != HEADER:
                    raise BadInput(f"{where}: expected the header '{HEADER}'")
                header_seen = True
                continue
            fields = line.split(",")
            if len(fields) != 7:
                raise BadInput(f"{where}: {len(fields)} fields, expected 7")
            backend, bench, param, value, metric, unit, rep = fields
            try:
                value = float(value)
                rep = int(rep)
            except ValueError:
                raise BadInput(f"{where}: value or rep is not a number")
            if "=" not in param:
                raise BadInput(f"{where}: param '{param}' is not name=value")
            name, _, pvalue = param.partition("=")
            try:
                pvalue = float(pvalue)
            except ValueError:
                raise BadInput(f"{where}: param value '{pvalue}' is not a number")
            rows.append(dict(backend=backend, bench=bench, pname=name,
                             pvalue=pvalue, value=value, metric=metric,
                             unit=unit, rep=rep))
    if not header_seen:
        raise BadInput(f"{path}: no header line")
    return meta, rows


def load(d):
    data, meta = {}, {}
    for fam in FAMILIES:
        m, rows = read_csv(os.path.join(d, fam + ".csv"))
        data[fam] = rows
        meta = meta or m
    for fam in OPTIONAL_FAMILIES:
        path = os.path.join(d, fam + ".csv")
        data[fam] = read_csv(path)[1] if os.path.exists(path) else []
    return meta, data


class Table:
    """Medians over repetitions of (bench, backend, param, metric)."""

    def __init__(self, rows):
        # (bench, backend, param, metric) -> {rep: value}
        self.by_rep = {}
        for r in rows:
            key = (r["bench"], r["backend"], r["pvalue"], r["metric"])
            self.by_rep.setdefault(key, {})[r["rep"]] = r["value"]

    def all(self, bench, backend, pvalue, metric):
        return list(self.by_rep.get((bench, backend, pvalue, metric),
                                    {}).values())

    def at(self, bench, backend, pvalue, metric, rep):
        return self.by_rep.get((bench, backend, pvalue, metric),
                               {}).get(rep)

    def reps(self, bench, backend, pvalue, metric):
        return sorted(self.by_rep.get((bench, backend, pvalue, metric), {}))

    def median_run(self, bench, backend, pvalue, metric):
        """The repetition whose @metric is the (lower) median: its other
        metrics are shown with it, so that a row never mixes runs."""
        runs = sorted((v, rep) for rep, v in
                      self.by_rep.get((bench, backend, pvalue, metric),
                                      {}).items())
        return runs[(len(runs) - 1) // 2][1] if runs else None

    def get(self, bench, backend, pvalue, metric):
        v = self.all(bench, backend, pvalue, metric)
        return statistics.median(v) if v else None

    def spread(self, bench, backend, pvalue, metric):
        v = self.all(bench, backend, pvalue, metric)
        return (min(v), max(v)) if v else (None, None)

    def params(self, bench):
        return sorted({k[2] for k in self.by_rep if k[0] == bench})

    def backends(self, bench):
        return {k[1] for k in self.by_rep if k[0] == bench}


# ---------------------------------------------------------------- check


def check(d):
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
    for fam, want in (("pin", BACKENDS), ("purge", BACKENDS),
                      ("cache", CACHE_BACKENDS)):
        t = Table(data[fam])
        benches = sorted({r["bench"] for r in data[fam]})
        missing = [f"{b}:{x}" for b in benches
                   for x in BENCH_BACKENDS.get(b, want)
                   if x not in t.backends(b)]
        result(benches and not missing,
               f"{fam}.csv: every backend in every benchmark "
               f"({', '.join(benches) or 'none'})"
               + (f"; missing {', '.join(missing)}" if missing else ""))
    t = Table(data[SHARE])
    missing = [b for b in SHARE_BACKENDS if b not in t.backends(SHARE)]
    result(data[SHARE] and not missing,
           "share.csv: every fd-sharing backend"
           + (f"; missing {', '.join(missing)}" if missing else ""))
    bad = sum(r["value"] for r in data[SHARE]
              if r["metric"] == "handoff_bad")
    result(bad == 0 and any(r["metric"] == "handoff_bad"
                            for r in data[SHARE]),
           f"shared regions: the consumer found every region intact or "
           f"reported purged ({bad:g} bad)")
    for fam, want in ((APP, APP_BACKENDS + USER_BACKENDS),
                      (CONC, CONC_BACKENDS)):
        t = Table(data[fam])
        benches = sorted({r["bench"] for r in data[fam]})
        missing = [f"{b}:{x}={p:g}" for b in benches for x in want
                   for p in t.params(b)
                   if not t.all(b, x, p, t_metric(fam))
                   and not (x in USER_BACKENDS and p != 0)]
        result(benches and not missing,
               f"{fam}.csv: every backend at every point "
               f"({', '.join(benches) or 'none'})"
               + (f"; missing {', '.join(missing)}" if missing else ""))
    app = data[APP]
    fails = sum(r["value"] for r in app if r["metric"] == "verify_failures")
    result(fails == 0 and any(r["metric"] == "verify_failures" for r in app),
           f"apps' cache hits verified byte for byte: {fails:g} failures")
    swaps = sorted({r["pvalue"] for r in app})
    result(len(swaps) == 2 and swaps[0] == 0,
           "Android's regime ran without swap and with zram swap "
           f"(swap MiB seen: {', '.join(f'{x:g}' for x in swaps)})")
    psi = [r for r in app if r["metric"].startswith("psi_")
           and not 0 <= r["value"] <= 100]
    result(not psi and any(r["metric"] == "psi_some_pct" for r in app),
           "PSI shares within [0, 100] %"
           + (f"; first bad: {row_name(psi[0])}" if psi else ""))
    cache = data["cache"]
    bad = [r for r in cache if r["metric"] == "hit_rate"
           and not 0 <= r["value"] <= 1]
    result(not bad and any(r["metric"] == "hit_rate" for r in cache),
           "cache hit rates within [0, 1]")
    fails = sum(r["value"] for r in cache if r["metric"] == "verify_failures")
    result(fails == 0 and any(r["metric"] == "verify_failures"
                              for r in cache),
           f"cache hits verified byte for byte: {fails:g} failures")
    purge = [r for r in data["purge"] if r["metric"] == "purged_mib"]
    vol = [r["value"] for r in purge
           if r["backend"] == "volatile" and r["bench"] == "purge_reclaim"]
    result(vol and min(vol) > 0,
           "memory.reclaim purged volatile data in every repetition")
    missing = oom_kills_unmeasured(data["purge"])
    if missing is not None:
        result(not missing, "every OOM kill of a purge run recorded the "
               "unpinned data it left"
               + (f"; missing in {', '.join(missing[:5])}" if missing
                  else ""))
    failed = os.path.join(d, "failed-runs.txt")
    result(not os.path.exists(failed),
           "no benchmark run failed" + ("" if not os.path.exists(failed)
                                        else ": see " + failed))
    has_freed = any(r["metric"] == "pressure_episodes" for r in app)
    if has_freed:
        runs = {(r["backend"], r["pvalue"], r["rep"]) for r in app}
        with_ep = {(r["backend"], r["pvalue"], r["rep"]) for r in app
                   if r["metric"] == "pressure_episodes"}
        result(runs == with_ep,
               "every app run measured its pressure episodes "
               f"({len(with_ep)} of {len(runs)})")
        bad = [r for r in app if r["metric"] in
               ("freed_ms_p50", "freed_ms_p99", "freed_ms_max", "overpurge",
                "needed_mib", "purged_mib", "stall_ms_p50", "stall_ms_max")
               and not (math.isfinite(r["value"]) and r["value"] >= 0)]
        result(not bad, "onset-to-freed times, needed and purged MiB "
               "finite and non-negative"
               + (f"; first bad: {row_name(bad[0])}" if bad else ""))
    # A run without pressure (the quick one) has no episode to draw.
    drawn = {m for g in GRAPHS if g[0] in OPTIONAL_GRAPHS for m in g[3]}
    has_episodes = any(r["metric"] in drawn for r in app)
    for g in GRAPHS:
        if g[0] in OPTIONAL_GRAPHS and not has_episodes:
            continue
        for ext in ("svg", "png"):
            p = os.path.join(d, f"{g[0]}.{ext}")
            result(os.path.exists(p) and os.path.getsize(p) > 1000,
                   f"graph {g[0]}.{ext} rendered")
    print(f"1..{len(results)}")
    for n, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} bench: {what}")
    return 0 if all(ok for ok, _ in results) else 1


def oom_kills_unmeasured(rows):
    """The runs ("backend bench param rep") whose foreground was killed
    but that wrote no left_at_kill_mib, among runs that wrote the vmstat
    OOM delta (the same purgebench); None when no run did (older CSV)."""
    new = {(r["backend"], r["bench"], r["pvalue"], r["rep"]) for r in rows
           if r["metric"] == "oom_kills_vmstat"}
    if not new:
        return None
    left = {(r["backend"], r["bench"], r["pvalue"], r["rep"]) for r in rows
            if r["metric"] == "left_at_kill_mib"}
    return [f"{k[0]} {k[1]} mib={k[2]:g} rep {k[3]}" for k in sorted(
        (r["backend"], r["bench"], r["pvalue"], r["rep"]) for r in rows
        if r["metric"] == "oom_kills" and r["value"] > 0)
        if k in new and k not in left]


def t_metric(fam):
    """A metric every run of family @fam writes."""
    return "hit_rate" if fam == APP else "pairs_per_s"


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


def row_name(r):
    return (f"{r['backend']} {r['bench']} {r['pname']}={r['pvalue']:g} "
            f"{r['metric']} = {r['value']:g}")


# ----------------------------------------------------------------- plot

# name, family, bench, metrics, x label, y label, log axes, title
GRAPHS = (
    ("pin_size", "pin", "pin_size", ("pair_ns_p50",),
     "region size (KiB)", "unpin + pin, ns (p50)", "xy",
     "Cost of one unpin + pin of a whole region"),
    ("pin_frag", "pin", "pin_frag", ("unpin_ns_p50", "pin_ns_p50"),
     "unpinned one-page fragments in a 64 MiB region", "ns per call (p50)",
     "xy", "Cost per call with k fragments"),
    ("purge_reclaim", "purge", "purge_reclaim", ("purge_mib_per_s",),
     "unpinned data (MiB)", "MiB purged per second (log)", "y",
     "memory.reclaim of the cgroup: purge throughput"),
    ("purge_stall", "purge", "purge_limit",
     ("stall_ms_p50", "stall_ms_p99"), "unpinned data (MiB)",
     "foreground stall per MiB, ms", "",
     "Foreground allocation under memory.max"),
    ("purge_global", "purge", "purge_global",
     ("stall_ms_p50", "stall_ms_p99"), "unpinned data (MiB)",
     "foreground stall per MiB, ms", "",
     "Foreground allocation under global pressure"),
    ("cache_hit", "cache", "cache_regions", ("hit_rate",),
     "memory.max (MiB; 0 = none)", "hit rate", "",
     "Image cache, one region per object: hit rate"),
    ("cache_hit_arena", "cache", "cache_arena", ("hit_rate",),
     "memory.max (MiB; 0 = none)", "hit rate", "",
     "Image cache, one arena: hit rate"),
    ("cache_hit_competitor", "cache", "cache_regions_competitor",
     ("hit_rate",), "memory.max (MiB; 0 = none)", "hit rate", "",
     "Image cache with a competing process: hit rate"),
    ("pin_regions", "pin", "pin_regions", ("unpin_ns_p50", "pin_ns_p50"),
     "live regions in the process", "ns per call (p50)", "xy",
     "Unpin and pin of one of R regions"),
    ("app_hit", APP, APP, ("hit_rate",), "swap (MiB of zram; 0 = none)",
     "hit rate", "", "Android regime: cache hit rate of the apps"),
    ("app_launch", APP, APP, ("launch_ms_p50", "launch_ms_max"),
     "swap (MiB of zram; 0 = none)", "launch latency, ms (log)", "y",
     "Android regime: latency of the app switched to"),
    ("app_psi", APP, APP, ("psi_some_pct", "psi_full_pct"),
     "swap (MiB of zram; 0 = none)", "% of the run stalled on memory", "",
     "Android regime: memory pressure stall (PSI)"),
    ("app_freed", APP, APP, ("freed_ms_p50", "freed_ms_max"),
     "swap (MiB of zram; 0 = none)",
     "onset of pressure to freed, ms (log)", "y",
     "Android regime: from free memory below the low watermark to above "
     "the high one"),
    ("concurrency_threads", CONC, "concurrency_threads", ("pairs_per_s",),
     "threads, each with its own regions", "unpin + pin pairs/s (log)",
     "xy", "Concurrency, threads of one process: throughput"),
    ("concurrency_procs", CONC, "concurrency_procs", ("pairs_per_s",),
     "processes, each with its own regions", "unpin + pin pairs/s (log)",
     "xy", "Concurrency, processes: throughput"),
)


def plot(d):
    meta, data = load(d)
    where = (f"{os.path.basename(os.path.normpath(d))}: "
             f"{meta.get('machine', '?')}, {meta.get('accel', '?')}")
    for name, fam, bench, metrics, xl, yl, logs, title in GRAPHS:
        t = Table(data[fam])
        xs = t.params(bench)
        backends = [b for b in PLOT_BACKENDS if b in t.backends(bench)]
        # Benchmarks older runs do not have are left out of their graphs.
        if (not xs or not backends) and (
                fam in OPTIONAL_FAMILIES or
                name in ("purge_global", "pin_regions")):
            continue
        # Measures added later (app_freed) are absent from older runs.
        if not any(r["metric"] in metrics for r in data[fam]) and \
                name in OPTIONAL_GRAPHS:
            continue
        if not xs or not backends:
            raise BadInput(f"{d}: no data for graph {name} ({bench})")
        dat = os.path.join(d, name + ".dat")
        cols = []
        # A point of a run that was OOM-killed (in most of its runs) is
        # drawn again as a cross.
        oom = fam == "purge" or fam == APP
        with open(dat, "w", encoding="utf-8") as f:
            f.write("# x " + " ".join(f"{b}:{m}" for b in backends
                                       for m in metrics) +
                    (" " + " ".join(f"{b}:oom" for b in backends)
                     if oom else "") + "\n")
            for x in xs:
                vals = []
                for b in backends:
                    for m in metrics:
                        v = t.get(bench, b, x, m)
                        vals.append("NaN" if v is None or
                                    ("y" in logs and v <= 0)
                                    else f"{v:.6g}")
                if oom:
                    for b in backends:
                        k = [sum(n) for n in zip(
                            *(t.all(bench, b, x, m) for m in
                              ("oom_kills", "oom_kills_bg", "oom_kills_fg")
                              if t.all(bench, b, x, m)))]
                        v = t.get(bench, b, x, metrics[-1])
                        killed = sum(1 for n in k if n > 0) * 2 > len(k)
                        vals.append(f"{v:.6g}" if killed and v and
                                    not ("y" in logs and v <= 0)
                                    else "NaN")
                f.write(f"{x:g} " + " ".join(vals) + "\n")
        col = 2
        for b in backends:
            # One colour per backend in every graph, one dash per metric.
            color = PLOT_BACKENDS.index(b) + 1
            for dash, m in enumerate(metrics, 1):
                label = b if len(metrics) == 1 else \
                    f"{b} {m.rsplit('_', 1)[-1]}"
                if b == "lru":
                    cols.append(f"'{dat}' using 1:{col} with lines lc "
                                "rgb 'black' dt 2 lw 2 "
                                "title 'lru (reference, budget searched)'")
                elif b == "belady":
                    cols.append(f"'{dat}' using 1:{col} with lines lc "
                                "rgb 'gray40' dt 3 lw 2 "
                                "title 'Belady optimum, lru budget'")
                else:
                    cols.append(f"'{dat}' using 1:{col} with linespoints "
                                f"lc {color} dt {dash} title '{label}'")
                col += 1
        if oom:
            for i, b in enumerate(backends):
                cols.append(f"'{dat}' using 1:{col + i} with points pt 2 "
                            f"ps 2 lc {PLOT_BACKENDS.index(b) + 1} "
                            + ("title 'OOM-killed (most runs)'" if i == 0
                               else "notitle"))
        label = f"{title} ({where})".replace("'", "''")
        script = [f"set title '{label}' noenhanced",
                  f"set xlabel '{xl}'",
                  f"set ylabel '{yl}'", "set key outside right",
                  "set grid"]
        if len(xs) == 1:
            script.append(f"set xrange [{xs[0] / 2:g}:{xs[0] * 1.5:g}]")
        if "x" in logs:
            script.append("set logscale x 2")
        if "y" in logs:
            script.append("set logscale y 10")
        if fam == "cache" or name == "app_hit":
            script.append("set yrange [0:1]")
        if fam == APP:
            script.append(f"set xrange [-32:{max(xs) + 32:g}]")
            script.append("set xtics (" + ", ".join(
                f"'{x:g}' {x:g}" for x in xs) + ")")
        for term, ext in (("svg size 900,500 dynamic", "svg"),
                          ("pngcairo size 900,500", "png")):
            body = "\n".join([f"set terminal {term}",
                              f"set output '{os.path.join(d, name)}.{ext}'"]
                             + script + ["plot " + ", ".join(cols)]) + "\n"
            subprocess.run(["gnuplot"], input=body, text=True, check=True)
    return 0


# --------------------------------------------------------------- report


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    return f"{v:.{digits}g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


BOOTSTRAP_RESAMPLES = 2000


def ratio_ci(a, b, seed=20261204):
    """95% bootstrap interval of median(a) / median(b), each resampled
    with replacement on its own; None with fewer than 3 runs a side or a
    zero median in a resample."""
    if len(a) < 3 or len(b) < 3:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        mb = statistics.median(rng.choices(b, k=len(b)))
        if mb == 0:
            return None
        ratios.append(statistics.median(rng.choices(a, k=len(a))) / mb)
    ratios.sort()
    return (ratios[int(0.025 * len(ratios))],
            ratios[int(0.975 * len(ratios)) - 1])


def fmt_ratio(a, b):
    """median(a) / median(b) [95% bootstrap interval]."""
    r = ratio(statistics.median(a) if a else None,
              statistics.median(b) if b else None)
    ci = ratio_ci(a, b) if r is not None else None
    return fmt(r) + (f" [{fmt(ci[0])}-{fmt(ci[1])}]" if ci else "")


def k_of_n(values, pred):
    """How many of @values satisfy @pred, as "k of n"."""
    return f"{sum(1 for v in values if pred(v))} of {len(values)}" \
        if values else "n/a"


def size_label(kib):
    return f"{kib / 1024:g} MiB" if kib >= 1024 else f"{kib:g} KiB"


def pick(values, want):
    """@want if measured, else the largest value measured below it."""
    below = [v for v in values if v <= want]
    return want if want in values else (max(below) if below else
                                        (min(values) if values else None))


def headline(pin, purge, cache, w):
    sizes = pin.params("pin_size")
    frags = pin.params("pin_frag")
    mib = pick(purge.params("purge_limit"), 64)
    limits = [x for x in cache.params("cache_regions") if x > 0]
    tight = min(limits) if limits else None
    rows = []
    if sizes:
        for x in (min(sizes), max(sizes)):
            rows.append((f"unpin + pin of a {size_label(x)} region, "
                         "p50 ns", pin, "pin_size", x, "pair_ns_p50"))
        rows.append((f"the same, {size_label(min(sizes))}, as bare system "
                     "calls (no library), p50 ns", pin, "pin_size",
                     min(sizes), "kernel_pair_ns_p50"))
    if frags:
        x = max(frags)
        for what in ("unpin", "pin"):
            rows.append((f"{what} per call with {x:g} fragments, p50 ns",
                         pin, "pin_frag", x, f"{what}_ns_p50"))
    if mib is not None:
        rows += [(f"memory.reclaim purge of {mib:g} MiB, MiB/s", purge,
                  "purge_reclaim", mib, "purge_mib_per_s"),
                 (f"stall p99 under memory.max, {mib:g} MiB data, ms",
                  purge, "purge_limit", mib, "stall_ms_p99"),
                 (f"OOM kills under memory.max, {mib:g} MiB data", purge,
                  "purge_limit", mib, "oom_kills"),
                 (f"stall p99 under global pressure, {mib:g} MiB data, ms",
                  purge, "purge_global", mib, "stall_ms_p99")]
        if purge.params("purge_rootreclaim"):
            rows += [(f"root memory.reclaim purge of {mib:g} MiB (reaches "
                      "ashmem's shrinker), MiB/s", purge,
                      "purge_rootreclaim", mib, "purge_mib_per_s"),
                     (f"purge everything ({mib:g} MiB data; ashmem: "
                      "PURGE_ALL_CACHES), MiB/s", purge, "purge_purgeall",
                      mib, "purge_mib_per_s"),
                     (f"over-purge under global pressure, {mib:g} MiB "
                      "data, purged / needed", purge, "purge_global", mib,
                      "overpurge"),
                     (f"time to finish under global pressure, {mib:g} MiB "
                      "data, ms", purge, "purge_global", mib,
                      "fg_total_ms")]
    if tight is not None:
        for bench in ("cache_regions", "cache_arena",
                      "cache_regions_competitor"):
            rows.append((f"hit rate, {bench}, memory.max {tight:g} MiB",
                         cache, bench, tight, "hit_rate"))
        loose = max(limits)
        rows.append((f"cache operations per second, cache_regions, "
                     f"memory.max {loose:g} MiB", cache, "cache_regions",
                     loose, "ops_per_s"))
    w("| measure | " + " | ".join(BACKENDS) + " | "
      "volatile / ashmem | volatile / pinned | volatile / dontneed | "
      "ashmem / pinned | ashmem / dontneed |")
    w("|---" * 11 + "|")
    for label, t, bench, x, metric in rows:
        v = {b: t.get(bench, b, x, metric) for b in BACKENDS}
        if metric == "oom_kills":
            cells = [k_of_n(t.all(bench, b, x, metric),
                                   lambda k: k > 0) for b in BACKENDS]
            ratios = ["n/a"] * 5
        else:
            cells = [fmt(v[b]) for b in BACKENDS]
            ratios = [fmt_ratio(t.all(bench, a, x, metric),
                                t.all(bench, b, x, metric)) for a, b in
                      (("volatile", "ashmem"), ("volatile", "pinned"),
                       ("volatile", "dontneed"), ("ashmem", "pinned"),
                       ("ashmem", "dontneed"))]
        w(f"| {label} | " + " | ".join(cells) + " | "
          + " | ".join(ratios) + " |")
    w("")
    w("Values: medians over the repetitions; OOM kills: runs with a kill, "
      "k of n. Ratios: of the medians, with a 95% bootstrap interval in "
      f"brackets ({BOOTSTRAP_RESAMPLES} resamples of each side's runs, "
      "fixed seed); n/a: a ratio to zero, or a value not measured. "
      "Latencies: lower is better; throughput and hit rates: higher is "
      "better. Every run of these measures is in the appendix.\n")
    return rows


# Why a target of the range engine is missed, where the report says so:
# what was measured, and where (the numbers are in the commit messages
# and kernel/README.md, not typed here).
TARGET_WHY = {
    "pin": "unpin + pin: the row below it times the bare system calls: "
    "two no-op madvise() calls already cost about as much as ashmem's two "
    "ioctls on this guest, and the volatile work (the range descriptor, "
    "the list, the NR_VOLATILE counters, the merge attempt, the anon_vma "
    "lock; each switched off in turn in a throw-away build, "
    "kernel/README.md) adds the rest. Both libraries fstat() the fd on "
    "every call, which brings the library ratio down to the one shown.",
    "reclaim": "memory.reclaim purge: MADV_DONTNEED frees a PMD-mapped "
    "THP by clearing one PMD, a purge must leave a purged entry for each "
    "of its 512 pages and runs inside reclaim (memory.reclaim's loop, the "
    "priorities, one shrinker call per chunk). With THP off, volatile "
    "purges at about 0.75x MADV_DONTNEED; the TLB flush and the scan "
    "batch size were measured not to matter (commit message of 'mm: "
    "purge a volatile THP whole instead of splitting it').",
    "hit": "hit rates: the range engine ages whole ranges, oldest marked "
    "first; the first series aged pages on the LRU, with referenced "
    "bits. A hot object marked long ago goes before a cold one marked "
    "later. In the arena layout, ranges inside THPs also cost a THP split "
    "at each purge ('mm/volatile: split a THP that a purge unmaps in "
    "part' gives its numbers with THP on and off).",
    "stall": "stall under global pressure: see the purge-latency section "
    "below for every size and run.",
}


def engine_rows(eng, pin, purge, cache, pin0, purge0, cache0, sizes, row,
                worst):
    """The target rows of one engine: @eng in this run, "volatile" in
    the first series'."""
    r0 = worst(pin0, "pin_size", pin0.params("pin_size"), "volatile",
               "ashmem", "pair_ns_p50", max)
    r = worst(pin, "pin_size", sizes, eng, "ashmem", "pair_ns_p50",
              max)
    if eng == "anon":
        # No library on anon's side, libashmem_driver on ashmem's: not a
        # pair to judge; the bare system calls below are.
        row("unpin + pin p50, anon (no library) / ashmem (its library), "
            "worst size", r0, r, "<= 1.0", None)
    else:
        row(f"unpin + pin p50, {eng} / ashmem, worst size", r0, r,
            "<= 1.0", None if r is None else r <= 1.0, "pin")
    r = worst(pin, "pin_size", sizes, eng, "ashmem",
              "kernel_pair_ns_p50", max)
    row(f"{eng}: the same as bare system calls (against ioctl), worst size",
        None, r, "(where the cost is)", None)

    def purge_ratios(bench, x, metric, den):
        """volatile / @den in the first series, @eng / @den in this one."""
        return tuple(ratio(t.get(bench, e, x, metric),
                           t.get(bench, den, x, metric))
                     for t, e in ((purge0, "volatile"), (purge, eng)))

    mib = pick(purge.params("purge_reclaim"), 64)
    if mib is not None:
        r0, r = purge_ratios("purge_reclaim", mib, "purge_mib_per_s",
                             "dontneed")
        row(f"memory.reclaim purge of {mib:g} MiB, {eng} / dontneed",
            r0, r, ">= 0.5", None if r is None else r >= 0.5, "reclaim")
        r0, r = purge_ratios("purge_global", mib, "stall_ms_p99",
                             "dontneed")
        row(f"global pressure, {mib:g} MiB: stall p99, {eng} / dontneed",
            r0, r, "<= 2", None if r is None else r <= 2, "stall")
        r0, r = purge_ratios("purge_global", mib, "stall_ms_max", "ashmem")
        row(f"global pressure, {mib:g} MiB: stall max, {eng} / ashmem",
            r0, r, "<= 1", None if r is None else r <= 1, "stall")
    for bench in ("cache_regions", "cache_arena", "cache_regions_competitor"):
        for x in cache.params(bench):
            if x <= 0:
                continue
            v0 = cache0.get(bench, "volatile", x, "hit_rate")
            v = cache.get(bench, eng, x, "hit_rate")
            row(f"hit rate of {eng}, {bench}, memory.max {x:g} MiB", v0, v,
                ">= series v1", None if None in (v0, v) else v >= v0,
                "hit")


def targets(now, before, w):
    """The range engine's targets, against the first series' run."""
    pin, purge, cache = now
    pin0, purge0, cache0 = before
    rows, missed = [], []

    def row(what, v0, v, target, met, why=None):
        rows.append((what, fmt(v0), fmt(v), target,
                     "n/a" if met is None else ("met" if met else "MISSED")))
        if met is False and why and why not in missed:
            missed.append(why)

    def worst(t, bench, params, num, den, metric, f):
        rs = [ratio(t.get(bench, num, x, metric), t.get(bench, den, x, metric))
              for x in params]
        rs = [r for r in rs if r is not None]
        return f(rs) if rs else None

    sizes = pin.params("pin_size")
    # Since series b73e0cb909 "volatile" is ashmem-compat on memfd volatile
    # ranges and "anon" the anonymous engine; both are held to the
    # targets, against the first series' (anonymous) volatile.
    engines = [e for e in ("volatile", "anon")
               if e in pin.backends("pin_size")]
    for eng in engines:
        engine_rows(eng, pin, purge, cache, pin0, purge0, cache0, sizes,
                    row, worst)
    w("| measure | series v1 | this series | target | |")
    w("|---|---|---|---|---|")
    for r in rows:
        w("| " + " | ".join(r) + " |")
    w("")
    if missed:
        w("Why the missed targets are missed (measured for the anonymous "
          "engine: anon, and volatile up to series 7b2e33512a; where the "
          "memfd engine, volatile since b73e0cb909, misses a target, its "
          "causes were not measured apart):\n")
        for why in missed:
            w("- " + TARGET_WHY[why])
        w("")


def stall_notes(purge, bench, w):
    """What the stall table shows, and where volatile loses, why."""
    for x in purge.params(bench):
        g = lambda b, m: purge.get(bench, b, x, m)
        if (g("dontneed", "oom_kills") or 0) > 0:
            w(f"- {x:g} MiB: even dontneed, which released all its data "
              "at unpin, was OOM-killed: the foreground asked more than "
              "the guest can give at this point, so compare the stalls "
              "before the kill, not the OOM counts.")
            continue
        va, aa = g("volatile", "stall_ms_p99"), g("ashmem", "stall_ms_p99")
        if va is None or aa is None:
            continue
        if (g("ashmem", "oom_kills") or 0) > 0 and \
                (g("volatile", "oom_kills") or 0) == 0:
            w(f"- {x:g} MiB: ashmem's foreground was OOM-killed after "
              f"{fmt(g('ashmem', 'steps_done'))} of "
              f"{fmt(g('ashmem', 'steps_asked'))} steps with nothing "
              "purged; volatile's completed, purging "
              f"{fmt(g('volatile', 'purged_mib'))} MiB. ashmem's lower "
              "stall is that of a process that never got its memory.")
        elif va > aa:
            w(f"- {x:g} MiB: volatile's stall p99 is {fmt(va / aa)} times "
              "ashmem's. Not measured apart; from the mechanisms: both "
              "are purged by a shrinker in the allocating task's reclaim, "
              "ashmem's dropping whole ranges per call, volatile's zapping "
              "at most 2 MiB and at most what reclaim asked for per "
              "visit.")
        vm = g("madvfree", "stall_ms_p99")
        if vm:
            w(f"- {x:g} MiB: volatile / madvfree stall p99 = "
              f"{fmt(va / vm)} (madvfree pages are reclaimed from the "
              "LRU, volatile ranges by the shrinker of kernel patch 5).")
    w("")


def count(v):
    """A sum of counts, in full (fmt() rounds to 3 digits)."""
    if v is None:
        return NOT_MEASURED
    return f"{v:.0f}" if math.isfinite(v) else str(v)


def fmt_range(v):
    """median [min-max] of @v, or "n/a"."""
    if not v:
        return "n/a"
    return (f"{fmt(statistics.median(v))} [{fmt(min(v))}-{fmt(max(v))}]"
            if len(v) > 1 else fmt(v[0]))


def oom_point(t, bench, b, x):
    """What the kills of one backend at one point left, from its runs."""
    runs = t.by_rep.get((bench, b, x, "oom_kills"), {})
    left = t.by_rep.get((bench, b, x, "left_at_kill_mib"), {})
    purged = t.by_rep.get((bench, b, x, "purged_mib"), {})
    p = dict(runs=len(runs), kills=0, left=[], after=[], sizing=0,
             unmeasured=0)
    for rep, kills in runs.items():
        if not kills > 0:
            continue
        p["kills"] += 1
        v = left.get(rep)
        if v is None or not math.isfinite(v):
            p["unmeasured"] += 1
        elif v > 0:
            p["left"].append(v)
            # Purged by the count after the kill: a purge in flight.
            if rep in purged:
                p["after"].append(max(0.0, v + purged[rep] - x))
        else:
            p["sizing"] += 1
    return p


def kernel_sum(t, bench, b, x, metric):
    """Sum of @metric over the runs, or NOT_MEASURED / n/a."""
    v = t.all(bench, b, x, metric)
    if v:
        return fmt(sum(v))
    return NOT_MEASURED if b in ENGINE_BACKENDS else "n/a"


def report_oom_left(purge, w):
    """OOM kills of the foreground, and the unpinned data each left."""
    benches = [(bench, what) for bench, what in OOM_BENCHES
               if purge.params(bench)]
    if not benches:
        return
    measured = any(k[3] in ("left_at_kill_mib", "oom_kills_vmstat")
                   for k in purge.by_rep)
    w("#### OOM kills and what volatile memory was left\n")
    w("Per run whose foreground was OOM-killed, the unpinned data still "
      "resident (mincore()) as soon as the foreground was reaped, before "
      "the region was pinned to count the purge. A kill with data left "
      "(k, and the MiB left: median [min-max]) is the engine's: it "
      "killed while it could still purge. A kill that left nothing "
      "belongs to the test's sizing: the foreground asked for more than "
      "the guest had even with every unpinned page purged. \"purged "
      "after\": how much of what was left the count afterwards found "
      "purged (a purge in flight at the kill, too late). kernel: the sum "
      "of `volatile_oom_kill_left` in /proc/vmstat over the runs, the "
      "kills that found volatile ranges the purge before the kill could "
      "not get to (volatile and anon only). memfd and pinned have nothing "
      "purgeable: a kill always leaves all their data.\n")
    if not measured:
        w(f"{NOT_MEASURED.capitalize()}: these CSVs predate the "
          "`left_at_kill_mib` rows (purgebench before issue 26); the "
          "kills are counted, what they left is not.\n")
    w("| backend, data | mode | runs | runs with a kill | kills with "
      "data left: k, MiB left | of it purged after (MiB) | kills after "
      "every page was purged | kernel: volatile_oom_kill_left |")
    w("|---|---|---|---|---|---|---|---|")
    engine_kills, sizing_kills = [], []
    for bench, what in benches:
        for x in purge.params(bench):
            for b in BACKENDS:
                p = oom_point(purge, bench, b, x)
                if not p["runs"]:
                    continue
                if p["unmeasured"] == p["kills"] and p["kills"]:
                    left = after = NOT_MEASURED
                    sizing = NOT_MEASURED
                else:
                    left = (f"{len(p['left'])}: {fmt_range(p['left'])}"
                            if p["left"] else "0")
                    after = fmt_range(p["after"]) if p["after"] else "n/a"
                    sizing = (f"{p['sizing']} (sizing: nothing left to "
                              "purge)" if p["sizing"] else "0")
                    if p["unmeasured"]:
                        left += f"; {p['unmeasured']} {NOT_MEASURED}"
                w(f"| {b}, {x:g} MiB | {what} | {p['runs']} | "
                  f"{p['kills']} of {p['runs']} | {left} | {after} | "
                  f"{sizing} | "
                  f"{kernel_sum(purge, bench, b, x, 'volatile_oom_kill_left')} |")
                where = f"{b} {what} at {x:g} MiB"
                if b in ENGINE_BACKENDS and p["left"]:
                    engine_kills.append(f"{where} ({len(p['left'])} of "
                                        f"{p['runs']} runs)")
                if p["sizing"]:
                    sizing_kills.append(f"{where} ({p['sizing']} of "
                                        f"{p['runs']} runs)")
    w("")
    if engine_kills:
        w("Kills with volatile data left (the engine's): "
          + "; ".join(engine_kills) + ".\n")
    elif measured:
        w("No kill of the range engine's backends left volatile data "
          "resident.\n")
    if sizing_kills:
        w("Kills after every unpinned page was purged, which belong to "
          "the test's sizing (the foreground asked for more than the "
          "guest had), not to the engine: " + "; ".join(sizing_kills)
          + ".\n")


def report_skips(purge, w):
    """The volatile_ranges tracepoints over the foreground's runs."""
    points = [(bench, what, x, b) for bench, what in OOM_BENCHES
              for x in purge.params(bench) for b in BACKENDS
              if purge.all(bench, b, x, "shrink_calls")]
    if not any(purge.params(bench) for bench, _ in OOM_BENCHES):
        return
    w("#### The range shrinker: what it was asked, what it purged, what "
      "it skipped\n")
    if not points:
        w(f"{NOT_MEASURED.capitalize()}: no run has the volatile_ranges "
          "trace rows (purgebench before issue 26, or a kernel without "
          "the tracepoints).\n")
        return
    w("Sums over the traced runs of the `volatile_ranges` tracepoints "
      "during the foreground's run: shrinker calls (volatile_shrink_start) "
      "and the pages they were asked for (nr_to_scan), pages purged and "
      "kept (volatile_shrink_end), the ranges skipped by reason (nofs: a "
      "file range under GFP_NOFS; sem, ilock: a trylock failed; freeing: "
      "inode evicted; mm: mm exiting; mmap: mmap_read_trylock failed; "
      "busy: another CPU purging it, VR_BUSY; locked: mlocked or forking), "
      "the lowest reclaim priority seen (12 is the first pass, 0 the "
      "last), the purges before an OOM kill (volatile_oom: walks / "
      "pages), and the tracepoints' purged pages (shrinker + OOM) against "
      "`pgvolatile_purged` over the same window (trace / vmstat). Events "
      "lost to a full buffer make the sums lower bounds.\n")
    w("| backend, data | mode | traced runs | calls | pages asked | "
      "purged | kept | " + " | ".join(SKIP_REASONS)
      + " | lowest priority | OOM purges: walks / pages | trace / vmstat "
      "(pages) | events lost |")
    w("|---" * (11 + len(SKIP_REASONS)) + "|")
    mismatched = []
    for bench, what, x, b in points:
        def total(metric):
            v = purge.all(bench, b, x, metric)
            return sum(v) if v else None
        runs = len(purge.all(bench, b, x, "shrink_calls"))
        prio = purge.all(bench, b, x, "shrink_min_priority")
        traced = (total("shrink_purged_pages") or 0) + \
            (total("oom_purged_pages") or 0)
        counted = total("vmstat_purged_fg_pages")
        whole = total("vmstat_purged_pages")
        if b not in ENGINE_BACKENDS:
            versus = "n/a"
        elif counted is not None:
            versus = f"{count(traced)} / {count(counted)}"
            if traced != counted:
                calls, ends = total("shrink_calls"), total("shrink_ends")
                mismatched.append(
                    f"{b} {what} at {x:g} MiB ({count(traced)} traced, "
                    f"{count(counted)} counted"
                    + (f"; {count(calls - ends)} calls without an end "
                       "event" if ends is not None and calls != ends
                       else "") + ")")
        elif whole is not None:
            # An older purgebench: the counter over the whole program.
            versus = f"{count(traced)} / {count(whole)} (whole program)"
        else:
            versus = f"{count(traced)} / {NOT_MEASURED}"
        lost = total("trace_lost_events")
        w(f"| {b}, {x:g} MiB | {what} | {runs} | "
          f"{count(total('shrink_calls'))} | "
          f"{count(total('shrink_asked_pages'))} | "
          f"{count(total('shrink_purged_pages'))} | "
          f"{count(total('shrink_kept_pages'))} | "
          + " | ".join(count(total(f"skip_{r}")) for r in SKIP_REASONS)
          + f" | {fmt(min(prio)) if prio else 'n/a'} | "
          f"{count(total('oom_purge_calls'))} / "
          f"{count(total('oom_purged_pages'))} | {versus} | "
          f"{count(lost) if lost else 'none'} |")
    w("")
    if mismatched:
        w("The tracepoints and pgvolatile_purged disagree for: "
          + "; ".join(mismatched) + ". A purge in flight when the events "
          "were switched on or off counts in one and not the other; more "
          "than that is the kernel's to explain.\n")


def report_arch(arch, d, meta, data, out):
    pin, purge, cache = (Table(data[f]) for f in FAMILIES)
    secs = None
    info = os.path.join(d, "run-seconds.txt")
    if os.path.exists(info):
        secs = int(open(info, encoding="utf-8").read().split()[0])
    w = out.append
    w(f"## {arch}\n")
    w("| setting | value |\n|---|---|")
    for k in META_KEYS:
        w(f"| {k} | {meta.get(k, 'unknown')} |")
    if secs is not None:
        w(f"| `make bench ARCH={arch}` wall time | {secs // 60} min "
          f"{secs % 60} s |")
    w("")
    w("clock_res_ns is what clock_getres(CLOCK_MONOTONIC) reports: the "
      "timer resolution, which is the tick without "
      "CONFIG_HIGH_RES_TIMERS, not the resolution of a read. "
      "clock_step_ns is the smallest advance between two reads of the "
      "clock, measured by the program that wrote the CSV header: that is "
      "what bounds a timing, and the check fails a run whose step is "
      f"over {MAX_CLOCK_STEP_NS} ns or whose timings are zero, not finite "
      "or quantised to a tick.\n")
    w("### Headline ratios\n")
    head_rows = headline(pin, purge, cache, w)
    v1 = os.path.join(os.path.dirname(os.path.normpath(d)), "series-v1",
                      arch)
    if os.path.isdir(v1):
        _, data0 = load(v1)
        w("### The range engine's targets\n")
        w(f"Medians of this run against the first series' run "
          f"(`results/series-v1/{arch}`, LRU-based purging), same "
          "benchmarks and guest; the targets are those of the lab's "
          "issue 13. The kernel commit messages (`kernel/patches`) give "
          "the measurements behind each design choice. One difference: "
          "the cache benchmark ran 5000 operations per run in series v1, "
          "3000 in series 26c27ed9b1 and 2000 since series 22d1569ab5 "
          "(ten repetitions of everything must fit the hour), so its hit "
          "rates include relatively more of the cold start; compare them "
          "with that in mind.\n")
        targets((pin, purge, cache), tuple(Table(data0[f]) for f in
                                           FAMILIES), w)

    # 1. pin/unpin cost
    w("### 1. Pin/unpin cost\n")
    w(f"![pin_size]({arch}/pin_size.svg)\n")
    w("Unpin + pin of a whole region, p50 (p99), ns per pair; the ratio "
      "column is volatile / ashmem.\n")
    w("| size | " + " | ".join(BACKENDS) + " | volatile / ashmem |")
    w("|---" * (len(BACKENDS) + 2) + "|")
    losses = []
    for x in pin.params("pin_size"):
        cells = []
        for b in BACKENDS:
            cells.append(f"{fmt(pin.get('pin_size', b, x, 'pair_ns_p50'))} "
                         f"({fmt(pin.get('pin_size', b, x, 'pair_ns_p99'))})")
        r = ratio(pin.get("pin_size", "volatile", x, "pair_ns_p50"),
                  pin.get("pin_size", "ashmem", x, "pair_ns_p50"))
        if r is not None and r > 1:
            losses.append(size_label(x))
        w(f"| {size_label(x)} | " + " | ".join(cells) + f" | {fmt(r)} |")
    w("")
    if losses:
        w("volatile's pair is slower than ashmem's at: "
          + ", ".join(losses) + ". Not measured apart; from the "
          "mechanisms: neither unpin nor pin touches the pages (volatile: "
          "a VMA split, a flag and a list insertion, then a flag and a "
          "merge; ashmem: an edit of its list of ranges), so the "
          "difference is the fixed cost of the two paths (VMA split and "
          "merge under the mmap_lock, against an ioctl under one global "
          "mutex).\n")
    else:
        w("volatile's pair is not slower than ashmem's at any size "
          "measured.\n")
    w(f"![pin_frag]({arch}/pin_frag.svg)\n")
    w("k one-page fragments of a 64 MiB region, unpinned one by one then "
      "pinned one by one: ns per call, p50 (p99), and the process's VMAs "
      "while they are unpinned.\n")
    w("| k | ashmem unpin | volatile unpin | ratio | ashmem pin | "
      "volatile pin | ratio | VMAs (volatile) | VMAs (ashmem) |")
    w("|---|---|---|---|---|---|---|---|---|")
    frag_losses = []
    for x in pin.params("pin_frag"):
        row = [f"{x:g}"]
        for what in ("unpin", "pin"):
            a = pin.get("pin_frag", "ashmem", x, f"{what}_ns_p50")
            v = pin.get("pin_frag", "volatile", x, f"{what}_ns_p50")
            ap = pin.get("pin_frag", "ashmem", x, f"{what}_ns_p99")
            vp = pin.get("pin_frag", "volatile", x, f"{what}_ns_p99")
            row += [f"{fmt(a)} ({fmt(ap)})", f"{fmt(v)} ({fmt(vp)})",
                    fmt(ratio(v, a))]
            if ratio(v, a) and ratio(v, a) > 1:
                frag_losses.append(f"{what} at k={x:g}")
        row += [fmt(pin.get("pin_frag", "volatile", x, "vmas_unpinned")),
                fmt(pin.get("pin_frag", "ashmem", x, "vmas_unpinned"))]
        w("| " + " | ".join(row) + " |")
    w("")
    if frag_losses:
        w("volatile is slower per call than ashmem for: "
          + ", ".join(frag_losses) + ". Each volatile fragment splits the "
          "mapping's VMA (two more VMAs per fragment, see the VMA columns), "
          "and every madvise walks the VMA tree under mmap_lock; ashmem "
          "keeps a list of ranges per area under one global mutex, whose "
          "walk grows with k too.\n")

    report_orders(pin, w)
    report_regions(arch, pin, w)

    # 2. purge
    w("### 2. Purge latency\n")
    w(f"![purge_reclaim]({arch}/purge_reclaim.svg)\n")
    for bench, what in (
            ("purge_reclaim", "(a) `memory.reclaim` of the cgroup holding "
             "the unpinned data (dontneed: its MADV_DONTNEED, which is the "
             "release)"),
            ("purge_rootreclaim", "(a') the root cgroup's `memory.reclaim`, "
             "which also runs the shrinkers that are not memcg-aware: "
             "where ashmem's purge can be timed"),
            ("purge_purgeall", "(a'') everything purged at once: ashmem's "
             "ASHMEM_PURGE_ALL_CACHES ioctl; the others `vm.drop_caches = "
             "2` (drop_slab() runs every shrinker of every memcg; it does "
             "not free MADV_FREE pages)"),
            ("purge_punchhole", "(a''') the reference for file-backed "
             "purges: the kernel's own `fallocate(PUNCH_HOLE)` of the "
             "whole mapped memfd (volatile: the unpinned region; memfd), "
             "the ceiling of a purge by truncation")):
        if not purge.params(bench):
            continue
        counted = ("Dropped MiB are counted by mincore() before and "
                   "after." if bench == "purge_punchhole" else
                   "Purged MiB are counted by pinning page by page "
                   "afterwards, not assumed.")
        w(what + ". " + counted + " Median over the runs, min-max in "
          "brackets.\n")
        w("| backend | data (MiB) | purged (MiB) | time (ms) | MiB/s "
          "[min-max] | ratio to dontneed [95% CI] | kernel count (pages) |")
        w("|---|---|---|---|---|---|---|")
        for x in purge.params(bench):
            dn = purge.all(bench, "dontneed", x, "purge_mib_per_s")
            for b in BACKENDS:
                g = lambda m: purge.get(bench, b, x, m)
                lo, hi = purge.spread(bench, b, x, "purge_mib_per_s")
                w(f"| {b} | {x:g} | {fmt(g('purged_mib'))} | "
                  f"{fmt(g('release_ms'))} | {fmt(g('purge_mib_per_s'))} "
                  f"[{fmt(lo)}-{fmt(hi)}] | "
                  f"{fmt_ratio(purge.all(bench, b, x, 'purge_mib_per_s'), dn)}"
                  f" | {fmt(g('vmstat_purged_pages'))} |")
        w("")
    w(f"![purge_stall]({arch}/purge_stall.svg)\n")
    w(f"![purge_global]({arch}/purge_global.svg)\n")
    for bench, what in (("purge_limit", "(b) under `memory.max` = data + "
                         "16 MiB, a foreground process in the cgroup "
                         "touches as much again, 1 MiB per step"),
                        ("purge_global", "(c) no cgroup limit; the "
                         "foreground touches what was free before the "
                         "unpin + a quarter of the data")):
        w(what + ". One run per row: the run with the median p99 stall "
          "(its other columns are that run's, never a mix of runs); the "
          "p99 of every run in brackets (min-max). A foreground step is "
          "1 MiB, so a run has as many stall samples as steps done: "
          "below 100 samples p99 is the largest, below 1000 so is "
          "p99.9. Over-purge: purged / needed, where needed is what the "
          "foreground touched beyond the room it had when it started. "
          "OOM: runs with a kill, k of n.\n")
        w("| backend | stall p50 / p99 / p99.9 / max (ms) | p99 of every "
          "run (ms) | total (ms) | steps done / asked | OOM | purged "
          "(MiB) | needed (MiB) | over-purge |")
        w("|---|---|---|---|---|---|---|---|---|")
        for x in purge.params(bench):
            for b in BACKENDS:
                rep = purge.median_run(bench, b, x, "stall_ms_p99")
                if rep is None:
                    continue
                g = lambda m: purge.at(bench, b, x, m, rep)
                lo, hi = purge.spread(bench, b, x, "stall_ms_p99")
                w(f"| {b}, {x:g} MiB | {fmt(g('stall_ms_p50'))} / "
                  f"{fmt(g('stall_ms_p99'))} / {fmt(g('stall_ms_p999'))} / "
                  f"{fmt(g('stall_ms_max'))} | {fmt(lo)}-{fmt(hi)} | "
                  f"{fmt(g('fg_total_ms'))} | "
                  f"{fmt(g('steps_done'))} / {fmt(g('steps_asked'))} | "
                  f"{k_of_n(purge.all(bench, b, x, 'oom_kills'), lambda k: k > 0)} | "
                  f"{fmt(g('purged_mib'))} | {fmt(g('needed_mib'))} | "
                  f"{fmt(g('overpurge'))} |")
        w("")
        stall_notes(purge, bench, w)
    report_oom_left(purge, w)
    report_skips(purge, w)

    # 3. cache
    w("### 3. Cache hit rate under cgroup memory limits\n")
    for bench, graph in (("cache_regions", "cache_hit"),
                         ("cache_arena", "cache_hit_arena"),
                         ("cache_regions_competitor",
                          "cache_hit_competitor")):
        w(f"![{graph}]({arch}/{graph}.svg)\n")
        w(f"`{bench}`: hit rate (OOM kills, verification failures, "
          "ops/s); memory.max 0 means no limit. An OOM-killed cache "
          "counts the operations it never did as misses; OOM kills "
          "include the competitor's, where there is one.\n")
        w("| memory.max (MiB) | " + " | ".join(CACHE_BACKENDS) + " |")
        w("|---" * (len(CACHE_BACKENDS) + 1) + "|")
        for x in cache.params(bench):
            cells = []
            for b in CACHE_BACKENDS:
                g = lambda m: cache.get(bench, b, x, m)
                cells.append(f"{fmt(g('hit_rate'))} ({fmt(g('oom_kills'))}, "
                             f"{fmt(g('verify_failures'))}, "
                             f"{fmt(g('ops_per_s'))})")
            w(f"| {x:g} | " + " | ".join(cells) + " |")
        w("")
        for x in cache.params(bench):
            g = lambda b: cache.get(bench, b, x, "hit_rate")
            v, a, lr = g("volatile"), g("ashmem"), g("lru")
            if None in (v, a, lr):
                continue
            where = ("below" if v < lr - 0.005 else
                     "above" if v > lr + 0.005 else "level with")
            bel = g("belady")
            budget = cache.get(bench, "lru", x, "lru_budget")
            w(f"- memory.max {x:g}: volatile {fmt(v)}, ashmem {fmt(a)}, "
              f"the LRU reference {fmt(lr)}"
              + (f" ({fmt(budget)} objects, the largest budget that "
                 "survived)" if budget is not None else "")
              + (f", Belady's optimum with that budget {fmt(bel)}"
                 if bel is not None else "")
              + f": volatile is {where} the LRU reference"
              + (" (it purges the oldest unpinned range first, 2 MiB at a "
                 "time, without knowing which objects are hot; the "
                 "reference evicts whole objects)"
                 if where == "below" else "") + ".")
        w("")
    report_share(data[SHARE], w)
    report_app(arch, data[APP], w)
    report_conc(arch, data[CONC], w)
    report_cpu(arch, d, meta, pin, cache, w)
    report_rust(arch, d, data, w)
    appendix(arch, head_rows, w)


def appendix(arch, rows, w):
    """Every run of every headline measure, one row per repetition."""
    w(f"### Appendix ({arch}): every run of the headline measures\n")
    w("One row per repetition (the `rep` column of the CSV); the headline "
      "table gives their medians.\n")
    for label, t, bench, x, metric in rows:
        reps = sorted({r for b in BACKENDS
                       for r in t.reps(bench, b, x, metric)})
        if not reps:
            continue
        w(f"{label}:\n")
        w("| rep | " + " | ".join(BACKENDS) + " |")
        w("|---" * (len(BACKENDS) + 1) + "|")
        for rep in reps:
            w(f"| {rep} | " + " | ".join(fmt(t.at(bench, b, x, metric, rep))
                                        for b in BACKENDS) + " |")
        w("")


ORDERS = (("asc", "pin_frag"), ("desc", "pin_frag_desc"),
          ("random", "pin_frag_random"))


def report_orders(pin, w):
    """The fragments unpinned and pinned in each order, where measured."""
    ks = sorted(set(pin.params("pin_frag_desc")) &
                set(pin.params("pin_frag_random")) &
                set(pin.params("pin_frag")))
    if not ks:
        return
    w("Fragment order: the same k fragments unpinned, then pinned, by "
      "ascending offset, by descending offset, or in a seeded random "
      "order. ns per call, p50, median over repetitions. ashmem keeps an "
      "area's unpinned ranges from the highest offset down, as Android's "
      "driver does (since series 26c27ed9b1; ascending before), and a "
      "walk stops at the first range below the pages it looks for: "
      "ascending unpins and descending pins find their place at once, "
      "the other orders walk the list. volatile ranges are VMAs (or, for "
      "memfd, a tree), whatever the order.\n")
    w("| k | backend | " + " | ".join(f"unpin {o}" for o, _ in ORDERS) +
      " | " + " | ".join(f"pin {o}" for o, _ in ORDERS) + " |")
    w("|---|---" + "|---" * 6 + "|")
    for k in ks:
        for b in ("ashmem", "volatile", "anon"):
            cells = [fmt(pin.get(bench, b, k, f"{what}_ns_p50"))
                     for what in ("unpin", "pin") for _, bench in ORDERS]
            w(f"| {k:g} | {b} | " + " | ".join(cells) + " |")
    w("")


def report_share(rows, w):
    """The shared-regions table, when the run has one."""
    if not rows:
        return
    t = Table(rows)
    w("### 4. Shared regions\n")
    w("A producer (cgroup lab-bench/producer) fills, unpins and hands "
      "regions to a consumer (lab-bench/consumer) through a unix socket "
      "(SCM_RIGHTS), as binder does; the consumer maps, pins, checks and "
      "unpins each and answers. Then each side's memory.reclaim asks for "
      "all the data, the consumer's first, and the producer counts the "
      "regions purged. Handoff: send to answer, p50 (p99) in us, median "
      "over repetitions (min-max of the p50 in brackets); bad: regions "
      "neither intact nor reported purged; purged: % of regions.\n")
    w("| region size | backend | handoff p50 (p99) us | bad | "
      "purged by consumer's reclaim | purged by producer's reclaim |")
    w("|---|---|---|---|---|---|")
    for x in t.params(SHARE):
        for b in SHARE_BACKENDS:
            g = lambda m: t.get(SHARE, b, x, m)
            lo, hi = t.spread(SHARE, b, x, "handoff_us_p50")
            w(f"| {size_label(x)} | {b} | {fmt(g('handoff_us_p50'))} "
              f"[{fmt(lo)}-{fmt(hi)}] ({fmt(g('handoff_us_p99'))}) | "
              f"{fmt(g('handoff_bad'))} | "
              f"{fmt(g('purged_pct_consumer'))}% | "
              f"{fmt(g('purged_pct_producer'))}% |")
    w("")
    w("The pages are charged to the producer, which wrote them: only its "
      "cgroup's reclaim can purge them, and only volatile ranges are "
      "reachable from a cgroup's reclaim (ashmem's shrinker is not "
      "memcg-aware; memfd's pin and unpin do nothing, and without swap "
      "its pages cannot be reclaimed at all).\n")
    if not any(r["metric"] == "hog_ok_producer" for r in rows):
        return
    w("Under each side's memory.max: the consumer's cgroup, then the "
      "producer's, gets a memory.max of its usage plus half the data, "
      "and a hog of the data's size runs in it: it completes only if "
      "that cgroup's reclaim purges the regions, or is OOM-killed. "
      "Completed: k of n repetitions; purged: % of regions, median. "
      "Pin and unpin: the consumer's, of a region it received, p50 "
      "(p99) in us, median over repetitions.\n")
    w("| region size | backend | consumer pin p50 (p99) us | "
      "consumer unpin p50 (p99) us | hog completed under consumer's "
      "max | purged | hog completed under producer's max | purged |")
    w("|---|---|---|---|---|---|---|---|")
    completed = lambda v: v == 1
    for x in t.params(SHARE):
        for b in SHARE_BACKENDS:
            g = lambda m: t.get(SHARE, b, x, m)
            w(f"| {size_label(x)} | {b} | {fmt(g('pin_us_p50'))} "
              f"({fmt(g('pin_us_p99'))}) | {fmt(g('unpin_us_p50'))} "
              f"({fmt(g('unpin_us_p99'))}) | "
              f"{k_of_n(t.all(SHARE, b, x, 'hog_ok_consumer'), completed)} | "
              f"{fmt(g('max_purged_pct_consumer'))}% | "
              f"{k_of_n(t.all(SHARE, b, x, 'hog_ok_producer'), completed)} | "
              f"{fmt(g('max_purged_pct_producer'))}% |")
    w("")


def report_regions(arch, pin, w):
    """Unpin and pin among R live regions, where measured."""
    xs = pin.params("pin_regions")
    if not xs:
        return
    w(f"![pin_regions]({arch}/pin_regions.svg)\n")
    w("Region count: R live regions of 16 KiB in one process (R fds), "
      "unpin + pin of one drawn at random; ns per call, p50 (p99), median "
      "over repetitions. Both libraries look the region up on every call "
      "(ashmem-compat: fstat() of the fd and a walk of its own table; the "
      "driver's library: fstat() and the ioctl).\n")
    w("| regions | ashmem unpin | volatile unpin | ratio [95% CI] | "
      "ashmem pin | volatile pin | ratio [95% CI] |")
    w("|---|---|---|---|---|---|---|")
    for x in xs:
        row = [f"{x:g}"]
        for what in ("unpin", "pin"):
            m = f"{what}_ns_p50"
            row += [f"{fmt(pin.get('pin_regions', b, x, m))} "
                    f"({fmt(pin.get('pin_regions', b, x, what + '_ns_p99'))})"
                    for b in ("ashmem", "volatile")]
            row.append(fmt_ratio(pin.all("pin_regions", "volatile", x, m),
                                 pin.all("pin_regions", "ashmem", x, m)))
        w("| " + " | ".join(row) + " |")
    w("")


def app_kills(t, b, x):
    """(runs with a kill, background kills, foreground kills) of @b."""
    bg = t.all(APP, b, x, "oom_kills_bg")
    fg = t.all(APP, b, x, "oom_kills_fg")
    runs = [i + j for i, j in zip(bg, fg)]
    return (k_of_n(runs, lambda k: k > 0), sum(bg), sum(fg))


def app_points(t, metric):
    """(swap label, backend, swap MiB) of each app point with @metric."""
    for x in t.params(APP):
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        for b in APP_BACKENDS + USER_BACKENDS:
            if t.all(APP, b, x, metric):
                yield swap, b, x


def report_app(arch, rows, w):
    """Android's regime (appbench), when the run has it."""
    if not rows:
        return
    t = Table(rows)
    w("### 5. Android's regime: apps, app switches, global pressure\n")
    w(f"![app_hit]({arch}/app_hit.svg)\n")
    w(f"![app_launch]({arch}/app_launch.svg)\n")
    w(f"![app_psi]({arch}/app_psi.svg)\n")
    w("Several app processes, each in a cgroup of its own with no "
      "memory.max (as on a phone: the pressure is global), each with a "
      "cache of images in regions of its own (a miss decodes a "
      "zlib-compressed synthetic image: the miss is real work, a hit is "
      "verified byte for byte). The device is what was free at the start "
      "less a locked ballast. At each app switch the app switched to "
      "becomes the foreground (oom_score_adj 0, the others 900 as "
      "Android's cached apps), launches (uses its most popular objects: "
      "the launch latency) and works while its heap grows; the heap is "
      "freed when it leaves the foreground. An app the OOM killer took "
      "starts again, cold, when switched to. The parameters are in "
      "`plan.txt`. There is no lmkd: the kernel's OOM killer is the only "
      "killer (the userspace model below purges or trims, it does not "
      "kill). memfd is Android's libcutils today (nothing purgeable).\n")
    w("Per backend: hit rate, median [min-max]; launch p50 / max in ms "
      "of the median-p50 run (its other columns are that run's); cold "
      "launches (relaunches after a kill) and OOM kills, summed over the "
      "runs, with the runs that had one as k of n; PSI: share of the run "
      "with some / all tasks stalled on memory (/proc/pressure/memory), "
      "median; the mean decode time of a miss; the foreground's total "
      "time, median.\n")
    w("| swap | backend | hit rate | launch p50 / max (ms) | cold "
      "launches | runs with a kill | kills bg / fg | PSI some / full (%) | "
      "decode (ms) | foreground time (s) |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for swap, b, x in app_points(t, "hit_rate"):
        rep = t.median_run(APP, b, x, "launch_ms_p50")
        g = lambda m: t.get(APP, b, x, m)
        at = lambda m: t.at(APP, b, x, m, rep) if rep else None
        lo, hi = t.spread(APP, b, x, "hit_rate")
        runs, bg, fg = app_kills(t, b, x)
        w(f"| {swap} | {b} | {fmt(g('hit_rate'))} [{fmt(lo)}-"
          f"{fmt(hi)}] | {fmt(at('launch_ms_p50'))} / "
          f"{fmt(at('launch_ms_max'))} | "
          f"{fmt(sum(t.all(APP, b, x, 'cold_launches')))} | {runs} | "
          f"{bg:g} / {fg:g} | {fmt(g('psi_some_pct'))} / "
          f"{fmt(g('psi_full_pct'))} | {fmt(g('decode_ms_mean'))} | "
          f"{fmt(g('session_s'))} |")
    w("")
    report_app_pressure(arch, t, w)
    w("Ratios of medians [95% bootstrap interval]:\n")
    w("| swap | measure | volatile / ashmem | volatile / memfd | "
      "ashmem / memfd | volatile / madvfree |")
    w("|---|---|---|---|---|---|")
    for x in t.params(APP):
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        for m, what in (("hit_rate", "hit rate"),
                        ("launch_ms_p50", "launch p50"),
                        ("session_s", "foreground time"),
                        ("psi_some_pct", "PSI some"),
                        ("freed_ms_p50", "onset to freed p50"),
                        ("freed_ms_max", "onset to freed max"),
                        ("overpurge", "over-purge")):
            if not t.all(APP, "volatile", x, m):
                continue
            w(f"| {swap} | {what} | " + " | ".join(
                fmt_ratio(t.all(APP, a, x, m), t.all(APP, c, x, m))
                for a, c in (("volatile", "ashmem"), ("volatile", "memfd"),
                             ("ashmem", "memfd"),
                             ("volatile", "madvfree"))) + " |")
    w("")
    report_user(t, w)


def report_app_pressure(arch, t, w):
    """Section 5's pressure table, for runs that measured it."""
    if not any(t.all(APP, b, x, "pressure_episodes")
               for b in APP_BACKENDS for x in t.params(APP)):
        return
    w(f"![app_freed]({arch}/app_freed.svg)\n")
    w("Pressure and what gave way. **Onset to freed**: an episode "
      "begins when free memory falls below the zones' low watermarks "
      "(kswapd is woken) and ends when it is back above their high "
      "watermarks, whatever freed it (kswapd, a purge, the manager, the "
      "OOM killer); MemFree is sampled every 2 ms, so shorter episodes "
      "can be missed and every length is rounded up to 2 ms; p50 / p99 / "
      "max of the episodes of the median-p50 run (p99 is the max below "
      "100 episodes), and the episodes still open when a run ended (their "
      "length so far is counted: a lower bound). **Direct reclaim**: "
      "steps of the foreground's heap growth in which the kernel entered "
      "direct reclaim (allocstall), summed over the runs, and their "
      "median p99 in ms. **Needed / purged**: what the sessions asked "
      "(heap and decoded objects) beyond MemFree less the high watermarks "
      "at their start, and what the backend purged (volatile: "
      "pgvolatile_purged; madvfree: pglazyfreed; ashmem: debugfs "
      "purged_ranges, each a whole object; upsi: the manager's count; "
      "utrim: the apps' own holes), medians in MiB; **over-purge** is "
      "their ratio, median [min-max] over the runs that needed any (below "
      "1: the rest came from the band between the watermarks, other "
      "reclaim or the OOM killer). **PSI avg10**: the highest some / full "
      "avg10 of /proc/pressure/memory seen after a session, median.\n")
    w("| swap | backend | episodes | onset to freed p50 / p99 / max (ms) "
      "| open | direct-reclaim steps, p99 (ms) | needed / purged (MiB) | "
      "over-purge | PSI avg10 max some / full (%) |")
    w("|---|---|---|---|---|---|---|---|---|")
    for swap, b, x in app_points(t, "pressure_episodes"):
        g = lambda m: t.get(APP, b, x, m)
        rep = t.median_run(APP, b, x, "freed_ms_p50")
        at = lambda m: t.at(APP, b, x, m, rep) if rep else None
        lo, hi = t.spread(APP, b, x, "overpurge")
        op = (f"{fmt(g('overpurge'))} [{fmt(lo)}-{fmt(hi)}]"
              if t.all(APP, b, x, "overpurge") else "n/a")
        w(f"| {swap} | {b} | {fmt(g('pressure_episodes'))} | "
          f"{fmt(at('freed_ms_p50'))} / {fmt(at('freed_ms_p99'))} / "
          f"{fmt(at('freed_ms_max'))} | "
          f"{fmt(sum(t.all(APP, b, x, 'open_episodes')))} | "
          f"{fmt(sum(t.all(APP, b, x, 'stalled_steps')))}, "
          f"{fmt(g('stall_ms_p99'))} | {fmt(g('needed_mib'))} / "
          f"{fmt(g('purged_mib'))} | {op} | "
          f"{fmt(g('psi_some_avg10_max'))} / "
          f"{fmt(g('psi_full_avg10_max'))} |")
    w("")


def report_user(t, w):
    """The userspace model's rows (issue 17), when the run has them."""
    users = [b for b in USER_BACKENDS if t.all(APP, b, 0, "hit_rate")]
    if not users:
        return
    w("The userspace model (Android's and Chromium's answer): memfd "
      "regions with a shared header, handed to a purge manager process "
      "over a unix socket. upsi-T: the manager's PSI trigger is \"some "
      "T ms in a 1 s window\" on /proc/pressure/memory, and on each event "
      "it purges unlocked regions, least recently used first, 8 MiB at "
      "most; utrim: on the 50 ms trigger it sends each app a level "
      "(critical when full avg10 >= 10 %, else moderate) and the app "
      "drops the least recently used half (all, if critical) of its "
      "unlocked objects itself. Without swap. Manager columns: medians "
      "over the runs.\n")
    w("| backend | events | purged (MiB) | event to freed, mean / max "
      "(ms) | trims sent | manager CPU (ms) |")
    w("|---|---|---|---|---|---|")
    for b in users:
        g = lambda m: t.get(APP, b, 0, m)
        w(f"| {b} | {fmt(g('mgr_events'))} | {fmt(g('mgr_purged_mib'))} | "
          f"{fmt(g('mgr_purge_ms_mean'))} / {fmt(g('mgr_purge_ms_max'))} | "
          f"{fmt(g('trims'))} | {fmt(g('mgr_cpu_ms'))} |")
    w("")
    w("Kernel against userspace, without swap: ratios of medians [95% "
      "bootstrap interval].\n")
    w("| measure | " + " | ".join(f"volatile / {b}" for b in users) +
      " | " + " | ".join(f"ashmem / {b}" for b in users) + " |")
    w("|---" * (1 + 2 * len(users)) + "|")
    for m, what, _ in USER_MEASURES:
        if not t.all(APP, "volatile", 0, m):
            continue
        w(f"| {what} | " + " | ".join(
            fmt_ratio(t.all(APP, k, 0, m), t.all(APP, b, 0, m))
            for k in ("volatile", "ashmem") for b in users) + " |")
    w("")


def report_conc(arch, rows, w):
    """Concurrency (conbench), when the run has it."""
    if not rows:
        return
    t = Table(rows)
    w("### 6. Concurrency\n")
    w(f"![concurrency_threads]({arch}/concurrency_threads.svg)\n")
    w(f"![concurrency_procs]({arch}/concurrency_procs.svg)\n")
    w("N workers, threads of one process or processes, each unpinning and "
      "pinning 64 KiB regions of its own, started together: unpin + pin "
      "pairs per second over all workers (median over repetitions), and "
      "in brackets the p99 of one pair in us. The guest has 4 vCPUs on "
      "a 2-core host under TCG: above 2 workers the host's cores are "
      "shared, so scaling there measures contention and oversubscription "
      "together. What workers share: ashmem one global mutex; anon and "
      "madvfree the mmap_lock of the process (threads only); volatile "
      "(memfd) each region's inode lock, and for threads the mmap_lock "
      "of its mapping; memfd does no system call (the floor).\n")
    for bench, kind in (("concurrency_threads", "threads"),
                        ("concurrency_procs", "processes")):
        xs = t.params(bench)
        if not xs:
            continue
        w(f"| {kind} | " + " | ".join(CONC_BACKENDS) + " |")
        w("|---" * (len(CONC_BACKENDS) + 1) + "|")
        for x in xs:
            w(f"| {x:g} | " + " | ".join(
                f"{fmt(t.get(bench, b, x, 'pairs_per_s'))} "
                f"({fmt(nz(t.get(bench, b, x, 'pair_ns_p99'), 1e-3))})"
                for b in CONC_BACKENDS) + " |")
        lo, hi = min(xs), max(xs)
        w(f"| scaling {hi:g} / {lo:g} [95% CI] | " + " | ".join(
            fmt_ratio(t.all(bench, b, hi, "pairs_per_s"),
                      t.all(bench, b, lo, "pairs_per_s"))
            for b in CONC_BACKENDS) + " |")
        w("")


def report_cpu(arch, d, meta, pin, cache, w):
    """The CPU-model points again on -cpu max (cpu-max/), if run."""
    sub = os.path.join(d, "cpu-max")
    if not os.path.exists(os.path.join(sub, "pin.csv")):
        return
    m2, pin2 = read_csv(os.path.join(sub, "pin.csv"))
    cache2 = Table(read_csv(os.path.join(sub, "cache.csv"))[1])
    pin2 = Table(pin2)
    w("### 7. The CPU model\n")
    w(f"The headline runs on {meta.get('machine', '?')}: cortex-a72 is a "
      "common core of Android phones and has no hardware update of the "
      "dirty bit (FEAT_HAFDBS), so a page's first write after MADV_FREE "
      "(madvfree's compare-and-swap on pin) takes a fault. The points "
      f"where that matters ran again in another boot on "
      f"{m2.get('machine', '?')}, which has it. Medians over "
      "repetitions; the ratio is cortex-a72 / max [95% CI].\n")
    w("| measure | backend | cortex-a72 | max | ratio |")
    w("|---|---|---|---|---|")
    for x in pin2.params("pin_size"):
        for b in ("madvfree", "volatile", "ashmem"):
            a = pin.all("pin_size", b, x, "pair_ns_p50")
            m = pin2.all("pin_size", b, x, "pair_ns_p50")
            if m:
                w(f"| unpin + pin, {size_label(x)}, p50 ns | {b} | "
                  f"{fmt(median(a))} | {fmt(median(m))} | "
                  f"{fmt_ratio(a, m)} |")
    for x in cache2.params("cache_regions"):
        for metric, what in (("ops_per_s", "cache ops/s"),
                             ("hit_rate", "cache hit rate")):
            for b in ("madvfree", "volatile"):
                a = cache.all("cache_regions", b, x, metric)
                m = cache2.all("cache_regions", b, x, metric)
                if m:
                    w(f"| {what}, memory.max {x:g} MiB | {b} | "
                      f"{fmt(median(a))} | {fmt(median(m))} | "
                      f"{fmt_ratio(a, m)} |")
    w("")


def load_sub(d, name, fam):
    """Rows of @fam.csv in the extra boot's directory @d/@name, or []."""
    path = os.path.join(d, name, fam + ".csv")
    return read_csv(path)[1] if os.path.exists(path) else []


def report_rust(arch, d, data, w):
    """ashmem's points in the Rust mode (ashmem-rust/), if run."""
    app2 = Table(load_sub(d, "ashmem-rust", APP))
    purge2 = Table(load_sub(d, "ashmem-rust", "purge"))
    conc2 = Table(load_sub(d, "ashmem-rust", CONC))
    if not app2.by_rep and not purge2.by_rep:
        return
    app, purge, conc = Table(data[APP]), Table(data["purge"]), \
        Table(data[CONC])
    w("### 8. Android's newest ashmem: the Rust mode\n")
    w("ashmem's points again in another boot of the same kernel with "
      "`ashmem.rust_mode=1` (kernel patch 16): the shrinker keeps the "
      "global mutex while it punches the hole and stops after the range "
      "in hand when a PIN waits for the mutex, as android16-6.12's Rust "
      "ashmem does. C is the main run's ashmem. Medians over "
      "repetitions; ratio Rust / C [95% CI].\n")
    w("| measure | C | Rust | Rust / C |")
    w("|---|---|---|---|")
    rows = [("app", app, app2, APP, 0, "hit_rate", "Android regime, hit rate"),
            ("app", app, app2, APP, 0, "launch_ms_p50",
             "Android regime, launch p50 (ms)"),
            ("app", app, app2, APP, 0, "psi_some_pct",
             "Android regime, PSI some (%)")]
    for bench, what in (("purge_rootreclaim", "root memory.reclaim, MiB/s"),
                        ("purge_purgeall", "PURGE_ALL_CACHES, MiB/s")):
        rows.append(("purge", purge, purge2, bench, 64, "purge_mib_per_s",
                     f"{what}, 64 MiB"))
    rows += [("purge", purge, purge2, "purge_global", 64, "stall_ms_p99",
              "global pressure, stall p99 (ms), 64 MiB"),
             ("purge", purge, purge2, "purge_global", 64, "overpurge",
              "global pressure, over-purge, 64 MiB")]
    for bench in ("concurrency_threads", "concurrency_procs"):
        for x in conc2.params(bench):
            rows.append(("conc", conc, conc2, bench, x, "pairs_per_s",
                         f"{bench}, {x:g} workers, pairs/s"))
    for _, t1, t2, bench, x, metric, what in rows:
        c, r = t1.all(bench, "ashmem", x, metric), \
            t2.all(bench, "ashmem", x, metric)
        if not r:
            continue
        w(f"| {what} | {fmt(median(c))} | {fmt(median(r))} | "
          f"{fmt_ratio(r, c)} |")
    runs, bg, fg = app_kills(app2, "ashmem", 0)
    w("")
    w(f"OOM kills in the Android regime, Rust mode: runs with a kill "
      f"{runs} ({bg:g} background, {fg:g} foreground).\n")


def nz(v, scale):
    return None if v is None else v * scale


def verdict(a, b, more, less):
    """@more, @less or "the same as": median(a) against median(b), by
    whether the 95% bootstrap interval of their ratio excludes 1."""
    r = ratio(statistics.median(a) if a else None,
              statistics.median(b) if b else None)
    ci = ratio_ci(a, b) if r is not None else None
    if ci is None:
        return "not comparable with"
    if ci[0] > 1:
        return more
    if ci[1] < 1:
        return less
    return "indistinguishable from"


def answer(arch, data, w):
    """The lab's question, answered from the tables of @arch."""
    pin, purge = Table(data["pin"]), Table(data["purge"])
    app, conc, share = Table(data[APP]), Table(data[CONC]), \
        Table(data[SHARE])
    w("## The question, and what the tables say\n")
    w("Did Android drop pinning because purgeable memory is useless, or "
      f"because ashmem did it badly? Every sentence below is generated "
      f"from the {arch} tables it points to (each comparison: medians, "
      "with a 95% bootstrap interval of their ratio; a difference is "
      "claimed only when the interval excludes 1).\n")
    w("**Is purgeable memory useless?**\n")
    for x in app.params(APP):
        swap = "without swap" if x == 0 else f"with {x:g} MiB of zram swap"
        h = lambda b: app.all(APP, b, x, "hit_rate")
        lat = lambda b: app.all(APP, b, x, "launch_ms_p50")
        for b in ("volatile", "ashmem"):
            runs, bg, fg = app_kills(app, b, x)
            mruns, mbg, mfg = app_kills(app, "memfd", x)
            w(f"- Android's regime {swap} (section 5): {b}'s apps have a "
              f"hit rate {verdict(h(b), h('memfd'), 'above', 'below')} "
              f"that of memfd, Android's libcutils today "
              f"({fmt_ratio(h(b), h('memfd'))}x), a launch p50 "
              f"{verdict(lat(b), lat('memfd'), 'longer than', 'shorter than')}"
              f" memfd's ({fmt_ratio(lat(b), lat('memfd'))}x), and OOM "
              f"kills in {runs} runs ({bg:g} background, {fg:g} "
              f"foreground) against memfd's {mruns} ({mbg:g} / {mfg:g}).")
    w("")
    w("**Did ashmem do it badly?**\n")
    bench = "concurrency_threads"
    xs = conc.params(bench)
    if xs:
        lo, hi = min(xs), max(xs)
        sc = lambda b: fmt_ratio(conc.all(bench, b, hi, "pairs_per_s"),
                                 conc.all(bench, b, lo, "pairs_per_s"))
        at = lambda b: conc.all(bench, b, hi, "pairs_per_s")
        w(f"- One global mutex (section 6): from {lo:g} to {hi:g} threads "
          f"ashmem's throughput scales {sc('ashmem')}x, volatile's "
          f"{sc('volatile')}x; at {hi:g} threads volatile's is "
          f"{verdict(at('volatile'), at('ashmem'), 'above', 'below')} "
          f"ashmem's ({fmt_ratio(at('volatile'), at('ashmem'))}x).")
    mib = pick(purge.params("purge_reclaim"), 64)
    if mib is not None:
        g = lambda b: purge.get("purge_reclaim", b, mib, "purged_mib")
        w(f"- A shrinker that is not memcg-aware (section 2): a cgroup's "
          f"memory.reclaim of {mib:g} MiB of unpinned data purges "
          f"{fmt(g('ashmem'))} MiB of ashmem's and {fmt(g('volatile'))} "
          "MiB of volatile's (medians).")
    for x in share.params(SHARE):
        ok = lambda b: k_of_n(share.all(SHARE, b, x, "hog_ok_producer"),
                              lambda v: v == 1)
        if share.all(SHARE, "ashmem", x, "hog_ok_producer"):
            w(f"- Shared regions of {size_label(x)} under the producer's "
              f"memory.max (section 4): the hog completes in "
              f"{ok('volatile')} runs with volatile, {ok('ashmem')} with "
              f"ashmem, {ok('memfd')} with memfd.")
    gmib = pick(purge.params("purge_global"), 64)
    if gmib is not None:
        op = lambda b: purge.all("purge_global", b, gmib, "overpurge")
        w(f"- Whole-range purges (section 2, global pressure, {gmib:g} "
          f"MiB): over-purge (purged / needed) is {fmt(median(op('ashmem')))}"
          f" for ashmem and {fmt(median(op('volatile')))} for volatile; "
          "volatile's is "
          f"{verdict(op('volatile'), op('ashmem'), 'larger', 'smaller')} "
          f"ashmem's ({fmt_ratio(op('volatile'), op('ashmem'))}x).")
    w("")
    w("**Where ashmem is better**\n")
    rmib = pick(purge.params("purge_rootreclaim"), 64)
    if rmib is not None:
        th = lambda b: purge.all("purge_rootreclaim", b, rmib,
                                 "purge_mib_per_s")
        w(f"- Purge throughput where both purge (root memory.reclaim, "
          f"{rmib:g} MiB, section 2): volatile / ashmem "
          f"{fmt_ratio(th('volatile'), th('ashmem'))}; volatile's is "
          f"{verdict(th('volatile'), th('ashmem'), 'faster than', 'slower than')}"
          " ashmem's.")
    sizes = pin.params("pin_size")
    if sizes:
        x = min(sizes)
        pp = lambda b: pin.all("pin_size", b, x, "pair_ns_p50")
        w(f"- Unpin + pin of a {size_label(x)} region (section 1): "
          f"volatile / ashmem {fmt_ratio(pp('volatile'), pp('ashmem'))}; "
          f"volatile's pair is "
          f"{verdict(pp('volatile'), pp('ashmem'), 'slower than', 'faster than')}"
          " ashmem's.")
    w("")
    users = [b for b in USER_BACKENDS if app.all(APP, b, 0, "hit_rate")]
    if users:
        w("**Does kernel-driven purging beat Android's userspace model?**\n")
        h = lambda b: app.all(APP, b, 0, "hit_rate")
        lat = lambda b: app.all(APP, b, 0, "launch_ms_p50")
        for b in users:
            runs, bg, fg = app_kills(app, b, 0)
            w(f"- Against {b} (section 5, without swap): volatile's hit "
              f"rate is {verdict(h('volatile'), h(b), 'above', 'below')} "
              f"its ({fmt_ratio(h('volatile'), h(b))}x), volatile's "
              f"launch p50 "
              f"{verdict(lat('volatile'), lat(b), 'longer than', 'shorter than')}"
              f" its ({fmt_ratio(lat('volatile'), lat(b))}x); {b} had "
              f"OOM kills in {runs} runs (volatile: "
              f"{app_kills(app, 'volatile', 0)[0]}, ashmem: "
              f"{app_kills(app, 'ashmem', 0)[0]}); its manager saw "
              f"{fmt(sum(app.all(APP, b, 0, 'mgr_events')))} trigger "
              f"events in {len(app.all(APP, b, 0, 'mgr_events'))} runs, "
              f"purged {fmt(sum(app.all(APP, b, 0, 'mgr_purged_mib')))} "
              f"MiB in all and spent "
              f"{fmt(app.get(APP, b, 0, 'mgr_cpu_ms'))} ms of CPU "
              "(median).")
        for k in ("volatile", "ashmem"):
            wins, losses = [], []
            for m, what, more in USER_MEASURES:
                for b in users if more is not None else ():
                    a, c = app.all(APP, k, 0, m), app.all(APP, b, 0, m)
                    lo_hi = ratio_ci(a, c)
                    if lo_hi is None:
                        continue
                    lo, hi = lo_hi
                    better = lo > 1 if more else hi < 1
                    worse = hi < 1 if more else lo > 1
                    item = f"{what} vs {b} ({fmt_ratio(a, c)}x)"
                    if better:
                        wins.append(item)
                    elif worse:
                        losses.append(item)
            w(f"- Where {k} beats the userspace model (interval excludes "
              f"1, section 5): {'; '.join(wins) or 'nowhere'}. Where it "
              f"loses: {'; '.join(losses) or 'nowhere'}. (Read with the "
              "OOM kills above: a run whose apps were killed has its "
              "pressure relieved by the kills, and fewer apps to serve.)")
        w("")
    w("**What these runs do not answer**\n")
    w("- Hardware: every number is from an emulated CPU (TCG); ratios "
      "between backends, not absolute times, carry over, and even those "
      "only as far as emulation slows system calls, faults and memory "
      "access alike.")
    w("- Real apps: the access traces are synthetic (Zipf, seeded), the "
      "images synthetic, the app count and sizes scaled to a 1 GiB "
      "guest; no recorded trace of a real device was replayed.")
    w("- Android's own killer: there is no lmkd here; the kernel's OOM "
      "killer takes apps when nothing else gives way. The userspace "
      "model's manager purges on PSI (or sends trim levels) but kills "
      "nothing, and its trigger settings are three of many.")
    w("- A PSI trigger that fires in time: in this regime a pressure "
      "episode starts and ends (by a purge or an OOM kill) within tens "
      "to hundreds of ms (section 5), and the events counted above say "
      "how seldom 10, 50 or 150 ms of stall in a 1 s window was reached "
      "before the OOM killer acted. Smaller thresholds, a trigger on the "
      "watermarks, or lmkd's own kill-and-trim policy were not tried.")
    w("")


def median(v):
    return statistics.median(v) if v else None


def report(out_path, dirs):
    out = []
    loaded = []
    for d in dirs:
        meta, data = load(d)
        loaded.append((os.path.basename(os.path.normpath(d)), d, meta, data))
    w = out.append
    w("# Results: volatile ranges vs ashmem\n")
    w("Generated by `scripts/bench-report.py` from the CSV next to this "
      "file; no number here is typed by hand. Rerun with `make bench "
      "ARCH=arm64` (or `ARCH=x86_64`).\n")
    w("Backends: **ashmem** (the lab's /dev/ashmem driver through "
      "libashmem_driver), **volatile** (ashmem-compat: until series "
      "7b2e33512a MADV_VOLATILE on a private mapping, since series "
      "b73e0cb909 a memfd pinned and unpinned with fallocate() volatile "
      "ranges of the file, shareable like ashmem), **anon** (since "
      "b73e0cb909: MADV_VOLATILE / MADV_NONVOLATILE on a private "
      "anonymous mapping, no library), **memfd** (since b73e0cb909: "
      "Android's libcutils on memfd, where pin and unpin do nothing and "
      "nothing is ever purged), **madvfree** (MADV_FREE, a per-page canary checked "
      "with compare-and-swap on pin), **pinned** (never released), "
      "**dontneed** (MADV_DONTNEED on unpin, always purged), and, for the "
      "cache, **lru** (ordinary memory and a userspace LRU whose budget "
      "is the largest number of objects found to survive the limit: a "
      "probe fills the cgroup until the OOM killer stops it, with the "
      "competitor's peak held beside it, and a run that is still killed "
      "is repeated with 10% fewer; in older runs, a formula) "
      "and **belady** (Belady's offline optimum replayed on the same "
      "trace with the lru budget: the ceiling). Every point runs once per backend and repetition in "
      "the same guest boot, the backends of each point in a random order "
      "(seeded, so the plan, `plan.txt` beside the CSV, is the "
      "same at every run; before series 26c27ed9b1 they alternated); "
      "tables give the median over repetitions, with the spread or a "
      "bootstrap interval, and an appendix lists every run of the "
      "headline measures.\n")
    w("## Limits of the method\n")
    w("- Under TCG every instruction is emulated: absolute times are "
      "not those of hardware, and system calls and page faults are "
      "slowed differently from plain loads and stores. Compare "
      "backends within one table (ratios), not with other machines.")
    w("- Guest RAM is small (see the setup tables); the cgroup limits "
      "and the Android regime's app sizes are scaled to it. There is no "
      "swap except in the Android regime's zram rows (section 5).")
    w("- ashmem's shrinker is not memcg-aware (faithfully to Android): "
      "`memory.reclaim` and `memory.max` of a child cgroup never purge "
      "it, so its purge throughput there is 0 and a limit below its data "
      "ends in OOM kills. This is the baseline's real behaviour, not a "
      "fault of the harness.")
    w("- madvfree's pin touches every page (its canary), so its cost "
      "grows with the size pinned; volatile and ashmem pins do not touch "
      "the data.")
    w("- The cache's objects regenerate with the same content, verified "
      "on every hit; a purge that went unreported would show as a "
      "verification failure.\n")
    for arch, d, meta, data in loaded:
        if data[APP]:
            answer(arch, data, w)
            break
    for arch, d, meta, data in loaded:
        report_arch(arch, d, meta, data, out)
    with open(out_path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(out_path + ".tmp", out_path)
    return 0


def main(argv):
    usage = ("usage: bench-report.py check DIR | plot DIR | "
             "report OUT.md DIR...")
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "check" and len(args) == 1:
            return check(args[0])
        if cmd == "plot" and len(args) == 1:
            return plot(args[0])
        if cmd == "report" and len(args) >= 2:
            return report(args[0], args[1:])
    except BadInput as e:
        print(f"bench-report.py: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"bench-report.py: gnuplot failed: {e}", file=sys.stderr)
        return 1
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
