# SPDX-License-Identifier: GPL-2.0
"""Statistics of the report: bootstrap intervals of ratios of medians."""

import math
import random
import statistics

from .common import fmt, ratio


BOOTSTRAP_RESAMPLES = 2000


def ratio_ci(a, b, seed=20261204):
    """95% bootstrap interval of median(a) / median(b), each resampled
    with replacement on its own; None with fewer than 3 runs a side or a
    zero median in a resample."""
    if len(a) < 3 or len(b) < 3:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        mb = statistics.median(rng.choices(b, k=len(b)))
        if mb == 0:
            return None
        ratios.append(statistics.median(rng.choices(a, k=len(a))) / mb)
    ratios.sort()
    return (ratios[int(0.025 * len(ratios))],
            ratios[int(0.975 * len(ratios)) - 1])


def median_ratio(a, b):
    """(median(a) / median(b), its 95% bootstrap interval, the two as
    text "r [lo-hi]"); None for what cannot be computed."""
    r = ratio(statistics.median(a) if a else None,
              statistics.median(b) if b else None)
    ci = ratio_ci(a, b) if r is not None else None
    return r, ci, fmt(r) + (f" [{fmt(ci[0])}-{fmt(ci[1])}]" if ci else "")


def fmt_ratio(a, b):
    """median(a) / median(b) [95% bootstrap interval]."""
    return median_ratio(a, b)[2]


def verdict(a, b, more, less):
    """@more, @less or "the same as": median(a) against median(b), by
    whether the 95% bootstrap interval of their ratio excludes 1."""
    ci = median_ratio(a, b)[1]
    if ci is None:
        return "not comparable with"
    if ci[0] > 1:
        return more
    if ci[1] < 1:
        return less
    return "indistinguishable from"


# ------------------------------------------------ exact tests, Holm

SCIPY_MISSING = ("scipy is missing: install Debian's python3-scipy and "
                 "python3-numpy (scripts/deps.sh plot) and run this with "
                 "/usr/bin/python3")


def _scipy_stats():
    """scipy.stats, or BadInput naming the Debian package to install."""
    try:
        from scipy import stats
    except ImportError:
        from .common import BadInput
        raise BadInput(SCIPY_MISSING)
    return stats


def fisher_p(k1, n1, k2, n2):
    """Two-sided p of Fisher's exact test of k1 of n1 against k2 of n2
    (scipy.stats.fisher_exact); None without runs on a side."""
    if not n1 or not n2:
        return None
    _, p = _scipy_stats().fisher_exact([[k1, n1 - k1], [k2, n2 - k2]],
                                       alternative="two-sided")
    return float(p)


def mwu_p(a, b):
    """Two-sided p of the Mann-Whitney U test of the runs @a against @b
    (scipy.stats.mannwhitneyu); 1 when every value is the same, None
    with fewer than 3 runs a side."""
    if len(a) < 3 or len(b) < 3:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0
    p = _scipy_stats().mannwhitneyu(a, b, alternative="two-sided").pvalue
    return 1.0 if math.isnan(p) else float(p)


def holm(ps):
    """Holm's step-down adjustment of the p-values @ps (None stays None):
    the i-th smallest of m is multiplied by m - i + 1, then made
    monotone and capped at 1."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m, adj, run = len(idx), list(ps), 0.0
    for rank, (p, i) in enumerate(idx):
        run = max(run, min(1.0, (m - rank) * p))
        adj[i] = run
    return adj


def fmt_p(p):
    """"p = 0.47", "p < 0.001" or "p n/a"."""
    if p is None:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


class Holm:
    """The comparisons of one section, corrected together by Holm's
    method.  add() registers a p-value and returns a token; defer()
    registers text that depends on the adjusted p-values; fill() puts
    the adjusted values in place of the tokens once every comparison is
    known (the family is only complete at the end of the section)."""

    def __init__(self):
        self.ps, self.deferred = [], []

    def add(self, p):
        self.ps.append(p)
        return f"\0p{len(self.ps) - 1}\0"

    def defer(self, fn):
        self.deferred.append(fn)
        return f"\0d{len(self.deferred) - 1}\0"

    def adjusted(self, token):
        """The adjusted p of an add() token (after all add() calls)."""
        return holm(self.ps)[int(token.strip("\0")[1:])]

    def fill(self, lines):
        adj = holm(self.ps)
        texts = [fn(self) for fn in self.deferred]
        out = []
        for line in lines:
            for i, t in enumerate(texts):
                line = line.replace(f"\0d{i}\0", t)
            for i, p in enumerate(adj):
                line = line.replace(f"\0p{i}\0", fmt_p(p))
            out.append(line)
        return out

    def __len__(self):
        return sum(p is not None for p in self.ps)


def fisher_test(h, k1, n1, k2, n2):
    """("Fisher p = x, Holm p = y", p, Holm token) of k1/n1 against
    k2/n2, registered in the Holm family @h."""
    p = fisher_p(k1, n1, k2, n2)
    token = h.add(p)
    return f"Fisher's exact {fmt_p(p)}, Holm-adjusted {token}", p, token


def fisher_text(h, k1, n1, k2, n2):
    """The text of fisher_test()."""
    return fisher_test(h, k1, n1, k2, n2)[0]


def compare_test(h, a, b, more, less):
    """(verdict, detail, Holm token) of the runs @a against @b: @more,
    @less, "indistinguishable from" or "not comparable with" by whether
    the 95% bootstrap interval of the ratio of medians excludes 1; the
    detail is the ratio [interval], the Mann-Whitney U test's p and its
    Holm-adjusted p in the family @h."""
    p = mwu_p(a, b)
    token = h.add(p)
    return (verdict(a, b, more, less),
            f"{fmt_ratio(a, b)}x; Mann-Whitney {fmt_p(p)}, Holm-adjusted "
            f"{token}", token)


def compare(h, a, b, more, less):
    """(verdict, detail) of compare_test()."""
    return compare_test(h, a, b, more, less)[:2]
