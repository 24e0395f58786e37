# SPDX-License-Identifier: GPL-2.0
"""CSV loading and validation, the table of medians, formatting:
what every family module of the report uses."""

import collections
import math
import os
import statistics


HEADER = "backend,bench,param,value,metric,unit,rep"
FAMILIES = ("pin", "purge", "cache")
BACKENDS = ("ashmem", "volatile", "anon", "memfd", "madvfree", "pinned",
            "dontneed")
# lru: a userspace LRU with a budget found by search; belady: the offline
# optimum on the same trace and budget (added with appbench; older runs
# sized lru by a formula and have no belady).
CACHE_BACKENDS = BACKENDS + ("lru", "belady")
# sharebench: regions handed from a producer to a consumer through the fd
# (share.csv, from series b73e0cb909 on; older runs have none).
SHARE = "share"
SHARE_BACKENDS = ("ashmem", "volatile", "memfd")
# appbench (Android's regime) and conbench (concurrency), added with the
# guest's CONFIG_PSI; older runs have neither.
APP = "app"
APP_BACKENDS = ("pinned", "memfd", "ashmem", "madvfree", "volatile")
# Android's and Chromium's userspace model (issue 17): a purge manager on
# a PSI trigger of 10, 50 or 150 ms of stall per second, and the trim
# model; run without swap only.  uchrome (issue 27): Chromium's
# DiscardableSharedMemoryManager policy, budget, LRU and MemAvailable
# levels (guest-rootfs/lib/discard_chrome.c); runs before it have none.
USER_BACKENDS = ("uchrome", "upsi-10ms", "upsi-50ms", "upsi-150ms", "utrim")
# The one that must act in every run for the comparison to stand.
FAITHFUL_USER_BACKENDS = ("uchrome",)
# MAP_DROPPABLE (6.11; issue 28): a baseline on the kernels that have
# it (bench-matrix adds it there), in the families where it applies.
DROPPABLE = "droppable"
DROPPABLE_SINCE = (6, 11)
DROPPABLE_FAMILIES = ("pin", "purge", "cache", "app", "arena")
# Every backend a graph may draw, in the order of their colours.
PLOT_BACKENDS = CACHE_BACKENDS + USER_BACKENDS + (DROPPABLE,)
CONC = "concurrency"
# Kernel against userspace (section 5 and the answer): metric, what, and
# whether more is better (None: neither; over-purge near 1 is the aim,
# and a manager that never purged has 0).
USER_MEASURES = (("hit_rate", "hit rate", True),
                 ("launch_ms_p50", "launch p50", False),
                 ("session_s", "foreground time", False),
                 ("psi_some_pct", "PSI some", False),
                 ("psi_some_avg10_max", "PSI some avg10 max", False),
                 ("freed_ms_p50", "onset to freed p50", False),
                 ("freed_ms_max", "onset to freed max", False),
                 ("overpurge", "over-purge", None))
CONC_BACKENDS = ("ashmem", "volatile", "anon", "madvfree", "memfd")
# Benchmarks measured for some backends only.
BENCH_BACKENDS = {"pin_regions": ("ashmem", "volatile"),
                  # the hole punch needs a shmem file: a reference row
                  "purge_punchhole": ("volatile", "memfd")}
# The regime sweep (make bench BENCH_SWEEP=1): appbench at several
# levels of free memory, benches app_sweep (no swap) and app_sweep_zram.
SWEEP = "sweep"
# The arena (also BENCH_SWEEP=1): purgebench --ranges, bench purge_arena.
ARENA = "arena"
ARENA_BACKENDS = ("ashmem", "volatile", "anon", "madvfree")
OPTIONAL_FAMILIES = (SHARE, APP, CONC, SWEEP, ARENA)
META_KEYS = ("kernel", "series", "machine", "accel", "ram_mib", "cpus",
             "date", "clocksource", "clock_res_ns", "clock_step_ns")

# The foreground's OOM kills (purgebench --mode limit|global, issue 26):
# left_at_kill_mib is written only by a run whose foreground was killed;
# the vmstat deltas only where the kernel keeps the counter (volatile and
# anon only for the engine's own); the trace rows only where tracefs has
# the volatile_ranges events.  Older runs have none of them.
OOM_BENCHES = (("purge_limit", "under memory.max"),
               ("purge_global", "under global pressure"))
ENGINE_BACKENDS = ("volatile", "anon")
SKIP_REASONS = ("nofs", "sem", "ilock", "freeing", "mm", "mmap", "busy",
                "locked")
NOT_MEASURED = "not measured"

# Units of timings, in ns.
TIME_UNITS = {"ns": 1, "us": 1e3, "ms": 1e6}
# A clock that steps by more than this cannot time a pin or a page fault.
MAX_CLOCK_STEP_NS = 1000


