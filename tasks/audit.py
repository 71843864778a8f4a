"""What every benchmark's audit shares: binomial intervals, uniformity tests,
the verdict's bar, and running a measurement over batches of items."""
from __future__ import annotations

import math
from typing import Callable, Sequence

from joblib import Parallel, delayed

from .stored import StoredItem

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


def above_chance(hits: int, n: int, chance: float) -> bool:
    """Whether even the verdict's interval lies above chance."""
    return wilson(hits, n, Z_VERDICT)[0] > chance


def uniform_p(observed: list, support: tuple) -> float:
    from scipy.stats import chisquare  # scipy loads only for an audit: every `mewl` command imports this module

    counts = [observed.count(v) for v in support]
    if sum(counts) != len(observed):
        return 0.0  # a value outside the support is never balanced
    return float(chisquare(counts).pvalue)


def measured(measure: Callable[[list[StoredItem]], list], items: Sequence[StoredItem], workers: int,
             batch: int = 200) -> list:
    """measure() over the items in batches, on `workers` processes; one result per item, in order."""
    batches = [list(items[k:k + batch]) for k in range(0, len(items), batch)]
    return [r for b in Parallel(n_jobs=workers)(delayed(measure)(b) for b in batches) for r in b]
