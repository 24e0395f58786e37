# SPDX-License-Identifier: GPL-2.0
"""Section 2: purge latency, OOM kills, the range shrinker (purge.csv)."""

import math

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


# The graphs of this family (gnuplot.py draws them).
GRAPHS = (
    Graph("purge_reclaim", "purge", "purge_reclaim", ("purge_mib_per_s",),
          "unpinned data (MiB)", "MiB purged per second (log)", "y",
          "memory.reclaim of the cgroup: purge throughput"),
    Graph("purge_stall", "purge", "purge_limit", ("stall_ms_p50", "stall_ms_p99"),
          "unpinned data (MiB)", "foreground stall per MiB, ms", "",
          "Foreground allocation under memory.max"),
    Graph("purge_global", "purge", "purge_global", ("stall_ms_p50", "stall_ms_p99"),
          "unpinned data (MiB)", "foreground stall per MiB, ms", "",
          "Foreground allocation under global pressure", optional=True),
)


def section(run, w):
    arch, purge = run.arch, run.table("purge")
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
            for b in plus_droppable(BACKENDS, purge, bench):
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
        w(what + ". Runs whose foreground was OOM-killed are reported "
          "apart: the stall columns are over the runs without a kill "
          "only, and the killed runs' p99 (the stall before the kill) has "
          "a column of its own. One run per row: the run without a kill "
          "with the median p99 stall (its other columns are that run's, "
          "never a mix of runs), or, where every run was killed, the "
          "killed run with the median p99 (marked \"killed run\"); the "
          "p99 of every run without a kill (min-max). A foreground step "
          "is 1 MiB, so a run has as many stall samples as steps done: "
          "below 100 samples p99 is the largest, below 1000 so is "
          "p99.9. Over-purge: purged / needed, where needed is what the "
          "foreground touched beyond the room it had when it started. "
          "OOM: runs with a kill, k of n.\n")
        w("| backend | run shown | stall p50 / p99 / p99.9 / max (ms), "
          "no kill | p99 of every run without a kill (ms) | total (ms) | "
          "steps done / asked | OOM | killed runs: p99 before the kill, "
          "median [min-max] (ms) | purged (MiB) | needed (MiB) | "
          "over-purge |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for x in purge.params(bench):
            for b in plus_droppable(BACKENDS, purge, bench):
                clean, killed, unknown = kill_split(purge, bench, b, x)
                if not (clean or killed or unknown):
                    continue
                rep = purge.median_run(bench, b, x, "stall_ms_p99", clean)
                shown = f"rep {rep}, no kill"
                if rep is None:
                    rep = purge.median_run(bench, b, x, "stall_ms_p99",
                                           killed | unknown)
                    shown = f"rep {rep}, killed run"
                g = lambda m: purge.at(bench, b, x, m, rep)
                p99 = purge.some(bench, b, x, "stall_ms_p99", clean)
                stall = (f"{fmt(g('stall_ms_p50'))} / "
                         f"{fmt(g('stall_ms_p99'))} / "
                         f"{fmt(g('stall_ms_p999'))} / "
                         f"{fmt(g('stall_ms_max'))}" if clean else
                         "n/a (every run killed)")
                kp99 = purge.some(bench, b, x, "stall_ms_p99",
                                  killed | unknown)
                w(f"| {b}, {x:g} MiB | {shown} | {stall} | "
                  f"{fmt(min(p99)) + '-' + fmt(max(p99)) if p99 else 'n/a'}"
                  f" | {fmt(g('fg_total_ms')) if clean else 'n/a'} | "
                  f"{fmt(g('steps_done'))} / {fmt(g('steps_asked'))} | "
                  f"{k_of_n(purge.all(bench, b, x, 'oom_kills'), lambda k: k > 0)} | "
                  f"{fmt_range(kp99) if kp99 else 'none'} | "
                  f"{fmt(g('purged_mib'))} | {fmt(g('needed_mib'))} | "
                  f"{fmt(g('overpurge'))} |")
        w("")
        stall_notes(purge, bench, w)
    report_oom_left(purge, w)
    report_skips(purge, w)


def stall_notes(purge, bench, w):
    """What the stall table shows, from its runs: the kills of ashmem and
    volatile (Fisher's exact test), and their stalls without a kill."""
    for x in purge.params(bench):
        runs = {}
        for b in ("ashmem", "volatile", "madvfree", "dontneed"):
            clean, killed, unknown = kill_split(purge, bench, b, x)
            runs[b] = (clean, killed | unknown)
        if not runs["ashmem"][0] | runs["ashmem"][1] or \
                not runs["volatile"][0] | runs["volatile"][1]:
            continue

        def killed_text(b):
            clean, killed = runs[b]
            n = len(clean) + len(killed)
            text = f"{b}'s foreground was OOM-killed in {len(killed)} of {n} runs"
            if killed:
                done = purge.some(bench, b, x, "steps_done", killed)
                asked = purge.some(bench, b, x, "steps_asked", killed)
                purged = purge.some(bench, b, x, "purged_mib", killed)
                text += (f" (those runs: {fmt(median(done))} of "
                         f"{fmt(median(asked))} steps done, "
                         f"{fmt(median(purged))} MiB purged, medians)")
            if clean:
                purged = purge.some(bench, b, x, "purged_mib", clean)
                text += (f"; its {len(clean)} runs without a kill purged "
                         f"{fmt(median(purged))} MiB (median)")
            return text

        dn_clean, dn_killed = runs["dontneed"]
        if dn_killed:
            w(f"- {x:g} MiB: dontneed, which released all its data at "
              f"unpin, was OOM-killed in {len(dn_killed)} of "
              f"{len(dn_clean) + len(dn_killed)} runs: there the "
              "foreground asked more than the guest could give whatever "
              "was purged.")
        ka, na = len(runs["ashmem"][1]), sum(map(len, runs["ashmem"]))
        kv, nv = len(runs["volatile"][1]), sum(map(len, runs["volatile"]))
        p = fisher_p(kv, nv, ka, na)
        w(f"- {x:g} MiB: {killed_text('volatile')}; {killed_text('ashmem')} "
          f"(Fisher's exact test, volatile against ashmem: {fmt_p(p)}).")
        va = purge.some(bench, "volatile", x, "stall_ms_p99",
                        runs["volatile"][0])
        aa = purge.some(bench, "ashmem", x, "stall_ms_p99",
                        runs["ashmem"][0])
        if va and aa:
            w(f"- {x:g} MiB, runs without a kill: volatile's stall p99 is "
              f"{fmt_ratio(va, aa)} times ashmem's (ratio of medians "
              f"[95% CI], {len(va)} and {len(aa)} runs).")
        vm = purge.some(bench, "madvfree", x, "stall_ms_p99",
                        runs["madvfree"][0])
        if va and vm:
            w(f"- {x:g} MiB, runs without a kill: volatile / madvfree stall "
              f"p99 = {fmt_ratio(va, vm)} ({len(va)} and {len(vm)} runs; "
              "madvfree pages are reclaimed from the LRU, volatile ranges "
              "by the shrinker of kernel patch 5).")
    w("")


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
            for b in plus_droppable(BACKENDS, purge, bench):
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
      "kept (volatile_shrink_end), of those purged the pages kswapd "
      "purged (the rest the allocating tasks purged in direct reclaim, "
      "and waited for; \"not measured\" before purgebench split them), "
      "the time in the shrinker from each call's start to its end, all "
      "calls / kswapd's, in ms, "
      "the ranges skipped by reason (nofs: a "
      "file range under GFP_NOFS; sem, ilock: a trylock failed; freeing: "
      "inode evicted; mm: mm exiting; mmap: mmap_read_trylock failed; "
      "busy: another CPU purging it, VR_BUSY; locked: mlocked or forking), "
      "the lowest reclaim priority seen (12 is the first pass, 0 the "
      "last), the purges before an OOM kill (volatile_oom: walks / "
      "pages), the purges of what LRU reclaim kept (volatile_purge_kept, "
      "kernel patch 41: calls / pages; only with swap), and the "
      "tracepoints' purged pages (shrinker + OOM + kept) against "
      "`pgvolatile_purged` over the same window (trace / vmstat). Events "
      "lost to a full buffer make the sums lower bounds.\n")
    w("| backend, data | mode | traced runs | calls | pages asked | "
      "purged | by kswapd | time, all / kswapd (ms) | kept | "
      + " | ".join(SKIP_REASONS)
      + " | lowest priority | OOM purges: walks / pages | kept purges: "
      "calls / pages | trace / vmstat (pages) | events lost |")
    w("|---" * (14 + len(SKIP_REASONS)) + "|")
    mismatched = []
    for bench, what, x, b in points:
        def total(metric):
            v = purge.all(bench, b, x, metric)
            return sum(v) if v else None
        runs = len(purge.all(bench, b, x, "shrink_calls"))
        prio = purge.all(bench, b, x, "shrink_min_priority")
        traced = (total("shrink_purged_pages") or 0) + \
            (total("oom_purged_pages") or 0) + \
            (total("kept_purged_pages") or 0)
        by_kswapd = total("shrink_kswapd_purged_pages")
        spent = (f"{fmt(total('shrink_time_us') / 1000)} / "
                 f"{fmt(total('shrink_kswapd_time_us') / 1000)}"
                 if total("shrink_time_us") is not None else NOT_MEASURED)
        kept = (f"{count(total('kept_purge_calls'))} / "
                f"{count(total('kept_purged_pages'))}"
                if total("kept_purge_calls") is not None else NOT_MEASURED)
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
          f"{count(by_kswapd) if by_kswapd is not None else NOT_MEASURED}"
          f" | {spent} | {count(total('shrink_kept_pages'))} | "
          + " | ".join(count(total(f"skip_{r}")) for r in SKIP_REASONS)
          + f" | {fmt(min(prio)) if prio else 'n/a'} | "
          f"{count(total('oom_purge_calls'))} / "
          f"{count(total('oom_purged_pages'))} | {kept} | {versus} | "
          f"{count(lost) if lost else 'none'} |")
    w("")
    if mismatched:
        w("The tracepoints and pgvolatile_purged disagree for: "
          + "; ".join(mismatched) + ". A purge in flight when the events "
          "were switched on or off counts in one and not the other; more "
          "than that is the kernel's to explain.\n")


