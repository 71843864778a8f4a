"""What every benchmark's audit shares: binomial intervals, uniformity tests,
the verdict's bar, and running a measurement over batches of items."""
from __future__ import annotations

import math
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Probe:
    """One deprived solver's score on one split and task, against the floor it must stay at
    (the chance its deprivation leaves, analytic or proved by enumeration)."""

    hits: int
    n: int
    floor: float

    @property
    def leaks(self) -> bool:
        """Whether even the verdict's interval lies above the floor."""
        return above_chance(self.hits, self.n, self.floor)

    def cell(self) -> str:
        """'accuracy [95 % interval] / floor', in per cent: what every probe column shows."""
        if self.n == 0:
            return "-"
        lo, hi = wilson(self.hits, self.n)
        return f"{100 * self.hits / self.n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] / {100 * self.floor:.1f}"


def leaking(probes: dict[str, Probe]) -> list[str]:
    """The verdict's words for every probe above its floor, in the dict's order."""
    return [f"{name} above its floor" for name, p in probes.items() if p.n and p.leaks]
