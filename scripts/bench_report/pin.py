# SPDX-License-Identifier: GPL-2.0
"""Section 1: pin/unpin cost (pin.csv)."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403


# The graphs of this family (gnuplot.py draws them).
GRAPHS = (
    Graph("pin_size", "pin", "pin_size", ("pair_ns_p50",),
          "region size (KiB)", "unpin + pin, ns (p50)", "xy",
          "Cost of one unpin + pin of a whole region"),
    Graph("pin_frag", "pin", "pin_frag", ("unpin_ns_p50", "pin_ns_p50"),
          "unpinned one-page fragments in a 64 MiB region", "ns per call (p50)", "xy",
          "Cost per call with k fragments"),
    Graph("pin_regions", "pin", "pin_regions", ("unpin_ns_p50", "pin_ns_p50"),
          "live regions in the process", "ns per call (p50)", "xy",
          "Unpin and pin of one of R regions", optional=True),
)


def section(run, w):
    arch, pin = run.arch, run.table("pin")
    # 1. pin/unpin cost
    w("### 1. Pin/unpin cost\n")
    w(f"![pin_size]({arch}/pin_size.svg)\n")
    w("Unpin + pin of a whole region, p50 (p99), ns per pair; the ratio "
      "column is volatile / ashmem.\n")
    bs = plus_droppable(BACKENDS, pin, "pin_size")
    w("| size | " + " | ".join(bs) + " | volatile / ashmem |")
    w("|---" * (len(bs) + 2) + "|")
    losses = []
    for x in pin.params("pin_size"):
        cells = []
        for b in bs:
            cells.append(f"{fmt(pin.get('pin_size', b, x, 'pair_ns_p50'))} "
                         f"({fmt(pin.get('pin_size', b, x, 'pair_ns_p99'))})")
        r = ratio(pin.get("pin_size", "volatile", x, "pair_ns_p50"),
                  pin.get("pin_size", "ashmem", x, "pair_ns_p50"))
        if r is not None and r > 1:
            losses.append(size_label(x))
        w(f"| {size_label(x)} | " + " | ".join(cells) + f" | {fmt(r)} |")
    w("")
    if losses:
        w("volatile's pair is slower than ashmem's at: "
          + ", ".join(losses) + ". Not measured apart; from the "
          "mechanisms: neither unpin nor pin touches the pages (volatile: "
          "a VMA split, a flag and a list insertion, then a flag and a "
          "merge; ashmem: an edit of its list of ranges), so the "
          "difference is the fixed cost of the two paths (VMA split and "
          "merge under the mmap_lock, against an ioctl under one global "
          "mutex).\n")
    else:
        w("volatile's pair is not slower than ashmem's at any size "
          "measured.\n")
    w(f"![pin_frag]({arch}/pin_frag.svg)\n")
    w("k one-page fragments of a 64 MiB region, unpinned one by one then "
      "pinned one by one: ns per call, p50 (p99), and the process's VMAs "
      "while they are unpinned.\n")
    w("| k | ashmem unpin | volatile unpin | ratio | ashmem pin | "
      "volatile pin | ratio | VMAs (volatile) | VMAs (ashmem) |")
    w("|---|---|---|---|---|---|---|---|---|")
    frag_losses = []
    for x in pin.params("pin_frag"):
        row = [f"{x:g}"]
        for what in ("unpin", "pin"):
            a = pin.get("pin_frag", "ashmem", x, f"{what}_ns_p50")
            v = pin.get("pin_frag", "volatile", x, f"{what}_ns_p50")
            ap = pin.get("pin_frag", "ashmem", x, f"{what}_ns_p99")
            vp = pin.get("pin_frag", "volatile", x, f"{what}_ns_p99")
            row += [f"{fmt(a)} ({fmt(ap)})", f"{fmt(v)} ({fmt(vp)})",
                    fmt(ratio(v, a))]
            if ratio(v, a) and ratio(v, a) > 1:
                frag_losses.append(f"{what} at k={x:g}")
        row += [fmt(pin.get("pin_frag", "volatile", x, "vmas_unpinned")),
                fmt(pin.get("pin_frag", "ashmem", x, "vmas_unpinned"))]
        w("| " + " | ".join(row) + " |")
    w("")
    if frag_losses:
        w("volatile is slower per call than ashmem for: "
          + ", ".join(frag_losses) + ". Each volatile fragment splits the "
          "mapping's VMA (two more VMAs per fragment, see the VMA columns), "
          "and every madvise walks the VMA tree under mmap_lock; ashmem "
          "keeps a list of ranges per area under one global mutex, whose "
          "walk grows with k too.\n")

    report_orders(pin, w)
    report_regions(arch, pin, w)


ORDERS = (("asc", "pin_frag"), ("desc", "pin_frag_desc"),
          ("random", "pin_frag_random"))


def report_orders(pin, w):
    """The fragments unpinned and pinned in each order, where measured."""
    ks = sorted(set(pin.params("pin_frag_desc")) &
                set(pin.params("pin_frag_random")) &
                set(pin.params("pin_frag")))
    if not ks:
        return
    w("Fragment order: the same k fragments unpinned, then pinned, by "
      "ascending offset, by descending offset, or in a seeded random "
      "order. ns per call, p50, median over repetitions. ashmem keeps an "
      "area's unpinned ranges from the highest offset down, as Android's "
      "driver does (since series 26c27ed9b1; ascending before), and a "
      "walk stops at the first range below the pages it looks for: "
      "ascending unpins and descending pins find their place at once, "
      "the other orders walk the list. volatile ranges are VMAs (or, for "
      "memfd, a tree), whatever the order.\n")
    w("| k | backend | " + " | ".join(f"unpin {o}" for o, _ in ORDERS) +
      " | " + " | ".join(f"pin {o}" for o, _ in ORDERS) + " |")
    w("|---|---" + "|---" * 6 + "|")
    for k in ks:
        for b in ("ashmem", "volatile", "anon"):
            cells = [fmt(pin.get(bench, b, k, f"{what}_ns_p50"))
                     for what in ("unpin", "pin") for _, bench in ORDERS]
            w(f"| {k:g} | {b} | " + " | ".join(cells) + " |")
    w("")


def report_regions(arch, pin, w):
    """Unpin and pin among R live regions, where measured."""
    xs = pin.params("pin_regions")
    if not xs:
        return
    w(f"![pin_regions]({arch}/pin_regions.svg)\n")
    w("Region count: R live regions of 16 KiB in one process (R fds), "
      "unpin + pin of one drawn at random; ns per call, p50 (p99), median "
      "over repetitions. Both libraries look the region up on every call "
      "(ashmem-compat: fstat() of the fd and a walk of its own table; the "
      "driver's library: fstat() and the ioctl).\n")
    w("| regions | ashmem unpin | volatile unpin | ratio [95% CI] | "
      "ashmem pin | volatile pin | ratio [95% CI] |")
    w("|---|---|---|---|---|---|---|")
    for x in xs:
        row = [f"{x:g}"]
        for what in ("unpin", "pin"):
            m = f"{what}_ns_p50"
            row += [f"{fmt(pin.get('pin_regions', b, x, m))} "
                    f"({fmt(pin.get('pin_regions', b, x, what + '_ns_p99'))})"
                    for b in ("ashmem", "volatile")]
            row.append(fmt_ratio(pin.all("pin_regions", "volatile", x, m),
                                 pin.all("pin_regions", "ashmem", x, m)))
        w("| " + " | ".join(row) + " |")
    w("")


def checks(d, data, opts):
    yield every_backend("pin", data, BACKENDS)
