# SPDX-License-Identifier: GPL-2.0
"""The answer section: the lab's questions, answered from the tables."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403
from .app import APP_LMKD, acted, any_kills, app_kills, killer_text
from .evidence import Evidence
from .sweep import SWEEP_BENCHES


APP_KILLS = ("oom_kills_bg", "oom_kills_fg")


def answer(arch, data, w, short):
    """The lab's question, answered from the tables of @arch.  Every
    comparison made here is one of a family corrected by Holm's method:
    the text is written to @lines, then the adjusted p-values filled in.
    The conclusions drawn from them go to @short, for the first screen."""
    lines, h, evid = [], Holm(), Evidence()
    answer_lines(arch, data, lines.append, h, evid)
    lines = h.fill([h.defer(evid.render)] + lines)
    short(lines[0])
    for line in lines[1:]:
        w(line)


def lmkd_lines(app, x, w, h, evid):
    """Android's regime with the lmkd-like killer beside the apps, at
    swap @x: the kernel backends as they would run on a phone."""
    swap = "without swap" if x == 0 else f"with {x:g} MiB of zram swap"
    h_ = lambda b: app.all(APP_LMKD, b, x, "hit_rate_all")
    if not all(h_(b) for b in ("volatile", "ashmem", "memfd")):
        return
    mk, mn = any_kills(app, APP_LMKD, "memfd", x)
    for b in ("volatile", "ashmem"):
        k, n = any_kills(app, APP_LMKD, b, x)
        where = f"{b} against memfd, with the lmkd-like killer, {swap}"
        hv, hd = evid.medians(h, "useful", f"hit rate over all requests, "
                              f"{where}", h_(b), h_("memfd"), "above",
                              "below", True)
        ktext = evid.counts(h, "useful", f"runs with a kill (lmkd or the "
                            f"kernel), {where}", k, n, mk, mn, True)
        w(f"- Android's regime {swap}, with the lmkd-like killer (section "
          f"5): {b}'s apps have a hit rate over all requests {hv} that of "
          f"memfd ({hd}), and a kill by either killer in {k} of {n} runs "
          f"against memfd's {mk} of {mn} ({ktext}).")
    k1, n1 = any_kills(app, APP_LMKD, "volatile", x)
    k2, n2 = any_kills(app, APP_LMKD, "ashmem", x)
    ktext = evid.counts(h, "badly", f"runs with a kill (lmkd or the "
                        f"kernel), volatile against ashmem, with the "
                        f"lmkd-like killer, {swap}", k1, n1, k2, n2, True)
    w(f"- The same, volatile against ashmem: runs with a kill {k1} of "
      f"{n1} against {k2} of {n2} ({ktext}).")


def sweep_lines(sweep, w, h, evid):
    """The regime sweep (section 9), whose apps also read files of their
    own: at every level and swap it has (none picked), the hit rate over
    all requests, the runs with an OOM kill and the refaults of the
    apps' files, volatile and ashmem against memfd.  A higher hit rate,
    fewer kills and fewer refaults count for purgeable memory; the
    opposite, against it."""
    found = False
    for bench, what in SWEEP_BENCHES:
        for x in sweep.params(bench):
            rf = lambda b: sweep.all(bench, b, x, "file_refaults")
            hr = lambda b: sweep.all(bench, b, x, "hit_rate_all")
            if not all(rf(b) and hr(b)
                       for b in ("volatile", "ashmem", "memfd")):
                continue
            if not found:
                w("**The regime sweep, with the apps' files in the page "
                  "cache (section 9)**\n")
                found = True
            parts = []
            mk, mn = any_kills(sweep, bench, "memfd", x, APP_KILLS)
            for b in ("volatile", "ashmem"):
                where = f"{b} against memfd, {x:g} MiB free {what}"
                k, n = any_kills(sweep, bench, b, x, APP_KILLS)
                ktext = evid.counts(h, "useful", f"runs with an OOM kill, "
                                    f"sweep, {where}", k, n, mk, mn, True)
                hv, hd = evid.medians(h, "useful", f"hit rate over all "
                                      f"requests, sweep, {where}", hr(b),
                                      hr("memfd"), "above", "below", True)
                v, d = evid.medians(h, "useful", f"refaults of the apps' "
                                    f"files, sweep, {where}", rf(b),
                                    rf("memfd"), "above", "below", False)
                parts.append(f"{b}'s hit rate over all requests is {hv} "
                             f"memfd's ({hd}), it had an OOM kill in {k} "
                             f"of {n} runs against memfd's {mk} of {mn} "
                             f"({ktext}), and its refaults, "
                             f"{median(rf(b)):.0f}, are {v} memfd's "
                             f"{median(rf('memfd')):.0f} ({d})")
            w(f"- {x:g} MiB free {what}: " + "; ".join(parts) + ".")
    if found:
        w("")


def answer_lines(arch, data, w, h, evid):
    pin, purge = Table(data["pin"]), Table(data["purge"])
    app, conc, share = Table(data[APP]), Table(data[CONC]), \
        Table(data[SHARE])
    w("## The question, and what the tables say\n")
    w("Did Android drop pinning because purgeable memory is useless, or "
      f"because ashmem did it badly? Every sentence below is generated "
      f"from the {arch} tables it points to. Each comparison of medians "
      "gives their ratio with a 95% bootstrap interval (a difference is "
      "claimed only when the interval excludes 1) and the Mann-Whitney U "
      "test's p; each comparison of k-of-n counts gives Fisher's exact "
      "test's p (two-sided). Every p is also given adjusted by Holm's "
      "method across all the comparisons of this section (the count is "
      "at its end). Stall figures leave out the runs whose foreground "
      "was OOM-killed; those are counted apart.\n")
    w("**Is purgeable memory useless?**\n")
    for x in app.params(APP):
        swap = "without swap" if x == 0 else f"with {x:g} MiB of zram swap"
        # The hit rate that counts a kill's lost requests as misses,
        # where appbench measured it for all three backends.
        hm = ("hit_rate_all" if all(app.all(APP, b, x, "hit_rate_all")
                                    for b in ("volatile", "ashmem",
                                              "memfd"))
              else "hit_rate")
        hname = ("hit rate over all requests" if hm == "hit_rate_all"
                 else "hit rate")
        h_ = lambda b: app.all(APP, b, x, hm)
        lat = lambda b: app.all(APP, b, x, "launch_ms_p50")
        mk, mn = any_kills(app, APP, "memfd", x, APP_KILLS)
        mruns, mbg, mfg = app_kills(app, "memfd", x)
        for b in ("volatile", "ashmem"):
            runs, bg, fg = app_kills(app, b, x)
            k, n = any_kills(app, APP, b, x, APP_KILLS)
            where = f"{b} against memfd, Android's regime {swap}"
            hv, hd = evid.medians(h, "useful", f"{hname}, {where}", h_(b),
                                  h_("memfd"), "above", "below", True)
            lv, ld = evid.medians(h, "useful", f"launch p50, {where}",
                                  lat(b), lat("memfd"), "longer than",
                                  "shorter than", False)
            ktext = evid.counts(h, "useful", f"runs with an OOM kill, "
                                f"{where}", k, n, mk, mn, True)
            w(f"- Android's regime {swap} (section 5): {b}'s apps have a "
              f"{hname} {hv} that of memfd, Android's libcutils today "
              f"({hd}), a launch p50 {lv} memfd's ({ld}), and OOM "
              f"kills in {runs} runs ({bg:g} background, {fg:g} "
              f"foreground) against memfd's {mruns} ({mbg:g} / {mfg:g}; "
              f"{ktext}).")
        k1, n1 = any_kills(app, APP, "volatile", x, APP_KILLS)
        k2, n2 = any_kills(app, APP, "ashmem", x, APP_KILLS)
        ktext = evid.counts(h, "badly", f"runs with an OOM kill, volatile "
                            f"against ashmem, Android's regime {swap}", k1,
                            n1, k2, n2, True)
        w(f"- The same, volatile against ashmem: runs with an OOM kill "
          f"{k1} of {n1} against {k2} of {n2} ({ktext}).")
    for x in app.params(APP_LMKD):
        lmkd_lines(app, x, w, h, evid)
    w("")
    if data[SWEEP]:
        sweep_lines(Table(data[SWEEP]), w, h, evid)
    gpoints = purge.params("purge_global")
    if gpoints:
        w("**Under global pressure, the phone's regime (section 2)**\n")
        for x in gpoints:
            kk = {b: any_kills(purge, "purge_global", b, x, ("oom_kills",))
                  for b in ("volatile", "ashmem", "anon")}
            (kv, nv), (ka, na), (kn, nn) = (kk["volatile"], kk["ashmem"],
                                            kk["anon"])
            p99 = {b: stall_values(purge, "purge_global", b, x,
                                   "stall_ms_p99")[0]
                   for b in ("volatile", "ashmem")}
            where = f"global pressure, {x:g} MiB unpinned"
            ktext = evid.counts(h, "badly", f"foreground OOM-killed, "
                                f"volatile against ashmem, {where}", kv,
                                nv, ka, na, True)
            text = (f"- {x:g} MiB of unpinned data: the foreground was "
                    f"OOM-killed in {kv} of {nv} runs with volatile, {ka} "
                    f"of {na} with ashmem, {kn} of {nn} with anon "
                    f"(volatile against ashmem: {ktext})")
            if p99["volatile"] and p99["ashmem"]:
                v, d = evid.medians(h, "badly", f"foreground stall p99 in "
                                    "runs without a kill, volatile against "
                                    f"ashmem, {where}", p99["volatile"],
                                    p99["ashmem"], "longer than",
                                    "shorter than", False)
                text += (f"; in the runs without a kill ({len(p99['volatile'])}"
                         f" and {len(p99['ashmem'])}) volatile's stall p99 "
                         f"is {v} ashmem's ({d})")
            else:
                text += ("; the stalls are not compared: one side has no "
                         "run without a kill")
            w(text + ".")
        w("")
    w("**Did ashmem do it badly?**\n")
    bench = "concurrency_threads"
    xs = conc.params(bench)
    if xs:
        lo, hi = min(xs), max(xs)
        sc = lambda b: fmt_ratio(conc.all(bench, b, hi, "pairs_per_s"),
                                 conc.all(bench, b, lo, "pairs_per_s"))
        at = lambda b: conc.all(bench, b, hi, "pairs_per_s")
        v, d = evid.medians(h, "badly", f"pin/unpin throughput at {hi:g} "
                            "threads, volatile against ashmem",
                            at("volatile"), at("ashmem"), "above", "below",
                            True)
        w(f"- One global mutex (section 6): from {lo:g} to {hi:g} threads "
          f"ashmem's throughput scales {sc('ashmem')}x, volatile's "
          f"{sc('volatile')}x; at {hi:g} threads volatile's is {v} "
          f"ashmem's ({d}). The guest's {hi:g} threads share 2 host "
          "cores under TCG, so this measures contention and "
          "oversubscription together.")
    mib = pick(purge.params("purge_reclaim"), 64)
    if mib is not None:
        g = lambda b: purge.get("purge_reclaim", b, mib, "purged_mib")
        some = lambda b: purge.all("purge_reclaim", b, mib, "purged_mib")
        kv = sum(1 for v in some("volatile") if not v > 0)
        ka = sum(1 for v in some("ashmem") if not v > 0)
        nv, na = len(some("volatile")), len(some("ashmem"))
        ktext = evid.counts(h, "badly", f"a child cgroup's memory.reclaim "
                            f"purging nothing of {mib:g} MiB unpinned, "
                            "volatile against ashmem", kv, nv, ka, na,
                            True)
        w(f"- A shrinker that is not memcg-aware (section 2): a cgroup's "
          f"memory.reclaim of {mib:g} MiB of unpinned data purges "
          f"{fmt(g('ashmem'))} MiB of ashmem's and {fmt(g('volatile'))} "
          f"MiB of volatile's (medians); it purged nothing in {ka} of "
          f"{na} runs with ashmem, {kv} of {nv} with volatile ({ktext}).")
    for x in share.params(SHARE):
        done = lambda b: sum(1 for v in share.all(SHARE, b, x,
                                                  "hog_ok_producer")
                             if v == 1)
        n = lambda b: len(share.all(SHARE, b, x, "hog_ok_producer"))
        if share.all(SHARE, "ashmem", x, "hog_ok_producer"):
            fail = lambda b: n(b) - done(b)
            ktext = evid.counts(h, "badly", f"shared regions of "
                                f"{size_label(x)}: the hog under the "
                                "producer's memory.max failing, volatile "
                                "against ashmem", fail("volatile"),
                                n("volatile"), fail("ashmem"),
                                n("ashmem"), True)
            w(f"- Shared regions of {size_label(x)} under the producer's "
              f"memory.max (section 4): the hog completes in "
              f"{done('volatile')} of {n('volatile')} runs with volatile, "
              f"{done('ashmem')} of {n('ashmem')} with ashmem (failing: "
              f"{ktext}), {done('memfd')} of {n('memfd')} with memfd.")
    gmib = pick(purge.params("purge_global"), 64)
    if gmib is not None:
        op = lambda b: purge.all("purge_global", b, gmib, "overpurge")
        v, d = evid.medians(h, "badly", f"over-purge under global "
                            f"pressure, {gmib:g} MiB, volatile against "
                            "ashmem", op("volatile"), op("ashmem"),
                            "larger than", "smaller than", False)
        w(f"- Over-purge under global pressure, {gmib:g} MiB (section 2; "
          f"purged / needed): {fmt(median(op('ashmem')))} for ashmem and "
          f"{fmt(median(op('volatile')))} for volatile (medians); "
          f"volatile's is {v} ashmem's ({d}). purgebench unpins one "
          "region, so this does not separate whole-range from "
          "page-granular purging.")
    w("")
    w("**Where ashmem is better**\n")
    rmib = pick(purge.params("purge_rootreclaim"), 64)
    better = []
    if rmib is not None:
        th = lambda b: purge.all("purge_rootreclaim", b, rmib,
                                 "purge_mib_per_s")
        v, d = evid.medians(h, "badly", f"purge throughput under root "
                            f"memory.reclaim, {rmib:g} MiB, volatile "
                            "against ashmem", th("volatile"), th("ashmem"),
                            "faster than", "slower than", True)
        better.append(("slower than", v,
                       f"- Purge throughput where both purge (root "
                       f"memory.reclaim, {rmib:g} MiB, section 2): "
                       f"volatile's is {v} ashmem's ({d})."))
    sizes = pin.params("pin_size")
    if sizes:
        x = min(sizes)
        pp = lambda b: pin.all("pin_size", b, x, "pair_ns_p50")
        v, d = evid.medians(h, "badly", f"unpin + pin of a "
                            f"{size_label(x)} region, volatile against "
                            "ashmem", pp("volatile"), pp("ashmem"),
                            "slower than", "faster than", False)
        better.append(("slower than", v,
                       f"- Unpin + pin of a {size_label(x)} region "
                       f"(section 1): volatile's pair is {v} ashmem's "
                       f"({d})."))
    for _, _, text in better:
        w(text)
    if not any(want == got for want, got, _ in better):
        w("- In none of the comparisons above is ashmem ahead by an "
          "interval that excludes 1.")
    w("")
    users = [b for b in USER_BACKENDS if app.all(APP, b, 0, "hit_rate")]
    if users:
        w("**Does kernel-driven purging beat Android's userspace model?**\n")
        hr = lambda b: app.all(APP, b, 0, "hit_rate")
        lat = lambda b: app.all(APP, b, 0, "launch_ms_p50")
        compared = []
        for b in users:
            n, ev, pu, ok = acted(app, b, 0)
            k, nk = any_kills(app, APP, b, 0, APP_KILLS)
            if not ok:
                evid.note("user", f"{b} did not act (trigger events in "
                          f"{ev} of {n} runs, purged MiB in {pu}): not "
                          "compared.")
                w(f"- {b} (section 5, without swap) did not act: its "
                  f"manager had trigger events in {ev} of {n} runs and "
                  f"purged MiB in {pu} of {n} "
                  f"({fmt(sum(app.all(APP, b, 0, 'mgr_events')))} events, "
                  f"{fmt(sum(app.all(APP, b, 0, 'purged_mib')))} MiB in "
                  f"all; OOM kills in {k} of {nk} runs). Without the model at "
                  "work its runs measure memfd regions beside an idle "
                  "manager: not compared.")
                continue
            compared.append(b)
            kv, nv = any_kills(app, APP, "volatile", 0, APP_KILLS)
            hv, hd = compare(h, hr("volatile"), hr(b), "above", "below")
            lv, ld = compare(h, lat("volatile"), lat(b), "longer than",
                             "shorter than")
            ktext = evid.counts(h, "user", f"runs with an OOM kill, "
                                f"volatile against {b}, without swap", kv,
                                nv, k, nk, True)
            w(f"- Against {b} (section 5, without swap; it acted in all "
              f"{n} runs): volatile's hit rate is {hv} its ({hd}), "
              f"volatile's launch p50 {lv} its ({ld}); OOM kills in {k} "
              f"of {nk} runs against volatile's {kv} of {nv} "
              f"({ktext}); its manager saw "
              f"{fmt(sum(app.all(APP, b, 0, 'mgr_events')))} trigger "
              f"events, purged "
              f"{fmt(sum(app.all(APP, b, 0, 'purged_mib')))} MiB in all "
              f"and spent {fmt(app.get(APP, b, 0, 'mgr_cpu_ms'))} ms of "
              "CPU (median).")
        if not compared:
            w("- Not answered by these runs: no userspace row acted in "
              "every run, so kernel purging was not put against a working "
              "userspace model.")
        for k in ("volatile", "ashmem") if compared else ():
            found = []
            for m, what, more in USER_MEASURES:
                for b in compared if more is not None else ():
                    a, c = app.all(APP, k, 0, m), app.all(APP, b, 0, m)
                    lo_hi = ratio_ci(a, c)
                    if lo_hi is None:
                        continue
                    lo, hi = lo_hi
                    better = lo > 1 if more else hi < 1
                    worse = hi < 1 if more else lo > 1
                    tok = h.add(mwu_p(a, c))
                    if k == "volatile":
                        evid.add("user", better if better or worse else None,
                               f"{what}, volatile against {b} "
                               f"({fmt_ratio(a, c)}x, Holm-adjusted {tok})",
                               tok, better or worse)
                    if better or worse:
                        found.append((better, tok,
                                      f"{what} vs {b} ({fmt_ratio(a, c)}x, "
                                      f"Holm-adjusted {tok})"))

            def listing(hh, found=found, k=k):
                held = lambda ok: [t for b_, tok, t in found if b_ == ok
                                   and (hh.adjusted(tok) or 1) < 0.05]
                weak = lambda ok: [t for b_, tok, t in found if b_ == ok
                                   and not (hh.adjusted(tok) or 1) < 0.05]
                return (f"Where {k} beats the acted userspace rows (interval "
                        f"excludes 1, section 5), holding after Holm's "
                        f"correction: {'; '.join(held(True)) or 'nowhere'}; "
                        f"not holding: {'; '.join(weak(True)) or 'none'}. "
                        f"Where it loses, holding: "
                        f"{'; '.join(held(False)) or 'nowhere'}; not "
                        f"holding: {'; '.join(weak(False)) or 'none'}.")
            w(f"- {h.defer(listing)} (Read with the OOM kills above: a run "
              "whose apps were killed has its pressure relieved by the "
              "kills, and fewer apps to serve.)")
        w("")
    w(h.defer(lambda hh: f"Holm's correction above is across the {len(hh)} "
              "comparisons of this section with a p-value (Fisher's exact "
              "test for k-of-n counts, Mann-Whitney U for medians); an "
              "adjusted p below 0.05 is what holds with the multiplicity "
              "of the search accounted for.\n"))
    w("**What these runs do not answer**\n")
    w("- Hardware: every number is from an emulated CPU (TCG); ratios "
      "between backends, not absolute times, carry over, and even those "
      "only as far as emulation slows system calls, faults and memory "
      "access alike.")
    w("- Real apps: the access traces are synthetic (Zipf, seeded), the "
      "images synthetic, the app count and sizes scaled to a 1 GiB "
      "guest; no recorded trace of a real device was replayed.")
    if not app.params(APP_LMKD):
        w(f"- Android's own killer. {killer_text(app)} The lab's PSI "
          "manager's trigger settings are three of many.")
    else:
        w("- Android's own killer in full: the lmkd-like killer "
          "(bench/lib/lmkd.c) keeps lmkd's PSI levels, watermark and "
          "swap checks and kill order, but not its thrashing reasons "
          "(the app regime has no file-backed working set) or its "
          "low-RAM variants; the lab's PSI manager's trigger settings "
          "are three of many.")
    lmkd = " or lmkd's own kill-and-trim policy" \
        if not app.params(APP_LMKD) else ""
    w("- A PSI trigger that fires in time: in this regime a pressure "
      "episode starts and ends (by a purge or an OOM kill) within tens "
      "to hundreds of ms (section 5), and the events counted above say "
      "how seldom 10, 50 or 150 ms of stall in a 1 s window was reached "
      "before the OOM killer acted. Smaller thresholds or a trigger on "
      f"the watermarks{lmkd} were not tried.")
    w("")
