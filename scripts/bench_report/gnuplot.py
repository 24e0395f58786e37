# SPDX-License-Identifier: GPL-2.0
"""The graphs: one gnuplot script per graph, rendered as SVG and PNG."""

import os
import subprocess

from .common import *  # noqa: F401,F403
from .families import SECTIONS

# Every family's graphs.
GRAPHS = tuple(g for m in SECTIONS for g in getattr(m, "GRAPHS", ()))


# One colour per backend in every graph (PLOT_BACKENDS' order), none
# reused: gnuplot's default cycle has 8.
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
           "#8c564b", "#e377c2", "#000000", "#7f7f7f", "#17becf",
           "#bcbd22", "#393b79", "#ad494a", "#637939", "#8c6d31")
# How a series of a graph with several metrics is named in its legend.
SERIES = {"unpin_ns_p50": "unpin", "pin_ns_p50": "pin",
          "psi_some_pct": "some", "psi_full_pct": "full"}
# Which way is better, by the first metric drawn.
HIGHER = ("purge_mib_per_s", "hit_rate", "hit_rate_all", "pairs_per_s")


def series_name(metrics, m):
    return SERIES.get(m, m.rsplit("_", 1)[-1])


def plot(d):
    meta, data = load(d)
    # bench.sh plots into DIR.new before it replaces DIR.
    run = os.path.basename(os.path.normpath(d))
    run = run[:-4] if run.endswith(".new") else run
    where = f"{run}: {meta.get('machine', '?')}, {meta.get('accel', '?')}"
    for g in GRAPHS:
        name, fam, bench, metrics, xl, yl, logs, title = g[:8]
        t = Table(data[fam])
        xs = t.params(bench)
        backends = [b for b in PLOT_BACKENDS if b in t.backends(bench)]
        # Benchmarks older runs do not have are left out of their graphs.
        if (not xs or not backends) and g.optional:
            continue
        # Measures added later (app_freed) are absent from older runs.
        if g.needs_metric and not any(r["metric"] in metrics
                                      for r in data[fam]):
            continue
        if not xs or not backends:
            raise BadInput(f"{d}: no data for graph {name} ({bench})")
        # A log axis would drop a zero: such a graph is drawn linear.
        values = [v for b in backends for x in xs for m in metrics
                  for v in stall_values(t, bench, b, x, m)[0]]
        if "y" in logs and any(v <= 0 for v in values):
            logs = logs.replace("y", "")
        # Categories on x (swap none / zram): points side by side, no line.
        categorical = fam == APP
        dat = os.path.join(d, name + ".dat")
        cols = []
        # A point of a run that was OOM-killed (in most of its runs) is
        # drawn again as a cross.
        oom = fam in ("purge", APP, SWEEP, ARENA)
        with open(dat, "w", encoding="utf-8") as f:
            f.write("# x, then per backend and metric: median, min, max "
                    "over the runs (stalls: runs without an OOM kill) "
                    + " ".join(f"{b}:{m}" for b in backends
                               for m in metrics) +
                    (" " + " ".join(f"{b}:oom" for b in backends)
                     if oom else "") + "\n")
            for x in xs:
                vals = []
                for b in backends:
                    for m in metrics:
                        v = stall_values(t, bench, b, x, m)[0]
                        for s_ in ((median(v), min(v), max(v)) if v else
                                   (None, None, None)):
                            vals.append("NaN" if s_ is None or
                                        ("y" in logs and s_ <= 0)
                                        else f"{s_:.6g}")
                if oom:
                    for b in backends:
                        k = [sum(n) for n in zip(
                            *(t.all(bench, b, x, m) for m in
                              ("oom_kills", "oom_kills_bg", "oom_kills_fg")
                              if t.all(bench, b, x, m)))]
                        v = t.get(bench, b, x, metrics[-1])
                        killed = sum(1 for n in k if n > 0) * 2 > len(k)
                        vals.append(f"{v:.6g}" if killed and v and
                                    not ("y" in logs and v <= 0)
                                    else "NaN")
                f.write(f"{x:g} " + " ".join(vals) + "\n")
        col = 2
        step = (max(xs) - min(xs) or 1) / (4 * len(backends) + 4)
        for i, b in enumerate(backends):
            colour = COLOURS[PLOT_BACKENDS.index(b) % len(COLOURS)]
            xcol = (f"($1+{(i - len(backends) / 2) * step:g})"
                    if categorical else "1")
            for dash, m in enumerate(metrics, 1):
                label = b if len(metrics) == 1 else \
                    f"{b} {series_name(metrics, m)}"
                if b == "lru":
                    label, style = ("lru (reference, budget searched)",
                                    "linespoints lc rgb 'black' dt 2 lw 2")
                elif b == "belady":
                    label, style = ("Belady optimum, lru budget",
                                    "linespoints lc rgb 'gray40' dt 3 lw 2")
                else:
                    style = (f"{'points' if categorical else 'linespoints'} "
                             f"pt {4 + 2 * (dash - 1)} lc rgb '{colour}' "
                             f"dt {dash}")
                cols.append(f"'{dat}' using {xcol}:{col} with {style} "
                            f"title '{label}'")
                cols.append(f"'{dat}' using {xcol}:{col}:{col + 1}:"
                            f"{col + 2} with yerrorbars lc rgb '{colour}' "
                            "pt 0 notitle")
                col += 3
        if oom:
            for i, b in enumerate(backends):
                cols.append(f"'{dat}' using 1:{col + i} with points pt 2 "
                            f"ps 2 lc rgb "
                            f"'{COLOURS[PLOT_BACKENDS.index(b) % len(COLOURS)]}' "
                            + ("title 'OOM-killed (most runs)'" if i == 0
                               else "notitle"))
        better = ("higher is better" if metrics[0] in HIGHER else
                  "lower is better")
        yl = yl.replace(" (log)", "") + (", log scale" if "y" in logs
                                         else "") + f" ({better})"
        label = f"{title}\\n({where}; bars: min-max over the runs)"
        label = label.replace('"', "'")
        script = [f'set title "{label}" noenhanced',
                  f"set xlabel '{xl}'",
                  f"set ylabel '{yl}'", "set key outside right",
                  "set grid"]
        if len(xs) == 1:
            script.append(f"set xrange [{xs[0] / 2:g}:{xs[0] * 1.5:g}]")
        if "x" in logs:
            script.append("set logscale x 2")
        if "y" in logs:
            script.append("set logscale y 10")
        elif fam in ("cache", SWEEP) or name == "app_hit":
            script.append("set yrange [0:1]")
        else:
            script.append("set yrange [0:*]")
        if categorical:
            script.append(f"set xrange [{min(xs) - 0.5 * (max(xs) - min(xs) or 64):g}:"
                          f"{max(xs) + 0.5 * (max(xs) - min(xs) or 64):g}]")
            script.append("set xtics (" + ", ".join(
                f"'{'none' if x == 0 else f'zram {x:g} MiB'}' {x:g}"
                for x in xs) + ")")
        if not values:
            # No run measured it (a quick run without a pressure episode,
            # say): gnuplot refuses a plot with every point undefined, so
            # the graph says so on an empty frame.
            script += ["unset logscale y", "set yrange [0:1]",
                       "set label 'no data in this run' "
                       "at graph 0.5, 0.5 center"]
            cols = ["-1 notitle"]
        for term, ext in (("svg size 1100,600 dynamic", "svg"),
                          ("pngcairo size 1100,600", "png")):
            body = "\n".join([f"set terminal {term}",
                              f"set output '{os.path.join(d, name)}.{ext}'"]
                             + script + ["plot " + ", ".join(cols)]) + "\n"
            subprocess.run(["gnuplot"], input=body, text=True, check=True)
    return 0
