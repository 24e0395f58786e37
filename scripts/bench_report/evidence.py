# SPDX-License-Identifier: GPL-2.0
"""The answer in short: every comparison of the answer section filed
under the question it bears on, for or against, and a conclusion per
question drawn from how many of them hold after Holm's correction."""

from .stats import compare_test, fisher_test

# The questions, each with the claim its findings are for or against.
QUESTIONS = (
    ("useful", "Is purgeable memory useless?",
     "purgeable memory helps where memory that is never purged fails"),
    ("badly", "Did ashmem do it badly?",
     "the kernel's volatile ranges do better than ashmem"),
    ("user", "Does kernel-driven purging beat Android's userspace model?",
     "kernel purging beats the userspace model that acted"),
)


class Evidence:
    """Findings: (question, side, label, token, nominal), side being
    True (for the question's claim), False (against it) or None (no
    difference shown); nominal is whether the comparison alone, before
    Holm's correction, shows a difference."""

    def __init__(self):
        self.found, self.notes = [], []

    def note(self, question, text):
        """What the reader needs beside the findings of @question."""
        self.notes.append((question, text))

    def add(self, question, side, label, token, nominal=True):
        self.found.append((question, side, label, token, nominal))

    def medians(self, h, question, label, a, b, more, less, more_is_for):
        """Compare the medians of runs @a and @b (stats.compare_test() in
        the Holm family @h), file the finding, and return (verdict,
        detail) for the text."""
        verdict, detail, token = compare_test(h, a, b, more, less)
        side = None
        if verdict == more:
            side = more_is_for
        elif verdict == less:
            side = not more_is_for
        self.add(question, side, f"{label} ({detail})", token)
        return verdict, detail

    def counts(self, h, question, label, k1, n1, k2, n2, fewer_is_for):
        """Compare k1 of n1 against k2 of n2 (stats.fisher_test() in the
        Holm family @h), file the finding, for the claim when the first
        has fewer by @fewer_is_for, and return the test's text."""
        text, p, token = fisher_test(h, k1, n1, k2, n2)
        side = None
        if n1 and n2 and k1 * n2 != k2 * n1:
            side = (k1 * n2 < k2 * n1) == fewer_is_for
        self.add(question, side,
                 f"{label} ({k1} of {n1} against {k2} of {n2}; {text})",
                 token, p is not None and p < 0.05)
        return text

    def render(self, hh):
        """The conclusions, once @hh (the section's Holm family) has every
        p-value."""
        out = ["Each finding of the answer section below is filed "
               "under the question it bears on, for or against its "
               "claim. A finding *holds* when its "
               "difference (the 95% interval of a ratio of medians, or "
               "Fisher's exact test on counts of runs) survives Holm's "
               "correction across every comparison of the section "
               "(adjusted p < 0.05); one that does not is *nominal*. "
               "The verdict counts only what holds.\n"]
        for key, question, claim in QUESTIONS:
            mine = [f for f in self.found if f[0] == key]
            if not mine:
                out.append(f"- **{question}** Not answered: no run of "
                           "these results compares it.")
                out.extend(f"  - {t}" for q, t in self.notes if q == key)
                continue
            holds = lambda f: (f[4] and
                               (hh.adjusted(f[3]) or 1) < 0.05)
            pick = lambda side, held: [f[2] for f in mine
                                       if f[1] is side and f[1] is not None
                                       and holds(f) == held]
            for_h, for_n = pick(True, True), pick(True, False)
            ag_h, ag_n = pick(False, True), pick(False, False)
            none = [f[2] for f in mine if f[1] is None]
            if for_h and ag_h:
                word = (f"Mixed: {len(for_h)} finding(s) for the claim "
                        f"that {claim} hold, and {len(ag_h)} against it")
            elif for_h:
                word = (f"Supported: {len(for_h)} finding(s) hold for "
                        f"the claim that {claim}, none against it")
            elif ag_h:
                word = (f"Contradicted: {len(ag_h)} finding(s) hold "
                        f"against the claim that {claim}, none for it")
            elif for_n or ag_n:
                word = (f"Not established: {len(for_n)} nominal "
                        f"finding(s) for the claim that {claim} and "
                        f"{len(ag_n)} against it, none holding")
            else:
                word = (f"Not shown: no comparison finds a difference "
                        f"for or against the claim that {claim}")
            out.append(f"- **{question}** {word}.")
            for name, items in (("For, holding", for_h),
                                ("Against, holding", ag_h),
                                ("For, nominal only", for_n),
                                ("Against, nominal only", ag_n)):
                if items:
                    out.append(f"  - {name}: " + "; ".join(items) + ".")
            if none:
                out.append(f"  - No difference shown ({len(none)}): "
                           + "; ".join(none) + ".")
            for q, text in self.notes:
                if q == key:
                    out.append(f"  - {text}")
        out.append("")
        return "\n".join(out)
