# SPDX-License-Identifier: GPL-2.0
"""Section 9: Android's regime at several levels of free memory
(sweep.csv, make bench BENCH_SWEEP=1)."""

import os

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403
from .app import acted, app_kills, score_check

# bench -> what it is
SWEEP_BENCHES = (("app_sweep", "without swap"),
                 ("app_sweep_zram", "with zram swap"))

GRAPHS = tuple(
    Graph(f"sweep_hit{'' if bench == 'app_sweep' else '_zram'}", SWEEP,
          bench, ("hit_rate_all",),
          "free memory the apps start with, MiB",
          "hit rate over all requests", "",
          f"Regime sweep {what}: hits over every planned request "
          "(a kill's lost requests are misses)", optional=True)
    for bench, what in SWEEP_BENCHES)


def section(run, w):
    report_sweep(run.arch, run.data[SWEEP], w)


def cell(t, bench, b, x):
    """One backend at one level: hit rate over all requests, median
    [min-max], and the runs with an OOM kill as k/n; a userspace model
    that did not act says so."""
    v = t.all(bench, b, x, "hit_rate_all")
    if not v:
        return "n/a"
    runs, _, _ = app_kills(t, b, x, bench)
    text = f"{fmt(median(v))} [{fmt(min(v))}-{fmt(max(v))}], {runs}"
    lost = len(t.all(bench, b, x, "ballast_lost"))
    if lost:
        text += f", {lost} discarded"
    if b in USER_BACKENDS and not acted(t, b, x, bench)[3]:
        text += ", did not act"
    return text


def level_table(t, bench, xs, metric, cell_of, w):
    """A row per backend that measured @metric, a column per level of
    free memory @xs, each cell cell_of(t, bench, backend, level)."""
    w("| backend | " + " | ".join(f"{x:g} MiB free" for x in xs) + " |")
    w("|---|" + "---|" * len(xs))
    for b in APP_BACKENDS + USER_BACKENDS:
        if any(t.all(bench, b, x, metric) for x in xs):
            w(f"| {b} | " + " | ".join(cell_of(t, bench, b, x)
                                       for x in xs) + " |")
    w("")


def file_cell(t, bench, b, x):
    """One backend's file working set at one level: the refaults of
    evicted file pages over the run and the foreground's time reading
    its file in a warm session (p99 of the run), each median
    [min-max]."""
    refaults = t.all(bench, b, x, "file_refaults")
    if not refaults:
        return "n/a"
    counts = (f"{median(refaults):.0f} [{min(refaults):.0f}-"
              f"{max(refaults):.0f}]")
    return (f"{counts}; "
            f"{fmt_range(t.all(bench, b, x, 'file_warm_ms_p99'))} ms")


def report_files(t, bench, xs, w):
    """The file working set's table, if the sweep had one."""
    mib = {v for x in xs for b in APP_BACKENDS + USER_BACKENDS
           for v in t.all(bench, b, x, "file_mib")}
    if not mib:
        w("No file-backed working set in this sweep (its results "
          "predate appbench --file-mib).\n")
        return
    sizes = ", ".join(f"{m:g}" for m in sorted(mib))
    w(f"The apps' file-backed working sets ({sizes} MiB per app, "
      "read whole at each launch and a few pages at every access, "
      "from a share reclaim can drop and read back): refaults of "
      "evicted file pages over the run (lower is better: the page "
      "cache kept what the apps use), then the foreground's time "
      "reading its file in a warm session (an app back in front, "
      "in the same process: what reclaim took of its file meanwhile "
      "is read back), p99 of the run (lower is better), each median "
      "[min-max] over the runs.\n")
    level_table(t, bench, xs, "file_refaults", file_cell, w)
    w("Refaults, volatile against ashmem and memfd at each level: ratio "
      "of medians [95% bootstrap interval].\n")
    w("| free MiB | volatile / ashmem | volatile / memfd |")
    w("|---|---|---|")
    for x in xs:
        w(f"| {x:g} | " + " | ".join(
            fmt_ratio(t.all(bench, "volatile", x, "file_refaults"),
                      t.all(bench, c, x, "file_refaults"))
            for c in ("ashmem", "memfd")) + " |")
    w("")


