# SPDX-License-Identifier: GPL-2.0
"""The headline table of each arch, and its appendix of every run."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


def shown_backends(rows):
    """BACKENDS, and droppable where a headline row has it (6.11 on)."""
    return BACKENDS + ((DROPPABLE,) if any(
        DROPPABLE in t.backends(bench) for _, t, bench, _, _ in rows)
        else ())


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
    bs = shown_backends(rows)
    w("| measure | " + " | ".join(bs) + " | "
      "volatile / ashmem | volatile / pinned | volatile / dontneed | "
      "ashmem / pinned | ashmem / dontneed |")
    w("|---" * (len(bs) + 6) + "|")
    for label, t, bench, x, metric in rows:
        vals = {b: stall_values(t, bench, b, x, metric) for b in bs}
        if metric == "oom_kills":
            cells = [k_of_n(t.all(bench, b, x, metric),
                                   lambda k: k > 0) for b in bs]
            ratios = ["n/a"] * 5
        else:
            cells = [fmt(median(v)) + (f" ({out} killed left out)"
                                       if out else "")
                     for v, out in (vals[b] for b in bs)]
            ratios = [fmt_ratio(vals[a][0], vals[b][0]) for a, b in
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
      "better. Stall figures are over the runs whose foreground was not "
      "OOM-killed (a killed run's stall is that of a process that did "
      "not get its memory); the runs left out are counted beside them and "
      "reported in the OOM rows and section 2. Every run of these "
      "measures is in the appendix.\n")
    return rows



def appendix(arch, rows, w):
    """Every run of every headline measure, one row per repetition."""
    w(f"### Appendix ({arch}): every run of the headline measures\n")
    w("One row per repetition (the `rep` column of the CSV); the headline "
      "table gives their medians. A stall of a run whose foreground was "
      "OOM-killed is marked (killed): the headline leaves it out.\n")
    bs = shown_backends(rows)
    for label, t, bench, x, metric in rows:
        reps = sorted({r for b in bs
                       for r in t.reps(bench, b, x, metric)})
        if not reps:
            continue
        w(f"{label}:\n")
        w("| rep | " + " | ".join(bs) + " |")
        w("|---" * (len(bs) + 1) + "|")
        for rep in reps:
            w(f"| {rep} | " + " | ".join(
                fmt(t.at(bench, b, x, metric, rep))
                + (" (killed)" if metric in STALL_METRICS and
                   rep in kill_split(t, bench, b, x, metric)[1] else "")
                for b in bs) + " |")
        w("")
