# SPDX-License-Identifier: GPL-2.0
"""Section 5: Android's regime and the userspace model (app.csv)."""

import math
import os

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


# The graphs of this family (gnuplot.py draws them).
GRAPHS = (
    Graph("app_hit", APP, "app", ("hit_rate",),
          "swap (MiB of zram; 0 = none)", "hit rate", "",
          "Android regime: cache hit rate of the apps", optional=True),
    Graph("app_launch", APP, "app", ("launch_ms_p50", "launch_ms_max"),
          "swap (MiB of zram; 0 = none)", "launch latency, ms (log)", "y",
          "Android regime: latency of the app switched to", optional=True),
    Graph("app_psi", APP, "app", ("psi_some_pct", "psi_full_pct"),
          "swap (MiB of zram; 0 = none)", "% of the run stalled on memory", "",
          "Android regime: memory pressure stall (PSI)", optional=True),
    Graph("app_freed", APP, "app", ("freed_ms_p50", "freed_ms_max"),
          "swap (MiB of zram; 0 = none)", "onset of pressure to freed, ms (log)", "y",
          "Android regime: from free memory below the low watermark to above the high one", optional=True, needs_metric=True),
)


def section(run, w):
    report_app(run.arch, run.data[APP], w)


def app_kills(t, b, x, bench=APP):
    """(runs with a kill, background kills, foreground kills) of @b."""
    bg = t.all(bench, b, x, "oom_kills_bg")
    fg = t.all(bench, b, x, "oom_kills_fg")
    runs = [i + j for i, j in zip(bg, fg)]
    return (k_of_n(runs, lambda k: k > 0), sum(bg), sum(fg))


def acted(t, b, x, bench=APP):
    """(runs, runs with manager events, runs with MiB purged, acted) of
    the userspace backend @b: it acted when every run had both."""
    events = t.by_rep.get((bench, b, x, "mgr_events"), {})
    purged = t.by_rep.get((bench, b, x, "purged_mib"), {})
    reps = set(t.by_rep.get((bench, b, x, "hit_rate"), {}))
    ev = {r for r in reps if events.get(r, 0) > 0}
    pu = {r for r in reps if purged.get(r, 0) > 0}
    return (len(reps), len(ev), len(pu),
            bool(reps) and len(ev & pu) == len(reps))


def acted_text(t, b, x):
    n, ev, pu, ok = acted(t, b, x)
    return ("acted in every run" if ok else
            f"did not act (events in {ev} of {n} runs, MiB purged in "
            f"{pu} of {n})")


def app_points(t, metric):
    """(swap label, backend, swap MiB) of each app point with @metric."""
    for x in t.params(APP):
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        for b in APP_BACKENDS + USER_BACKENDS + (DROPPABLE,):
            if t.all(APP, b, x, metric):
                yield swap, b, x


# Android's killer beside the apps (appbench --lmkd): its own bench.
APP_LMKD = "app_lmkd"
LMKD_KILLS = ("lmkd_kills_bg", "lmkd_kills_fg")


def lmkd_runs(t):
    """The number of runs of Table @t that had the lmkd-like killer."""
    return sum(len(t.all(APP_LMKD, b, x, "hit_rate"))
               for x in t.params(APP_LMKD)
               for b in APP_BACKENDS + USER_BACKENDS + (DROPPABLE,))


def killer_text(t):
    """Who kills apps in the runs of Table @t, from the benches it has."""
    lmkd = lmkd_runs(t)
    if lmkd:
        return (f"The table below is the kernel's OOM killer alone; {lmkd} "
                "runs (bench app_lmkd) had the lmkd-like killer beside the "
                "apps as well, in a table of their own after it.")
    return ("No run had the lmkd-like killer (appbench --lmkd, "
            "app_killers in bench/matrix.sh): the kernel's OOM killer is "
            "the only killer (the userspace models purge or trim, they do "
            "not kill).")