def checks(d, data, opts):
    yield every_backend("purge", data, BACKENDS)
    t = Table(data["purge"])
    unknown, left_out, runs = [], 0, 0
    for bench, _ in OOM_BENCHES:
        for x in t.params(bench):
            for b in sorted(t.backends(bench)):
                clean, killed, unk = kill_split(t, bench, b, x)
                runs += len(clean | killed | unk)
                left_out += len(killed)
                unknown += [f"{b} {bench} mib={x:g} rep {r}"
                            for r in sorted(unk)]
    yield (not unknown, "killed runs reported apart: every purge run with "
           "a stall figure records its OOM kills, and the stall statistics "
           f"leave out the {left_out} killed of {runs} runs"
           + (f"; no OOM kill record for {', '.join(unknown[:5])}"
              if unknown else ""))
    purge = [r for r in data["purge"] if r["metric"] == "purged_mib"]
    vol = [r["value"] for r in purge
           if r["backend"] == "volatile" and r["bench"] == "purge_reclaim"]
    yield (vol and min(vol) > 0,
           "memory.reclaim purged volatile data in every repetition")
    missing = oom_kills_unmeasured(data["purge"])
    if missing is not None:
        yield (not missing, "every OOM kill of a purge run recorded the "
               "unpinned data it left"
               + (f"; missing in {', '.join(missing[:5])}" if missing
                  else ""))


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
