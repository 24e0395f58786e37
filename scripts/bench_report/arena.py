# SPDX-License-Identifier: GPL-2.0
"""Section 10: whole-range against page-granular purge, the arena
(arena.csv: purgebench --ranges, in the main plan since this section)."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403

BENCH = "purge_arena"

GRAPHS = (
    Graph("arena_overpurge", ARENA, BENCH, ("overpurge",),
          "unpinned ranges in the arena (log)", "purged / needed", "x",
          "Arena under global pressure: over-purge (1 = purged what "
          "the foreground needed)", optional=True),
)


def section(run, w):
    report_arena(run.arch, run.data[ARENA], w)


def clean_overpurge(t, b, x):
    """@b's over-purge at @x in the runs whose foreground was not
    killed."""
    return [t.at(BENCH, b, x, "overpurge", r)
            for r in t.reps(BENCH, b, x, "overpurge")
            if not t.at(BENCH, b, x, "oom_kills", r)]


def killed_runs(t, b, x):
    k = t.all(BENCH, b, x, "oom_kills")
    return sum(1 for v in k if v > 0), len(k)


def report_arena(arch, rows, w):
    w("### 10. Whole-range against page-granular purge: the arena\n")
    if not rows:
        w("Not in this results set: the arena (purgebench --ranges) "
          "joined the plan after it was made.\n")
        return
    t = Table(rows)
    xs = t.params(BENCH)
    reps = sorted({r["rep"] for r in rows})
    unpinned = sorted({r["value"] for r in rows
                       if r["metric"] == "unpinned_mib"})
    w(f"![arena_overpurge]({arch}/arena_overpurge.svg)\n")
    w("A region of which half is unpinned in K ranges of equal size, a "
      "pinned gap after each (unpinned: "
      f"{', '.join(f'{v:g}' for v in unpinned) or '?'} MiB), then global "
      "pressure: a foreground touches what was free and a quarter of the "
      "unpinned data more (section 2's global mode). ashmem's shrinker "
      "purges a range whole; the others purge pages or chunks. Over-"
      "purge is purged / needed (what the foreground touched beyond the "
      "room it had): 1 is ideal, lower is better down to 1. "
      f"{len(reps)} repetition(s); the runs whose foreground was OOM-"
      "killed are counted apart, and their over-purge is left out. "
      "Pinned lost: pages of the pinned gaps that read zeros after the "
      "run (median MiB), which only droppable may lose, since the "
      "kernel drops its pages pinned or not.\n")
    w("| ranges | backend | over-purge, median [min-max] | purged MiB | "
      "needed MiB | runs OOM-killed | over-purge / ashmem's [95% CI] | "
      "pinned lost MiB |")
    w("|---|---|---|---|---|---|---|---|")
    for x in xs:
        for b in plus_droppable(ARENA_BACKENDS, t, BENCH):
            if not t.all(BENCH, b, x, "purged_mib"):
                continue
            clean = clean_overpurge(t, b, x)
            base = clean_overpurge(t, "ashmem", x)
            k, n = killed_runs(t, b, x)
            span = (f"{fmt(median(clean))} [{fmt(min(clean))}-"
                    f"{fmt(max(clean))}]" if clean else "n/a")
            w(f"| {x:g} | {b} | {span} | "
              f"{fmt(t.get(BENCH, b, x, 'purged_mib'))} | "
              f"{fmt(t.get(BENCH, b, x, 'needed_mib'))} | {k} of {n} | "
              + (fmt_ratio(clean, base) if b != "ashmem" and clean and base
                 else "") + " | "
              + fmt(t.get(BENCH, b, x, "pinned_lost_mib")) + " |")
    w("")


def checks(d, data, opts):
    rows = data[ARENA]
    if not rows:
        yield True, "the arena # SKIP not in this run (older plan)"
        return
    yield every_point(ARENA, data, ARENA_BACKENDS, "purged_mib")
    t = Table(rows)
    xs = t.params(BENCH)
    yield (len(xs) >= 2 and min(xs) == 1,
           "the arena has one range and more: ranges "
           + (", ".join(f"{x:g}" for x in xs) or "none"))
    bad = [r for r in rows if r["metric"] in ("purged_mib", "needed_mib",
                                              "overpurge", "unpinned_mib")
           and not (r["value"] >= 0)]
    yield (not bad, "the arena's purged, needed and unpinned MiB are "
           "non-negative" + (f"; first bad: {row_name(bad[0])}"
                             if bad else ""))
    lost = [r for r in rows if r["metric"] == "pinned_lost_mib"
            and r["backend"] != DROPPABLE and r["value"] != 0]
    yield (not lost, "no backend but droppable lost pinned data in the "
           "arena (pinned_lost_mib = 0)"
           + (f"; first: {row_name(lost[0])}" if lost else ""))
