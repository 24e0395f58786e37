# SPDX-License-Identifier: GPL-2.0
"""Section 8: ashmem's points in the Rust mode (ashmem-rust/)."""

from .common import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403
from .app import app_kills


def section(run, w):
    report_rust(run.arch, run.d, run.data, w)


def load_sub(d, name, fam):
    """Rows of @fam.csv in the extra boot's directory @d/@name, or []."""
    path = os.path.join(d, name, fam + ".csv")
    return read_csv(path)[1] if os.path.exists(path) else []


def report_rust(arch, d, data, w):
    """ashmem's points in the Rust mode (ashmem-rust/), if run."""
    app2 = Table(load_sub(d, "ashmem-rust", APP))
    purge2 = Table(load_sub(d, "ashmem-rust", "purge"))
    conc2 = Table(load_sub(d, "ashmem-rust", CONC))
    if not app2.by_rep and not purge2.by_rep:
        return
    app, purge, conc = Table(data[APP]), Table(data["purge"]), \
        Table(data[CONC])
    w("### 8. Android's newest ashmem: the Rust mode\n")
    w("ashmem's points again in another boot of the same kernel with "
      "`ashmem.rust_mode=1` (kernel patch 16): the shrinker keeps the "
      "global mutex while it punches the hole and stops after the range "
      "in hand when a PIN waits for the mutex, as android16-6.12's Rust "
      "ashmem does. C is the main run's ashmem. Medians over "
      "repetitions; ratio Rust / C [95% CI].\n")
    w("| measure | C | Rust | Rust / C |")
    w("|---|---|---|---|")
    rows = [("app", app, app2, APP, 0, "hit_rate", "Android regime, hit rate"),
            ("app", app, app2, APP, 0, "launch_ms_p50",
             "Android regime, launch p50 (ms)"),
            ("app", app, app2, APP, 0, "psi_some_pct",
             "Android regime, PSI some (%)")]
    for bench, what in (("purge_rootreclaim", "root memory.reclaim, MiB/s"),
                        ("purge_purgeall", "PURGE_ALL_CACHES, MiB/s")):
        rows.append(("purge", purge, purge2, bench, 64, "purge_mib_per_s",
                     f"{what}, 64 MiB"))
    rows += [("purge", purge, purge2, "purge_global", 64, "stall_ms_p99",
              "global pressure, stall p99 (ms), 64 MiB"),
             ("purge", purge, purge2, "purge_global", 64, "overpurge",
              "global pressure, over-purge, 64 MiB")]
    for bench in ("concurrency_threads", "concurrency_procs"):
        for x in conc2.params(bench):
            rows.append(("conc", conc, conc2, bench, x, "pairs_per_s",
                         f"{bench}, {x:g} workers, pairs/s"))
    for _, t1, t2, bench, x, metric, what in rows:
        c, r = t1.all(bench, "ashmem", x, metric), \
            t2.all(bench, "ashmem", x, metric)
        if not r:
            continue
        w(f"| {what} | {fmt(median(c))} | {fmt(median(r))} | "
          f"{fmt_ratio(r, c)} |")
    runs, bg, fg = app_kills(app2, "ashmem", 0)
    w("")
    w(f"OOM kills in the Android regime, Rust mode: runs with a kill "
      f"{runs} ({bg:g} background, {fg:g} foreground).\n")
