# SPDX-License-Identifier: GPL-2.0
"""Section 3: cache hit rate under cgroup memory limits (cache.csv)."""

from .common import *  # noqa: F401,F403


# The graphs of this family (gnuplot.py draws them).
GRAPHS = (
    Graph("cache_hit", "cache", "cache_regions", ("hit_rate",),
          "memory.max (MiB; 0 = none)", "hit rate", "",
          "Image cache, one region per object: hit rate"),
    Graph("cache_hit_arena", "cache", "cache_arena", ("hit_rate",),
          "memory.max (MiB; 0 = none)", "hit rate", "",
          "Image cache, one arena: hit rate"),
    Graph("cache_hit_competitor", "cache", "cache_regions_competitor", ("hit_rate",),
          "memory.max (MiB; 0 = none)", "hit rate", "",
          "Image cache with a competing process: hit rate"),
)


def section(run, w):
    arch, cache = run.arch, run.table("cache")
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
        bs = plus_droppable(CACHE_BACKENDS, cache, bench)
        w("| memory.max (MiB) | " + " | ".join(bs) + " |")
        w("|---" * (len(bs) + 1) + "|")
        for x in cache.params(bench):
            cells = []
            for b in bs:
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


def checks(d, data, opts):
    yield every_backend("cache", data, CACHE_BACKENDS)
    cache = data["cache"]
    bad = [r for r in cache if r["metric"] == "hit_rate"
           and not 0 <= r["value"] <= 1]
    yield (not bad and any(r["metric"] == "hit_rate" for r in cache),
           "cache hit rates within [0, 1]")
    fails = sum(r["value"] for r in cache if r["metric"] == "verify_failures")
    yield (fails == 0 and any(r["metric"] == "verify_failures"
                              for r in cache),
           f"cache hits verified byte for byte: {fails:g} failures")
