"""The audit's statistics: binomial intervals, the verdict's bar and uniformity tests."""
from __future__ import annotations

import math

Z95 = 1.96
# The verdict: a baseline fails when even its 99.9 % interval lies above
# chance. Stricter than the 95 % shown, since an audit makes dozens of
# comparisons and one would cross a 95 % bound by luck every other run.
Z_VERDICT = 3.29
BALANCE_P = 1e-4  # the test suite's bound for uniformity


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def z_verdict(tests: int = 1) -> float:
    """The verdict's z for the best of `tests` solvers: its bound divided among them (Bonferroni)."""
    from statistics import NormalDist

    return Z_VERDICT if tests == 1 else NormalDist().inv_cdf(1 - NormalDist().cdf(-Z_VERDICT) / tests)


def above_chance(hits: int, n: int, chance: float, tests: int = 1) -> bool:
    """Whether even the verdict's interval (for the best of `tests` solvers) lies above chance."""
    return wilson(hits, n, z_verdict(tests))[0] > chance


def below(hits: int, n: int, rate: float) -> bool:
    """Whether `hits` of `n` are too few for a solver right at `rate` on each item: the exact binomial
    tail, one-sided at the verdict's level. Wilson's interval is far too narrow at a rate near 1 and few
    items (one miss in two lay below 97.6 %, which happens one time in twenty)."""
    from statistics import NormalDist

    from scipy.stats import binom  # as uniform_p: loaded only for an audit

    return n > 0 and float(binom.cdf(hits, n, rate)) < NormalDist().cdf(-Z_VERDICT)


def uniform_p(observed: list, support: tuple) -> float:
    from scipy.stats import chisquare  # scipy loads only for an audit: every `mewl` command imports this module

    counts = [observed.count(v) for v in support]
    if sum(counts) != len(observed):
        return 0.0  # a value outside the support is never balanced
    return float(chisquare(counts).pvalue)


def balanced(hits: int, n: int, share: float = 0.5) -> bool:
    """Whether a count of one label is within the verdict's interval of `share` (either way)."""
    lo, hi = wilson(hits, n, Z_VERDICT)
    return lo <= share <= hi
