# SPDX-License-Identifier: GPL-2.0
"""Section 7: the CPU-model points again on -cpu max (cpu-max/)."""

import os

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


def section(run, w):
    report_cpu(run.arch, run.d, run.meta, run.table("pin"),
               run.table("cache"), w)


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