# A graph: its file name, the family (CSV) and benchmark it draws, the
# metrics (one line each per backend), x and y labels, log axes ("x",
# "y", "xy" or ""), title; optional: left out when the run has no data
# for it (a benchmark older runs lack); needs_metric: left out when no
# row has its metrics (a measure older runs lack).
Graph = collections.namedtuple(
    "Graph", "name fam bench metrics xlabel ylabel logs title optional "
    "needs_metric", defaults=(False, False))


class BadInput(Exception):
    pass


def read_csv(path):
    """(metadata dict, list of row dicts) of one CSV file."""
    meta, rows, header_seen = {}, [], False
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    with f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            where = f"{path}:{n}"
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if not sep:
                    raise BadInput(f"{where}: metadata line without ':'")
                meta[key.strip()] = value.strip()
                continue
            if not header_seen:
                if line != HEADER:
                    raise BadInput(f"{where}: expected the header '{HEADER}'")
                header_seen = True
                continue
            fields = line.split(",")
            if len(fields) != 7:
                raise BadInput(f"{where}: {len(fields)} fields, expected 7")
            backend, bench, param, value, metric, unit, rep = fields
            try:
                value = float(value)
                rep = int(rep)
            except ValueError:
                raise BadInput(f"{where}: value or rep is not a number")
            if "=" not in param:
                raise BadInput(f"{where}: param '{param}' is not name=value")
            name, _, pvalue = param.partition("=")
            try:
                pvalue = float(pvalue)
            except ValueError:
                raise BadInput(f"{where}: param value '{pvalue}' is not a number")
            rows.append(dict(backend=backend, bench=bench, pname=name,
                             pvalue=pvalue, value=value, metric=metric,
                             unit=unit, rep=rep))
    if not header_seen:
        raise BadInput(f"{path}: no header line")
    return meta, rows


def load(d):
    data, meta = {}, {}
    for fam in FAMILIES:
        m, rows = read_csv(os.path.join(d, fam + ".csv"))
        data[fam] = rows
        meta = meta or m
    for fam in OPTIONAL_FAMILIES:
        path = os.path.join(d, fam + ".csv")
        data[fam] = read_csv(path)[1] if os.path.exists(path) else []
    return meta, data


