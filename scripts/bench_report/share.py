# SPDX-License-Identifier: GPL-2.0
"""Section 4: regions shared between processes (share.csv)."""

from .common import *  # noqa: F401,F403


def section(run, w):
    report_share(run.data[SHARE], w)


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


def checks(d, data, opts):
    t = Table(data[SHARE])
    missing = [b for b in SHARE_BACKENDS if b not in t.backends(SHARE)]
    yield (data[SHARE] and not missing,
           "share.csv: every fd-sharing backend"
           + (f"; missing {', '.join(missing)}" if missing else ""))
    bad = sum(r["value"] for r in data[SHARE]
              if r["metric"] == "handoff_bad")
    yield (bad == 0 and any(r["metric"] == "handoff_bad"
                            for r in data[SHARE]),
           f"shared regions: the consumer found every region intact or "
           f"reported purged ({bad:g} bad)")