def any_kills(t, bench, b, x,
              metrics=("oom_kills_bg", "oom_kills_fg") + LMKD_KILLS):
    """(runs with a kill, runs) of one point, the kills of a run being
    the sum of its @metrics (by default the kernel's OOM kills, and
    lmkd's where the run had it)."""
    per = {}
    for m in metrics:
        for rep, v in t.by_rep.get((bench, b, x, m), {}).items():
            per[rep] = per.get(rep, 0) + v
    return sum(1 for v in per.values() if v > 0), len(per)


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
      f"`plan.txt`. {killer_text(t)} memfd is Android's libcutils today "
      "(nothing purgeable).\n")
    w("Per backend: hit rate, median [min-max]; the hit rate over every "
      "request the run planned, where the requests a killed foreground "
      "never made count as misses, median, with the requests lost summed "
      "over the runs (\"not measured\" before appbench counted them); "
      "launch p50 / max in ms "
      "of the median-p50 run (its other columns are that run's); cold "
      "launches (relaunches after a kill) and OOM kills, summed over the "
      "runs, with the runs that had one as k of n; PSI: share of the run "
      "with some / all tasks stalled on memory (/proc/pressure/memory), "
      "median; the mean decode time of a miss; the foreground's total "
      "time, median.\n")
    w("| swap | backend | hit rate | hit rate, all requests (lost) | "
      "launch p50 / max (ms) | cold "
      "launches | runs with a kill | kills bg / fg | PSI some / full (%) | "
      "decode (ms) | foreground time (s) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for swap, b, x in app_points(t, "hit_rate"):
        rep = t.median_run(APP, b, x, "launch_ms_p50")
        g = lambda m: t.get(APP, b, x, m)
        at = lambda m: t.at(APP, b, x, m, rep) if rep else None
        lo, hi = t.spread(APP, b, x, "hit_rate")
        runs, bg, fg = app_kills(t, b, x)
        if t.all(APP, b, x, "hit_rate_all"):
            score = (f"{fmt(g('hit_rate_all'))} "
                     f"({sum(t.all(APP, b, x, 'requests_lost')):g})")
        else:
            score = "not measured"
        w(f"| {swap} | {b} | {fmt(g('hit_rate'))} [{fmt(lo)}-"
          f"{fmt(hi)}] | {score} | {fmt(at('launch_ms_p50'))} / "
          f"{fmt(at('launch_ms_max'))} | "
          f"{fmt(sum(t.all(APP, b, x, 'cold_launches')))} | {runs} | "
          f"{bg:g} / {fg:g} | {fmt(g('psi_some_pct'))} / "
          f"{fmt(g('psi_full_pct'))} | {fmt(g('decode_ms_mean'))} | "
          f"{fmt(g('session_s'))} |")
    lost = [f"{b} at swap {x:g}: {len(t.all(APP, b, x, 'ballast_lost'))}"
            for x in t.params(APP) for b in APP_BACKENDS + USER_BACKENDS
            if t.all(APP, b, x, "ballast_lost")]
    w("Runs discarded because the OOM killer took the ballast (every app "
      "killed and memory still short; such a run has no other number "
      "and is in none of the figures above): "
      + ("; ".join(lost) if lost else "none") + ".\n")
    report_app_pressure(arch, t, w)
    w("Ratios of medians [95% bootstrap interval]:\n")
    w("| swap | measure | volatile / ashmem | volatile / memfd | "
      "ashmem / memfd | volatile / madvfree |")
    w("|---|---|---|---|---|---|")
    for x in t.params(APP):
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        for m, what in (("hit_rate", "hit rate"),
                        ("hit_rate_all", "hit rate, all requests"),
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
    report_app_lmkd(t, w)
    report_user(t, w)


def report_app_lmkd(t, w):
    """Section 5 again with the lmkd-like killer (bench app_lmkd), when
    the run has it: each backend as it would run on a phone."""
    points = [(x, b) for x in t.params(APP_LMKD)
              for b in APP_BACKENDS + USER_BACKENDS + (DROPPABLE,)
              if t.all(APP_LMKD, b, x, "hit_rate")]
    if not points:
        return
    w("#### The same with Android's killer: an lmkd-like killer beside "
      "every backend\n")
    w("Each point ran again with the lab's lmkd-like killer beside the "
      "apps (bench/lib/lmkd.c: lmkd's PSI triggers, some 70 ms and full "
      "700 ms in a 1 s window, and the kernel's reclaim wake it; its "
      "watermark and swap checks decide; it kills the highest "
      "oom_score_adj first, the cached apps at 900-999 before the "
      "foreground at 0), as on a phone, where lmkd kills before the "
      "kernel's OOM killer does. An app it killed starts again, cold, "
      "when switched to, as one the OOM killer took. Kills by lmkd and by "
      "the kernel are counted apart, summed over the runs; runs with a "
      "kill count either killer. Hit rate over all requests (a killed "
      "foreground's lost requests are misses), median [min-max]; launch "
      "p50 and foreground time, medians. Higher hit rate is better; "
      "fewer kills, lower launch and foreground times are better.\n")
    w("| swap | backend | runs | hit rate, all requests | launch p50 (ms) "
      "| foreground time (s) | runs with a kill | lmkd kills bg / fg | "
      "kernel OOM kills bg / fg |")
    w("|---|---|---|---|---|---|---|---|---|")
    for x, b in points:
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        g = lambda m: t.get(APP_LMKD, b, x, m)
        total = lambda m: fmt(sum(t.all(APP_LMKD, b, x, m))) \
            if t.all(APP_LMKD, b, x, m) else "n/a"
        lo, hi = t.spread(APP_LMKD, b, x, "hit_rate_all")
        k, n = any_kills(t, APP_LMKD, b, x)
        w(f"| {swap} | {b} | {len(t.all(APP_LMKD, b, x, 'hit_rate'))} | "
          f"{fmt(g('hit_rate_all'))} [{fmt(lo)}-{fmt(hi)}] | "
          f"{fmt(g('launch_ms_p50'))} | {fmt(g('session_s'))} | "
          f"{k} of {n} | {total('lmkd_kills_bg')} / "
          f"{total('lmkd_kills_fg')} | {total('oom_kills_bg')} / "
          f"{total('oom_kills_fg')} |")
    w("")
    w("With the lmkd-like killer: ratios of medians [95% bootstrap "
      "interval], and runs with a kill (either killer) as k of n with "
      "Fisher's exact p (two-sided; not corrected here: the answer "
      "section corrects the ones it uses); the last column is each "
      "backend with lmkd against itself with the kernel's OOM killer "
      "alone.\n")
    w("| swap | measure | volatile / ashmem | volatile / memfd | "
      "ashmem / memfd | volatile with / without lmkd |")
    w("|---|---|---|---|---|---|")
    pairs = (("volatile", "ashmem"), ("volatile", "memfd"),
             ("ashmem", "memfd"))
    for x in t.params(APP_LMKD):
        swap = "none" if x == 0 else f"zram {x:g} MiB"
        for m, what in (("hit_rate_all", "hit rate, all requests"),
                        ("launch_ms_p50", "launch p50"),
                        ("session_s", "foreground time")):
            if not t.all(APP_LMKD, "volatile", x, m):
                continue
            w(f"| {swap} | {what} | " + " | ".join(
                fmt_ratio(t.all(APP_LMKD, a, x, m),
                          t.all(APP_LMKD, c, x, m)) for a, c in pairs)
              + " | " + fmt_ratio(t.all(APP_LMKD, "volatile", x, m),
                                  t.all(APP, "volatile", x, m)) + " |")
        cells = []
        for a, c in pairs + (("volatile", None),):
            ka, na = any_kills(t, APP_LMKD, a, x)
            kc, nc = (any_kills(t, APP_LMKD, c, x) if c else
                      any_kills(t, APP, a, x))
            cells.append(f"{ka} of {na} vs {kc} of {nc} "
                         f"({fmt_p(fisher_p(ka, na, kc, nc))})"
                         if na and nc else "n/a")
        w(f"| {swap} | runs with a kill | " + " | ".join(cells) + " |")
    w("")


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


def uchrome_text(t):
    """What the uchrome rows ran: Chromium's policy with the scaling its
    runs wrote (medians of the mgr_* settings)."""
    def g(m):
        v = t.all(APP, "uchrome", 0, m)
        return fmt(median(v)) if v else "n/a"
    return ("uchrome: Chromium's DiscardableSharedMemoryManager policy run "
            "by the purge manager: a budget of "
            f"{g('mgr_budget_mib')} MiB (Chromium's Android 128 MiB, "
            "divided by 8 on a low-end device, at most 25% of the "
            f"{g('mgr_device_mib')} MiB device), unlocked segments evicted "
            "by last unlock time on every allocation over the budget, "
            f"retried after {g('mgr_retry_s')} s; MemAvailable polled "
            f"every {g('mgr_poll_s')} s, below {g('mgr_moderate_mib')} MiB "
            "moderate (down to half the budget), below "
            f"{g('mgr_critical_mib')} MiB critical (everything unlocked); "
            f"an age sweep every {g('mgr_sweep_s')} s of what was unlocked "
            f"{g('mgr_age_s')} s or more. Chromium's periods are divided by "
            f"{g('mgr_time_div')} to fit a run of seconds (the settings "
            "above are after the division).\n")


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
      "unlocked objects itself. Without swap. A row acted when every one "
      "of its runs had manager events and purged MiB above 0; a row that "
      "did not act is not the model at work and is not compared. Events, "
      "purged MiB, trims: sums over the runs; event to freed: median over "
      "the runs that had an event (how many in brackets); manager CPU: "
      "median over the runs.\n")
    if "uchrome" in users:
        w(uchrome_text(t))
    w("| backend | acted | events (sum) | purged MiB (sum) | event to "
      "freed, mean / max (ms) | trims sent (sum) | manager CPU (ms) |")
    w("|---|---|---|---|---|---|---|")
    for b in users:
        total = lambda m: fmt(sum(t.all(APP, b, 0, m))) \
            if t.all(APP, b, 0, m) else "n/a"
        ev = [r for r, v in t.by_rep.get((APP, b, 0, "mgr_events"),
                                          {}).items() if v > 0]
        mean = t.some(APP, b, 0, "mgr_purge_ms_mean", ev)
        mx = t.some(APP, b, 0, "mgr_purge_ms_max", ev)
        freed = (f"{fmt(median(mean))} / {fmt(median(mx))} ({len(mean)} "
                 f"of {len(t.all(APP, b, 0, 'hit_rate'))} runs)"
                 if mean else "n/a (no event)")
        w(f"| {b} | {acted_text(t, b, 0)} | {total('mgr_events')} | "
          f"{total('purged_mib')} | {freed} | {total('trims')} | "
          f"{fmt(t.get(APP, b, 0, 'mgr_cpu_ms'))} |")
    w("")
    users = [b for b in users if acted(t, b, 0)[3]]
    if not users:
        w("Kernel against userspace: not compared, no userspace row acted "
          "in every run.\n")
        return
    w("Kernel against userspace, without swap, rows that acted: ratios of "
      "medians [95% bootstrap interval].\n")
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


def checks(d, data, opts):
    yield every_point(APP, data, APP_BACKENDS + USER_BACKENDS, "hit_rate",
                      USER_BACKENDS, quick=opts["quick"])
    app = data[APP]
    t = Table(app)
    rows = [(b, x) for b in USER_BACKENDS for x in t.params(APP)
            if t.all(APP, b, x, "hit_rate")]
    # The faithful baseline must act; the PSI and trim variants are
    # findings either way: one that did not act is reported as such and
    # left out of the comparisons (answer.py), not a failed run.
    faithful = [(b, x) for b, x in rows if b in FAITHFUL_USER_BACKENDS]
    variants = [(b, x) for b, x in rows if b not in FAITHFUL_USER_BACKENDS]
    what = ("the userspace model acted: manager events and purged MiB "
            "above 0 in every run of " + (", ".join(
                f"{b} at swap {x:g}" for b, x in faithful) or "no row"))
    idle = [f"{b} at swap {x:g} {acted_text(t, b, x)}"
            for b, x in faithful if not acted(t, b, x)[3]]
    # Rows whose every run lost its ballast to the OOM killer have no
    # hit rate: in a quick run (one repetition) that is chance, and
    # every_point above names them.
    lost = [f"{b} at swap {x:g}" for b in FAITHFUL_USER_BACKENDS
            for x in t.params(APP) if (b, x) not in faithful
            and t.all(APP, b, x, "ballast_lost")]
    if opts["quick"] and (faithful or lost):
        yield True, (what + " # SKIP a quick run: its numbers are not "
                     "judged" + (f"; every run discarded at "
                                 f"{', '.join(lost)}" if lost else ""))
    else:
        yield (bool(faithful) and not idle,
               what + (f"; {'; '.join(idle)}" if idle else ""))
    if variants:
        idle = [f"{b} at swap {x:g}" for b, x in variants
                if not acted(t, b, x)[3]]
        yield True, ("the userspace variants are labelled: "
                     + (f"{', '.join(idle)} did not act and are not "
                        "compared" if idle else "every one acted"))
    fails = sum(r["value"] for r in app if r["metric"] == "verify_failures")
    yield (fails == 0 and any(r["metric"] == "verify_failures" for r in app),
           f"apps' cache hits verified byte for byte: {fails:g} failures")
    if any(r["metric"] == "hit_rate_all" for r in app):
        yield score_check(app)
    yield discarded_check(os.path.join(d, "discarded-runs.txt"), app,
                          "Android's regime")
    lmkd = {(r["backend"], r["pvalue"], r["rep"]) for r in app
            if r["bench"] == APP_LMKD and r["metric"] == "hit_rate"}
    if lmkd:
        counted = {(r["backend"], r["pvalue"], r["rep"]) for r in app
                   if r["bench"] == APP_LMKD and r["metric"] in LMKD_KILLS}
        missing = sorted(lmkd - counted)
        yield (not missing,
               "lmkd-like kills counted in every run with the killer "
               f"({len(lmkd) - len(missing)} of {len(lmkd)})"
               + (f"; first without: {missing[0][0]} at swap "
                  f"{missing[0][1]:g} rep {missing[0][2]}" if missing
                  else ""))
    swaps = sorted({r["pvalue"] for r in app})
    yield (len(swaps) == 2 and swaps[0] == 0,
           "Android's regime ran without swap and with zram swap "
           f"(swap MiB seen: {', '.join(f'{x:g}' for x in swaps)})")
    psi = [r for r in app if r["metric"].startswith("psi_")
           and not 0 <= r["value"] <= 100]
    yield (not psi and any(r["metric"] == "psi_some_pct" for r in app),
           "PSI shares within [0, 100] %"
           + (f"; first bad: {row_name(psi[0])}" if psi else ""))
    if any(r["metric"] == "pressure_episodes" for r in app):
        # A discarded run has no numbers but its ballast_lost row.
        # A run is its bench's too: app and app_lmkd share the rest.
        key = lambda r: (r["bench"], r["backend"], r["pvalue"], r["rep"])
        lost = {key(r) for r in app if r["metric"] == "ballast_lost"}
        runs = {key(r) for r in app} - lost
        with_ep = {key(r) for r in app
                   if r["metric"] == "pressure_episodes"}
        yield (runs == with_ep,
               "every app run measured its pressure episodes "
               f"({len(with_ep)} of {len(runs)})")
        bad = [r for r in app if r["metric"] in
               ("freed_ms_p50", "freed_ms_p99", "freed_ms_max", "overpurge",
                "needed_mib", "purged_mib", "stall_ms_p50", "stall_ms_max")
               and not (math.isfinite(r["value"]) and r["value"] >= 0)]
        yield (not bad, "onset-to-freed times, needed and purged MiB "
               "finite and non-negative"
               + (f"; first bad: {row_name(bad[0])}" if bad else ""))


def score_check(app):
    """Each run's hit rate over all requests agrees with its others: at
    most its hit rate over the requests made, lost requests within the
    plan, and the two equal when none was lost."""
    runs = {}
    for r in app:
        if r["metric"] in ("hit_rate", "hit_rate_all", "requests",
                           "requests_lost"):
            key = (r["backend"], r["bench"], r["pvalue"], r["rep"])
            runs.setdefault(key, {})[r["metric"]] = r["value"]
    bad = []
    for key, m in sorted(runs.items()):
        if "hit_rate_all" not in m:
            continue
        missing = {"hit_rate", "requests", "requests_lost"} - set(m)
        if missing:
            bad.append(f"{key[0]} {key[1]} {key[2]:g} rep {key[3]}: "
                       f"lacks {', '.join(sorted(missing))}")
            continue
        lost, req = m["requests_lost"], m["requests"]
        ok = (0 <= lost <= req and req > 0
              and m["hit_rate_all"] <= m["hit_rate"] + 1e-9
              and (lost > 0 or abs(m["hit_rate_all"] - m["hit_rate"]) < 1e-6))
        if not ok:
            bad.append(f"{key[0]} {key[1]} {key[2]:g} rep {key[3]}: hit "
                       f"rate {m['hit_rate']:g}, over all requests "
                       f"{m['hit_rate_all']:g}, {lost:g} of {req:g} lost")
    return (not bad, "the hit rate over all requests agrees with the hit "
            "rate and the requests lost" + (f"; first bad: {bad[0]}"
                                            if bad else ""))

