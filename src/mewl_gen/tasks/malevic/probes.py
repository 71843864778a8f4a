"""MALeViC's leak probes: solvers deprived of what the task is about, each against its floor.

Each reads only what `Seen` holds (the label, the adjective, the target's size
level, every object's level, the item's index and retry), so the audit feeds
them from the files and the tests from plain statements, old-style ones
included. Learned probes are fitted on one set of items and scored on another:
the audit's `--train` items, or the first half (by index) of the audited ones.

- target size: the adjective and the target's own level, no other object (an
  exact Bayes table). Floor 4/7: the sampler's pair (a, a + 1), a uniform on
  1..7, gives the true and the false target levels one step apart, and no
  scene drawn apart from the label does better (docs/malevic.md proves it).
- scene statistics: the adjective, the object count and every level sorted
  (mean, min, max, spread, counts per level), not which object is the target
  (gradient-boosted trees). Floor 1/2: the scene is drawn before the label.
- no target: 'big'/'biggest' false iff some object has the top level,
  'small'/'smallest' false iff some object has level 0. Floor 1/2.
- neighbour rule: an object one level below the target and none one level
  above: the target is the upper of a pair (big); the other way round: the
  lower; else a coin of the index. Floor 1/2: the reference set fills every
  level of its range and reaches past the pair on both sides, so every
  target has an object on either side (the threshold tasks; superlatives
  mean "nothing above", so the probe does not apply to SUP1).
- neighbours: gradient-boosted trees on the adjective, the counts of objects
  one level below, at and one level above the target, and the gaps to the
  nearest object below and above. Floor 1/2: those counts have one law for
  either object of the pair (sample.draw_levels).
- sizes without k: the Bayes solver of floor.py on every size (the
  reference set's range and size, the target's level), not told k. Floor:
  its own exact accuracy under the sampler's law (floor.full_size_floor),
  which no solver reading the sizes but not k can pass; target-relative: trees
  on counts three levels either side of the target and its distance to the
  reference set's ends, against that floor too.
- index parity, retried, pair partner: the item's index parity and whether it
  was redrawn (Bayes tables), and the label of the item at index i ^ 1,
  negated (the old one-true-per-pair scheme scores 1). Floor 1/2.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import NamedTuple

import numpy as np

from ..audit import Probe, below, scikit
from .floor import decide, full_size_floor
from .item import SIZE_LEVELS
from .rules import Rules

TARGET_FLOOR = 4 / 7
CHANCE = 1 / 2
TOP = len(SIZE_LEVELS) - 1
MOST_OBJECTS = 9


class Seen(NamedTuple):
    label: bool
    adjective: str
    target_level: int
    levels: tuple[int, ...]
    index: int
    retry: int
    reference: tuple[int, ...] = ()  # the reference set's objects (indices into levels); () where unknown

    @property
    def reference_levels(self) -> list[int]:
        return [self.levels[i] for i in self.reference]

    def around(self, d: int) -> int:
        """How many objects other than the target lie d levels from it."""
        return sum(v == self.target_level + d for v in self.levels) - (d == 0)

    def gap(self, below: bool) -> int:
        """Levels to the nearest other object below (or above) the target; TOP + 1 where none."""
        gaps = [(self.target_level - v) if below else (v - self.target_level) for v in self.levels]
        return min([g for g in gaps if g > 0], default=TOP + 1)


def level_of(size: float) -> int:
    """The level (0..9) of a half-extent read from the files."""
    return round((size - SIZE_LEVELS[0]) / (SIZE_LEVELS[1] - SIZE_LEVELS[0]))


def big(adjective: str) -> bool:
    return adjective in ("big", "biggest")


def table(fit: list[Seen], score: list[Seen], key: Callable[[Seen], Hashable], floor: float) -> Probe:
    """An exact Bayes table: the majority label of each key among `fit`, the majority overall for a
    key `fit` never saw; its hits on `score`."""
    votes: dict[Hashable, Counter] = {}
    for s in fit:
        votes.setdefault(key(s), Counter())[s.label] += 1
    overall = sum(s.label for s in fit) * 2 >= len(fit)

    def guess(s: Seen) -> bool:
        c = votes.get(key(s))
        return overall if c is None or c[True] == c[False] else c[True] > c[False]

    return Probe(sum(guess(s) == s.label for s in score), len(score), floor)


def statistics(s: Seen) -> list[float]:
    """The scene's sizes without the target: the adjective, count, mean, min, max, spread, the
    levels sorted (padded with -1) and how many objects have each level."""
    v = np.array(s.levels, dtype=float)
    counts = np.bincount(np.array(s.levels), minlength=TOP + 1)
    padded = sorted(s.levels) + [-1] * (MOST_OBJECTS - len(s.levels))
    return [float(big(s.adjective)), len(v), v.mean(), v.min(), v.max(), v.std(), *padded, *counts]


def scene_statistics(fit: list[Seen], score: list[Seen]) -> Probe:
    return trees(fit, score, statistics, CHANCE)


def no_target(score: list[Seen]) -> Probe:
    def guess(s: Seen) -> bool:
        return (TOP if big(s.adjective) else 0) not in s.levels

    return Probe(sum(guess(s) == s.label for s in score), len(score), CHANCE)


def pair_partner(seen: list[Seen]) -> Probe:
    label = {s.index: s.label for s in seen}
    paired = [s for s in seen if s.index ^ 1 in label]
    return Probe(sum((not label[s.index ^ 1]) == s.label for s in paired), len(paired), CHANCE)


def neighbour_rule(seen: list[Seen]) -> Probe:
    def guess(s: Seen) -> bool:
        below, above = s.around(-1) > 0, s.around(1) > 0
        if below != above:
            return below == big(s.adjective)  # the upper of a pair is big, the lower small
        return s.index % 2 == 0

    return Probe(sum(guess(s) == s.label for s in seen), len(seen), CHANCE)


def neighbours(s: Seen) -> list[float]:
    return [float(big(s.adjective)), s.around(-1), s.around(0), s.around(1), s.gap(True), s.gap(False)]


def target_relative(s: Seen) -> list[float]:
    ref = s.reference_levels or list(s.levels)
    return [*neighbours(s), *(s.around(d) for d in (-3, -2, 2, 3)), max(ref) - s.target_level,
            s.target_level - min(ref), s.target_level]


def trees(fit: list[Seen], score: list[Seen], features: Callable[[Seen], list[float]], floor: float) -> Probe:
    """Gradient-boosted trees on `features`, fitted on `fit`, scored on `score`."""
    if not score:
        return Probe(0, 0, floor)
    if len({s.label for s in fit}) < 2:
        return table(fit, score, lambda s: 0, floor)
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads only when a probe is fitted
    from threadpoolctl import threadpool_limits

    model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, random_state=0)
    with threadpool_limits(limits=1):  # a small fit; OpenMP threads on shared cores slow it, ten times over under load
        model.fit(np.array([features(s) for s in fit]), np.array([s.label for s in fit]))
        guesses = model.predict(np.array([features(s) for s in score]))
    return Probe(int(sum(g == s.label for g, s in zip(guesses, score))), len(score), floor)


def below_its_floor(p: Probe) -> bool:
    """Whether the probe's hits are too few for its floor at the verdict's level. For a probe whose floor
    is its own solver's exact accuracy (sizes without k), the stated floor is then not one: the law it was
    computed from is not the sampler's."""
    return below(p.hits, p.n, p.floor)


