# SPDX-License-Identifier: GPL-2.0
"""The two kernels side by side (issue 28): the headline rows of each
arch's 6.1 run beside its 6.12 run (results/<arch> and
results/<arch>-6.12), and where the kernel changes the answer."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403
from .headline import headline


def direction(a, b):
    """">1", "<1" or "~1": where the 95% bootstrap interval of
    median(a) / median(b) lies against 1 (stats.verdict()); "?" when
    there is none."""
    v = verdict(a, b, ">1", "<1")
    return {"indistinguishable from": "~1", "not comparable with": "?"}.get(
        v, v)


def pairs(loaded):
    """(arch, older run, newer run) for every arch with runs on two
    kernels."""
    by_arch = {}
    for name, d, meta, data in loaded:
        by_arch.setdefault(name.split("-")[0], []).append(
            (kernel_version(meta), name, meta, data))
    for arch, runs in sorted(by_arch.items()):
        runs = sorted(r for r in runs if r[0] is not None)
        if len(runs) >= 2 and runs[0][0] != runs[-1][0]:
            yield arch, runs[0], runs[-1]


def rows_of(data):
    tables = [Table(data[f]) for f in FAMILIES]
    return headline(*tables, lambda _: None)


def side_by_side(loaded, w):
    for arch, old, new in pairs(loaded):
        (kv0, n0, m0, d0), (kv1, n1, m1, d1) = old, new
        k0, k1 = (f"{v[0]}.{v[1]}" for v in (kv0, kv1))
        w(f"## {arch}: {k0} and {k1} side by side\n")
        w(f"The headline rows of `results/{n0}` (kernel "
          f"{m0.get('kernel', '?')}) and `results/{n1}` (kernel "
          f"{m1.get('kernel', '?')}): the same benchmarks, plan and guest, "
          "each kernel in a boot of its own, so compare the ratios, "
          "not the absolute values across kernels. A ratio's direction is "
          ">1 or <1 when its 95% bootstrap interval excludes 1, ~1 "
          "when it includes it; the last column says where the kernel "
          "changes it.\n")
        w(f"| measure | volatile / ashmem on {k0} | on {k1} | "
          f"volatile on {k0} | on {k1} | ashmem on {k0} | on {k1} | "
          "direction changes |")
        w("|---|---|---|---|---|---|---|---|")
        r1 = {label: (t, bench, x, m)
              for label, t, bench, x, m in rows_of(d1)}
        changed = 0
        for label, t0, bench, x, metric in rows_of(d0):
            if label not in r1 or metric == "oom_kills":
                continue
            t1 = r1[label][0]
            v0, a0 = (stall_values(t0, bench, b, x, metric)[0]
                      for b in ("volatile", "ashmem"))
            v1, a1 = (stall_values(t1, bench, b, x, metric)[0]
                      for b in ("volatile", "ashmem"))
            dir0, dir1 = direction(v0, a0), direction(v1, a1)
            moved = dir0 != dir1 and "?" not in (dir0, dir1)
            changed += moved
            w(f"| {label} | {fmt_ratio(v0, a0)} | {fmt_ratio(v1, a1)} | "
              f"{fmt(median(v0))} | {fmt(median(v1))} | "
              f"{fmt(median(a0))} | {fmt(median(a1))} | "
              + (f"**{dir0} to {dir1}**" if moved else "no") + " |")
        w("")
        w(f"The kernel changes the direction of {changed} headline "
          "ratio(s).\n")