class Table:
    """Medians over repetitions of (bench, backend, param, metric)."""

    def __init__(self, rows):
        # (bench, backend, param, metric) -> {rep: value}
        self.by_rep = {}
        for r in rows:
            key = (r["bench"], r["backend"], r["pvalue"], r["metric"])
            self.by_rep.setdefault(key, {})[r["rep"]] = r["value"]

    def all(self, bench, backend, pvalue, metric):
        return list(self.by_rep.get((bench, backend, pvalue, metric),
                                    {}).values())

    def at(self, bench, backend, pvalue, metric, rep):
        return self.by_rep.get((bench, backend, pvalue, metric),
                               {}).get(rep)

    def reps(self, bench, backend, pvalue, metric):
        return sorted(self.by_rep.get((bench, backend, pvalue, metric), {}))

    def some(self, bench, backend, pvalue, metric, reps):
        """The values of @metric in the repetitions @reps only."""
        d = self.by_rep.get((bench, backend, pvalue, metric), {})
        return [d[r] for r in sorted(reps) if r in d]

    def median_run(self, bench, backend, pvalue, metric, reps=None):
        """The repetition whose @metric is the (lower) median: its other
        metrics are shown with it, so that a row never mixes runs; among
        the repetitions @reps only, if given."""
        runs = sorted((v, rep) for rep, v in
                      self.by_rep.get((bench, backend, pvalue, metric),
                                      {}).items()
                      if reps is None or rep in reps)
        return runs[(len(runs) - 1) // 2][1] if runs else None

    def get(self, bench, backend, pvalue, metric):
        v = self.all(bench, backend, pvalue, metric)
        return statistics.median(v) if v else None

    def spread(self, bench, backend, pvalue, metric):
        v = self.all(bench, backend, pvalue, metric)
        return (min(v), max(v)) if v else (None, None)

    def params(self, bench):
        return sorted({k[2] for k in self.by_rep if k[0] == bench})

    def backends(self, bench):
        return {k[1] for k in self.by_rep if k[0] == bench}


# ---------------------------------------------------------------- check


# Stall figures: a run whose foreground was OOM-killed ended early, and
# its stall is that of a process that did not get its memory: such runs
# are reported apart from the stall statistics (issue 27).
STALL_METRICS = ("stall_ms_p50", "stall_ms_p99", "stall_ms_p999",
                 "stall_ms_max", "fg_total_ms")


def kill_split(t, bench, b, x, metric="stall_ms_p99"):
    """(runs without a kill, runs with a kill, runs that recorded no
    oom_kills) among the repetitions of one point that have @metric."""
    have = t.by_rep.get((bench, b, x, metric), {})
    kills = t.by_rep.get((bench, b, x, "oom_kills"), {})
    clean = {r for r in have if r in kills and not kills[r] > 0}
    killed = {r for r in have if r in kills and kills[r] > 0}
    return clean, killed, set(have) - clean - killed


def stall_values(t, bench, b, x, metric):
    """(values, runs left out) of @metric at one point: for a stall
    figure, the runs without an OOM kill only, and how many killed runs
    were left out; for any other metric every run, and 0."""
    if metric not in STALL_METRICS:
        return t.all(bench, b, x, metric), 0
    clean, killed, unknown = kill_split(t, bench, b, x, metric)
    if not clean and not killed:
        # No oom_kills rows at all (older CSV, or not a purge run).
        return t.all(bench, b, x, metric), 0
    return t.some(bench, b, x, metric, clean), len(killed) + len(unknown)


def kernel_version(meta):
    """(major, minor) of the CSV's kernel release, or None."""
    parts = meta.get("kernel", "").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def kernel_has_droppable(meta):
    v = kernel_version(meta)
    return v is not None and v >= DROPPABLE_SINCE


def plus_droppable(backends, t, bench):
    """@backends, and droppable where @t has it at @bench."""
    return tuple(backends) + ((DROPPABLE,) if DROPPABLE in t.backends(bench)
                              else ())


class Run:
    """One arch's run as the report's sections see it: its name (arch),
    directory, CSV metadata, rows per family, and their tables."""

    def __init__(self, arch, d, meta, data):
        self.arch, self.d, self.meta, self.data = arch, d, meta, data
        self._tables = {}

    def table(self, fam):
        if fam not in self._tables:
            self._tables[fam] = Table(self.data[fam])
        return self._tables[fam]


def row_name(r):
    return (f"{r['backend']} {r['bench']} {r['pname']}={r['pvalue']:g} "
            f"{r['metric']} = {r['value']:g}")


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    return f"{v:.{digits}g}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b



def k_of_n(values, pred):
    """How many of @values satisfy @pred, as "k of n"."""
    return f"{sum(1 for v in values if pred(v))} of {len(values)}" \
        if values else "n/a"


def size_label(kib):
    return f"{kib / 1024:g} MiB" if kib >= 1024 else f"{kib:g} KiB"


def pick(values, want):
    """@want if measured, else the largest value measured below it."""
    below = [v for v in values if v <= want]
    return want if want in values else (max(below) if below else
                                        (min(values) if values else None))



def count(v):
    """A sum of counts, in full (fmt() rounds to 3 digits)."""
    if v is None:
        return NOT_MEASURED
    return f"{v:.0f}" if math.isfinite(v) else str(v)


def fmt_range(v):
    """median [min-max] of @v, or "n/a"."""
    if not v:
        return "n/a"
    return (f"{fmt(statistics.median(v))} [{fmt(min(v))}-{fmt(max(v))}]"
            if len(v) > 1 else fmt(v[0]))


def nz(v, scale):
    return None if v is None else v * scale


def median(v):
    return statistics.median(v) if v else None


def every_backend(fam, data, want):
    """(ok, what): every benchmark of @fam has every backend of @want
    (or those BENCH_BACKENDS names for it)."""
    t = Table(data[fam])
    benches = sorted({r["bench"] for r in data[fam]})
    missing = [f"{b}:{x}" for b in benches
               for x in BENCH_BACKENDS.get(b, want)
               if x not in t.backends(b)]
    return (benches and not missing,
            f"{fam}.csv: every backend in every benchmark "
            f"({', '.join(benches) or 'none'})"
            + (f"; missing {', '.join(missing)}" if missing else ""))


def every_point(fam, data, want, metric, only_at_zero=(), quick=False):
    """(ok, what): every backend of @want wrote @metric at every point of
    every benchmark of @fam (those of @only_at_zero at param 0 only).  A
    point whose every run was discarded (appbench's ballast_lost) is
    named apart; in a @quick run, whose numbers are not judged, it is
    no failure."""
    t = Table(data[fam])
    benches = sorted({r["bench"] for r in data[fam]})
    missing, discarded = [], []
    for b in benches:
        for x in want:
            for p in t.params(b):
                if t.all(b, x, p, metric) or (x in only_at_zero and p != 0):
                    continue
                name = f"{b}:{x}={p:g}"
                if t.all(b, x, p, "ballast_lost"):
                    discarded.append(name)
                else:
                    missing.append(name)
    ok = bool(benches) and not missing and (quick or not discarded)
    return (ok, f"{fam}.csv: every backend at every point "
            f"({', '.join(benches) or 'none'})"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; every run discarded (ballast lost) at "
               f"{', '.join(discarded)}" if discarded else ""))


def discarded_check(path, rows, what):
    """(ok, text): the runs discarded for a lost ballast, as
    bench-matrix listed them in @path, are the ballast_lost rows of
    @rows, one each."""
    listed = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            listed = sum(1 for line in f if line.strip())
    rows_lost = sum(1 for r in rows if r["metric"] == "ballast_lost")
    return (listed == rows_lost,
            f"{what}: runs discarded for a lost ballast: {rows_lost} in the "
            f"CSV, {listed} listed by bench-matrix")