def report_sweep(arch, rows, w):
    w("### 9. Android's regime at several levels of free memory\n")
    if not rows:
        w("Not run in this results set: `make bench BENCH_SWEEP=1` adds "
          "a boot that runs Android's regime (section 5) at 8, 16, 32 "
          "and 48 MiB of free memory, without and with zram swap, for "
          "every backend and userspace model (bench-matrix sweep).\n")
        return
    t = Table(rows)
    reps = sorted({r["rep"] for r in rows})
    w("Section 5's regime in a boot of its own, the apps starting with "
      "several amounts of free memory (section 5's point is 24 MiB), "
      f"without and with zram swap, {len(reps)} repetition(s). Each cell: the hit "
      "rate over every request the run planned (the requests a killed "
      "foreground never made count as misses), median [min-max], then "
      "the runs with an OOM kill as k of n, and the runs discarded "
      "because the OOM killer took the ballast (every app was killed "
      "and memory was still short; they have no other number). A "
      "userspace model that did not act at a level is marked so.\n")
    if any(r["metric"] == "file_mib" for r in rows):
        w("Unlike section 5's runs, each app here also reads a file of "
          "its own (its code and resources), so that the purgeable "
          "caches compete with the page cache: its figures follow each "
          "table.\n")
    for bench, what in SWEEP_BENCHES:
        xs = t.params(bench)
        if not xs:
            continue
        w(f"![sweep]({arch}/sweep_hit"
          f"{'' if bench == 'app_sweep' else '_zram'}.svg)\n")
        w(f"**{what.capitalize()}**\n")
        level_table(t, bench, xs, "hit_rate_all", cell, w)
        w("Volatile against ashmem and memfd at each level: hit rate over "
          "all requests, ratio of medians [95% bootstrap interval]; runs "
          "with an OOM kill, Fisher's exact p (two-sided; not corrected "
          "for the levels compared).\n")
        w("| free MiB | volatile / ashmem | volatile / memfd | kills "
          "volatile vs ashmem | kills volatile vs memfd |")
        w("|---|---|---|---|---|")
        for x in xs:
            def killed(b):
                bg = t.all(bench, b, x, "oom_kills_bg")
                fg = t.all(bench, b, x, "oom_kills_fg")
                n = [i + j for i, j in zip(bg, fg)]
                return sum(1 for k in n if k > 0), len(n)
            kv, nv = killed("volatile")
            cells = []
            for c in ("ashmem", "memfd"):
                kc, nc = killed(c)
                cells.append(f"{kv}/{nv} vs {kc}/{nc}, "
                             f"{fmt_p(fisher_p(kv, nv, kc, nc))}")
            w(f"| {x:g} | "
              + " | ".join(fmt_ratio(t.all(bench, "volatile", x,
                                           "hit_rate_all"),
                                     t.all(bench, c, x, "hit_rate_all"))
                           for c in ("ashmem", "memfd"))
              + " | " + " | ".join(cells) + " |")
        w("")
        report_files(t, bench, xs, w)


def checks(d, data, opts):
    rows = data[SWEEP]
    if not rows:
        yield True, ("the regime sweep # SKIP not run "
                     "(make bench BENCH_SWEEP=1)")
        return
    yield every_point(SWEEP, data, APP_BACKENDS + USER_BACKENDS,
                      "hit_rate_all", quick=opts["quick"])
    t = Table(rows)
    levels = {bench: t.params(bench) for bench, _ in SWEEP_BENCHES}
    yield (all(len(v) >= (2 if opts["quick"] else 4)
               for v in levels.values()),
           "the sweep has at least 4 levels of free memory (2 in a quick "
           "run), without and with zram: " + "; ".join(
               f"{bench} {', '.join(f'{x:g}' for x in xs) or 'none'}"
               for bench, xs in levels.items()))
    fails = sum(r["value"] for r in rows if r["metric"] == "verify_failures")
    yield (fails == 0 and any(r["metric"] == "verify_failures"
                              for r in rows),
           f"the sweep's cache hits verified byte for byte: {fails:g} "
           "failures")
    yield score_check(rows)
    yield discarded_check(os.path.join(d, "sweep", "discarded-runs.txt"),
                          rows, "the sweep")
    yield files_check(rows)


def files_check(rows):
    """(ok, what): every sweep run that had a file working set and a
    session that ended read it (a session's file reads timed); a run
    whose every foreground was killed has nothing to show; a sweep
    without file working sets is named."""
    runs, launches = {}, {}
    for r in rows:
        key = (r["bench"], r["backend"], r["pvalue"], r["rep"])
        if r["metric"] == "file_mib":
            runs.setdefault(key, 0)
        elif r["metric"] == "file_sessions":
            runs[key] = r["value"]
        elif r["metric"] == "launches":
            launches[key] = r["value"]
    if not runs:
        return True, ("the sweep's file working sets # SKIP none in "
                      "these results (appbench --file-mib)")
    idle = sum(1 for k, v in runs.items() if v <= 0 and launches.get(k))
    return (idle == 0,
            f"the sweep's apps read their file working sets: {idle} of "
            f"{len(runs)} runs with sessions but no file read")