def without_k(rules: Rules, seen: list[Seen]) -> Probe:
    """The Bayes solver of floor.py: every size, not k."""
    def guess(s: Seen) -> bool:
        ref = s.reference_levels
        return decide(rules, s.adjective, len(s.levels), len(ref), min(ref), max(ref), s.target_level)

    return Probe(sum(guess(s) == s.label for s in seen), len(seen), full_size_floor(rules))


def context_probes(rules: Rules, seen: list[Seen], fit: list[Seen], score: list[Seen]) -> dict[str, Probe]:
    """The probes of what lies around the target (threshold tasks; reference sets known)."""
    if rules.superlative or not all(s.reference for s in seen):
        return {}
    return {"neighbour rule": neighbour_rule(seen), "neighbours": trees(fit, score, neighbours, CHANCE),
            "sizes without k": without_k(rules, seen),
            "target-relative": trees(fit, score, target_relative, full_size_floor(rules))}


def halves(seen: list[Seen], train: list[Seen] | None) -> tuple[list[Seen], list[Seen]]:
    """(fit, score): `train` and every audited item, or the first and second half by index."""
    if train:
        return train, seen
    ordered = sorted(seen, key=lambda s: s.index)
    return ordered[:len(ordered) // 2], ordered[len(ordered) // 2:]


def probes(seen: list[Seen], train: list[Seen] | None = None, rules: Rules | None = None) -> dict[str, Probe]:
    """Every probe's score, by its column name (those of what lies around the target given the task's
    rules)."""
    fit, score = halves(seen, train)
    return {**(context_probes(rules, seen, fit, score) if rules is not None else {}),
        "target size only": table(fit, score, lambda s: (s.adjective, s.target_level), TARGET_FLOOR),
        "scene statistics only": scene_statistics(fit, score),
        "no-target rule": no_target(seen),
        "index parity": table(fit, score, lambda s: (s.adjective, s.index % 2), CHANCE),
        "retried": table(fit, score, lambda s: (s.adjective, s.retry > 0), CHANCE),
        "pair partner": pair_partner(seen),
    }
