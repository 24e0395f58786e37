# SPDX-License-Identifier: GPL-2.0
"""Section 11: MAP_DROPPABLE (6.11) against volatile ranges, on the
kernels that have it (issue 28): what dropping without a signal costs a
cache, and what it saves."""

import os

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


def section(run, w):
    report_droppable(run, w)


def measures(run):
    """(label, table, bench, param, metric, better) of the comparison;
    better: "lower" or "higher"."""
    pin, purge, cache = (run.table(f) for f in FAMILIES)
    app, arena = run.table(APP), run.table(ARENA)
    out = []
    sizes = pin.params("pin_size")
    for x in (min(sizes), max(sizes)) if sizes else ():
        out.append((f"unpin + pin of {size_label(x)}, p50 ns", pin,
                    "pin_size", x, "pair_ns_p50", "lower"))
    # Not "drop everything": vm.drop_caches drops caches and slab,
    # never droppable's pages, by design.
    x = pick(purge.params("purge_rootreclaim"), 64)
    if x is not None:
        out.append((f"root memory.reclaim, {x:g} MiB: purged MiB", purge,
                    "purge_rootreclaim", x, "purged_mib", "higher"))
    for x in purge.params("purge_global"):
        out.append((f"global pressure, {x:g} MiB: stall p99 ms (runs "
                    "without a kill)", purge, "purge_global", x,
                    "stall_ms_p99", "lower"))
    limits = [x for x in cache.params("cache_regions") if x > 0]
    if limits:
        x = min(limits)
        for bench in ("cache_regions", "cache_regions_competitor"):
            out.append((f"{bench}, memory.max {x:g} MiB: hit rate", cache,
                        bench, x, "hit_rate", "higher"))
    for x in app.params(APP):
        where = "zram" if x else "no swap"
        out.append((f"Android's regime ({where}): hit rate over all "
                    "requests", app, APP, x, "hit_rate_all", "higher"))
        out.append((f"Android's regime ({where}): launch p50 ms", app, APP,
                    x, "launch_ms_p50", "lower"))
    for x in arena.params("purge_arena"):
        out.append((f"arena, {x:g} range(s): pinned data lost, MiB", arena,
                    "purge_arena", x, "pinned_lost_mib", "lower"))
    return out


def kill_row(t, bench, x, metric):
    """The k-of-n text of runs with an OOM kill, per backend."""
    def kills(b):
        if metric == "oom_kills":
            return t.all(bench, b, x, "oom_kills")
        bg = t.all(bench, b, x, "oom_kills_bg")
        fg = t.all(bench, b, x, "oom_kills_fg")
        return [i + j for i, j in zip(bg, fg)]
    return [kills(b) for b in ("volatile", DROPPABLE)]


def report_droppable(run, w):
    w("### 11. MAP_DROPPABLE against volatile ranges\n")
    kv = kernel_version(run.meta)
    have = any(r["backend"] == DROPPABLE for f in DROPPABLE_FAMILIES
               for r in run.data[f])
    if not have:
        w(f"Not in this results set: its kernel ({run.meta.get('kernel', '?')}"
          ") has no MAP_DROPPABLE, which came with 6.11."
          if kv is None or kv < DROPPABLE_SINCE else
          "Not in this results set.")
        w("")
        return
    w("A MAP_DROPPABLE mapping (6.11) lets the kernel drop any of its "
      "pages under pressure, pinned or not, and a dropped page reads "
      "zeros; nothing tells the program. Its cache (backend droppable) "
      "unpins nothing, checks a per-page canary on pin, and verifies the "
      "object on every hit: a mismatch there is a drop that came after "
      "the canary check (late_drops), counted as a miss. volatile pins "
      "and unpins ranges and is told of a purge. Ratios are droppable / "
      "volatile with a 95% bootstrap interval; OOM kills are runs with "
      "a kill, k of n, with Fisher's exact test.\n")
    w("| measure | volatile | droppable | droppable / volatile | "
      "better |")
    w("|---|---|---|---|---|")
    for label, t, bench, x, metric, better in measures(run):
        a = stall_values(t, bench, DROPPABLE, x, metric)[0]
        b = stall_values(t, bench, "volatile", x, metric)[0]
        if not a and not b:
            continue
        w(f"| {label} | {fmt_range(b) if b else 'n/a'} | "
          f"{fmt_range(a) if a else 'n/a'} | "
          f"{fmt_ratio(a, b) if a and b else 'n/a'} | {better} |")
    purge, app, cache = run.table("purge"), run.table(APP), \
        run.table("cache")
    for t, bench, metric, what in (
            (purge, "purge_global", "oom_kills",
             lambda x: f"global pressure, {x:g} MiB"),
            (app, APP, "app", lambda x: "Android's regime ("
             + ("zram" if x else "no swap") + ")")):
        for x in t.params(bench):
            vol, drop = kill_row(t, bench, x, metric)
            if not vol or not drop:
                continue
            kv_, kd = (sum(1 for v in s if v > 0) for s in (vol, drop))
            w(f"| {what(x)}: runs with an OOM kill | "
              f"{kv_} of {len(vol)} | {kd} of {len(drop)} | "
              f"{fmt_p(fisher_p(kd, len(drop), kv_, len(vol)))} | "
              "lower |")
    w("")
    late = [v for b in ("cache_regions", "cache_regions_competitor",
                        "cache_arena")
            for x in cache.params(b)
            for v in cache.all(b, DROPPABLE, x, "late_drops")]
    late += [v for x in app.params(APP)
             for v in app.all(APP, DROPPABLE, x, "late_drops")]
    w(f"Drops found only by the verification, after the canary check, "
      f"over {len(late)} cache and app runs: {fmt(sum(late))} in all, "
      f"{sum(1 for v in late if v > 0)} run(s) with one. A cache that "
      "trusted the canary would have served those objects with zeros "
      "in them.\n")


def checks(d, data, opts):
    meta = {}
    for fam in FAMILIES:
        path = os.path.join(d, fam + ".csv")
        if os.path.exists(path):
            meta = read_csv(path)[0]
            break
    want = kernel_has_droppable(meta)
    for fam in DROPPABLE_FAMILIES:
        rows = data[fam]
        if not rows:
            continue
        has = any(r["backend"] == DROPPABLE for r in rows)
        if want:
            yield (has, f"{fam}.csv has droppable rows (kernel "
                   f"{meta.get('kernel', '?')} has MAP_DROPPABLE)")
        else:
            yield (not has, f"{fam}.csv has no droppable rows (kernel "
                   f"{meta.get('kernel', '?')} has no MAP_DROPPABLE)")
    # A mismatch of droppable is a drop (late_drops), never a failure;
    # late_drops belong to droppable only.
    bad = [r for fam in ("cache", APP) for r in data[fam]
           if (r["metric"] == "late_drops" and r["backend"] != DROPPABLE)
           or (r["metric"] == "verify_failures" and
               r["backend"] == DROPPABLE and r["value"] != 0)]
    yield (not bad, "late_drops only for droppable, and droppable has no "
           "verification failure" + (f"; first: {row_name(bad[0])}"
                                     if bad else ""))
