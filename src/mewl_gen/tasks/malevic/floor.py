"""The floor of a solver that reads every size but is not told k: the best any such solver can do on
the threshold tasks, computed exactly from the sampler's law (no sampling).

What such a solver sees of an item, besides the adjective: the object count n, the reference set's
size m, its range (lo, hi) and the target's level t. Nothing else it sees depends on the label: the
reference set fills every level of its range once and its other objects fall uniformly on it, and the
objects outside it are uniform on every level, whatever the pair (sample.draw_levels). The label only
says whether the target is the upper object of the pair (t = a + 1) or the lower (t = a), and under
"small" the other way round; a is uniform on 1..7. Given (a, n), the sampler draws m (SET+POS) and k
(a normal around 0.29 inside [0, 1]) until some range puts T between the pair, then one of those
ranges uniformly. The set of fitting ranges changes only where some range's T meets a hair of a pair
level, so the law of (m, lo, hi) is a finite sum of normal-CDF differences: exact, not estimated.

The floor is the Bayes solver's accuracy, sum over what it sees of the larger of the two labels'
probabilities; `decide` is that solver, which the audit runs on the files.
"""
from __future__ import annotations

from functools import cache
from math import erf, sqrt

from .item import K_SHARP, K_SPREAD, SIZE_LEVELS
from .rules import HAIR, Rules, object_counts
from .sample import PAIR_LOW, RUN_MIN, SET_MIN, TOP

HAIR_LEVELS = HAIR / (SIZE_LEVELS[1] - SIZE_LEVELS[0])  # the hair in level steps


def _cdf(k: float) -> float:
    return 0.5 * (1 + erf((k - K_SHARP) / (K_SPREAD * sqrt(2))))


def _window(a: int, lo: int, hi: int) -> tuple[float, float]:
    """The k for which T = hi - k (hi - lo) lies between a and a + 1, a hair clear of both."""
    span = hi - lo
    return max(0.0, (hi - a - 1 + HAIR_LEVELS) / span), min(1.0, (hi - a - HAIR_LEVELS) / span)


@cache
def ranges(a: int, m: int) -> dict[tuple[int, int], float]:
    """P(range, some range fits | a, m), before the redraw's normalisation: the normal's mass over each
    piece of [0, 1] where the fitting set is constant, shared equally among that piece's ranges."""
    candidates = [(lo, hi) for lo in range(a) for hi in range(a + 2, TOP + 1) if hi - lo < m]
    windows = {r: _window(a, *r) for r in candidates}
    cuts = sorted({0.0, 1.0, *(x for w in windows.values() for x in w if 0 <= x <= 1)})
    found: dict[tuple[int, int], float] = {}
    for x, y in zip(cuts, cuts[1:]):
        mid = (x + y) / 2
        fitting = [r for r, (u, v) in windows.items() if u < mid < v]
        for r in fitting:
            found[r] = found.get(r, 0.0) + (_cdf(y) - _cdf(x)) / len(fitting)
    return found


def reference_sizes(rules: Rules, n: int) -> tuple[int, ...]:
    """The reference set's sizes the sampler draws from, uniformly (sample.reference_size)."""
    return (n,) if not rules.shape_reference else tuple(range(max(SET_MIN, RUN_MIN), n))


@cache
def seen_law(rules: Rules) -> dict[tuple, tuple[float, float]]:
    """(n, m, lo, hi, t) -> (P(seen, target upper), P(seen, target lower)), each half of the items."""
    law: dict[tuple, list[float]] = {}
    counts = object_counts(rules)
    for n in counts:
        for a in PAIR_LOW:
            sizes = reference_sizes(rules, n)
            joint = {(m, *r): p / len(sizes) for m in sizes for r, p in ranges(a, m).items()}
            total = sum(joint.values())
            for (m, lo, hi), p in joint.items():
                weight = p / total / len(counts) / len(PAIR_LOW) / 2
                law.setdefault((n, m, lo, hi, a + 1), [0.0, 0.0])[0] += weight
                law.setdefault((n, m, lo, hi, a), [0.0, 0.0])[1] += weight
    return {s: (u, v) for s, (u, v) in law.items()}


def full_size_floor(rules: Rules) -> float:
    """The accuracy of the best solver that reads every size but not k (threshold tasks)."""
    return sum(max(p) for p in seen_law(rules).values())


def decide(rules: Rules, adjective: str, n: int, m: int, lo: int, hi: int, t: int) -> bool:
    """That solver's answer: whether the sentence is true (ties and unseen cases: true)."""
    upper, lower = seen_law(rules).get((n, m, lo, hi, t), (0.0, 0.0))
    return (upper >= lower) == (adjective == "big")
