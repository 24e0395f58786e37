# SPDX-License-Identifier: GPL-2.0
"""Section 6: concurrency (concurrency.csv)."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


# The graphs of this family (gnuplot.py draws them).
GRAPHS = (
    Graph("concurrency_threads", CONC, "concurrency_threads", ("pairs_per_s",),
          "threads, each with its own regions", "unpin + pin pairs/s (log)", "xy",
          "Concurrency, threads of one process: throughput", optional=True),
    Graph("concurrency_procs", CONC, "concurrency_procs", ("pairs_per_s",),
          "processes, each with its own regions", "unpin + pin pairs/s (log)", "xy",
          "Concurrency, processes: throughput", optional=True),
    Graph("concurrency_shared", CONC, "concurrency_shared", ("pairs_per_s",),
          "threads, each with its own slices of one shared region",
          "unpin + pin pairs/s (log)", "xy",
          "Concurrency, one shared region: throughput", optional=True),
)


def section(run, w):
    report_conc(run.arch, run.data[CONC], w)


def report_conc(arch, rows, w):
    """Concurrency (conbench), when the run has it."""
    if not rows:
        return
    t = Table(rows)
    w("### 6. Concurrency\n")
    w(f"![concurrency_threads]({arch}/concurrency_threads.svg)\n")
    w(f"![concurrency_procs]({arch}/concurrency_procs.svg)\n")
    if t.params("concurrency_shared"):
        w(f"![concurrency_shared]({arch}/concurrency_shared.svg)\n")
    w("N workers, threads of one process or processes, each unpinning and "
      "pinning 64 KiB regions of its own, started together: unpin + pin "
      "pairs per second over all workers (median over repetitions), and "
      "in brackets the p99 of one pair in us. The guest has 4 vCPUs on "
      "a 2-core host under TCG: above 2 workers the host's cores are "
      "shared, so scaling there measures contention and oversubscription "
      "together. What workers share: ashmem one global mutex; anon and "
      "madvfree the mmap_lock of the process (threads only); volatile "
      "(memfd) each region's inode lock, and for threads the mmap_lock "
      "of its mapping; memfd does no system call (the floor). One "
      "shared region: threads that unpin and pin disjoint 64 KiB "
      "slices of one region (one memfd, one ashmem fd, one mapping), "
      "where a file's own locks are shared by design.\n")
    for bench, kind in (("concurrency_threads", "threads"),
                        ("concurrency_procs", "processes"),
                        ("concurrency_shared", "one shared region")):
        xs = t.params(bench)
        if not xs:
            continue
        w(f"| {kind} | " + " | ".join(CONC_BACKENDS) + " |")
        w("|---" * (len(CONC_BACKENDS) + 1) + "|")
        for x in xs:
            w(f"| {x:g} | " + " | ".join(
                f"{fmt(t.get(bench, b, x, 'pairs_per_s'))} "
                f"({fmt(nz(t.get(bench, b, x, 'pair_ns_p99'), 1e-3))})"
                for b in CONC_BACKENDS) + " |")
        lo, hi = min(xs), max(xs)
        w(f"| scaling {hi:g} / {lo:g} [95% CI] | " + " | ".join(
            fmt_ratio(t.all(bench, b, hi, "pairs_per_s"),
                      t.all(bench, b, lo, "pairs_per_s"))
            for b in CONC_BACKENDS) + " |")
        w("")


def checks(d, data, opts):
    yield every_point(CONC, data, CONC_BACKENDS, "pairs_per_s")
