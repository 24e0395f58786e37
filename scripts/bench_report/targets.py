# SPDX-License-Identifier: GPL-2.0
"""The range engine's targets, against the first series' run."""

from .common import *  # noqa: F401,F403


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
        """volatile / @den in the first series, @eng / @den in this one
        (stall figures over the runs without an OOM kill)."""
        return tuple(ratio(median(stall_values(t, bench, e, x, metric)[0]),
                           median(stall_values(t, bench, den, x, metric)[0]))
                     for t, e in ((purge0, "volatile"), (purge, eng)))

    mib = pick(purge.params("purge_reclaim"), 64)
    if mib is not None:
        r0, r = purge_ratios("purge_reclaim", mib, "purge_mib_per_s",
                             "dontneed")
        row(f"memory.reclaim purge of {mib:g} MiB, {eng} / dontneed",
            r0, r, ">= 0.5", None if r is None else r >= 0.5, "reclaim")
        r0, r = purge_ratios("purge_global", mib, "stall_ms_p99",
                             "dontneed")
        row(f"global pressure, {mib:g} MiB: stall p99 without a kill, {eng} / dontneed",
            r0, r, "<= 2", None if r is None else r <= 2, "stall")
        r0, r = purge_ratios("purge_global", mib, "stall_ms_max", "ashmem")
        row(f"global pressure, {mib:g} MiB: stall max without a kill, {eng} / ashmem",
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
