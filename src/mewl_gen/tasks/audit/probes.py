"""Deprived solvers as the audit measures them: a measurement run over batches of items, the probe cell
against its floor and the verdict's words for a leak, a learned deprived solver and the identity fields."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

from ..stored import StoredItem
from . import scikit
from .statistics import above_chance, wilson


def measured(measure: Callable[[list[StoredItem]], list], items: Sequence[StoredItem], workers: int,
             batch: int = 200) -> list:
    """measure() over the items in batches, on `workers` processes; one result per item, in order."""
    from joblib import Parallel, delayed  # loads only for an audit: every command imports this module

    batches = [list(items[k:k + batch]) for k in range(0, len(items), batch)]
    # One batch is measured in this process: a pool of fresh interpreters costs seconds, more than one batch.
    return [r for b in Parallel(n_jobs=min(workers, len(batches)) or 1)(delayed(measure)(b) for b in batches) for r in b]


@dataclass(frozen=True)
class Probe:
    """One deprived solver's score on one split and task, against the floor it must stay at
    (the chance its deprivation leaves, analytic or proved by enumeration)."""

    hits: int
    n: int
    floor: float
    tests: int = 1  # the best of this many solvers: the verdict's bound is divided among them

    @property
    def leaks(self) -> bool:
        """Whether even the verdict's interval lies above the floor."""
        return above_chance(self.hits, self.n, self.floor, self.tests)

    def cell(self) -> str:
        """'accuracy [95 % interval] / floor', in per cent: what every probe column shows."""
        if self.n == 0:
            return "-"
        lo, hi = wilson(self.hits, self.n)
        return f"{100 * self.hits / self.n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] / {100 * self.floor:.1f}"


def leaking(probes: dict[str, Probe]) -> list[str]:
    """The verdict's words for every probe above its floor, in the dict's order."""
    return [f"{name} above its floor" for name, p in probes.items() if p.n and p.leaks]


MANY_CLASSES = 10


def learned(features: Sequence[Sequence[float]], targets: Sequence, floor: float) -> Probe:
    """A deprived solver learned from features alone, fitted on the first half of the items and scored
    on the second half: a gradient-boosted classifier, or for an open answer (more than MANY_CLASSES
    answers, where boosting would fit a tree per answer) a decision tree."""
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads only for an audit
    from sklearn.tree import DecisionTreeClassifier
    from threadpoolctl import threadpool_limits

    half = len(targets) // 2
    if half == 0 or len(set(targets[:half])) < 2:
        return Probe(0, 0, floor)
    many = len(set(targets[:half])) > MANY_CLASSES
    model = (DecisionTreeClassifier(min_samples_leaf=3, random_state=0) if many else
             HistGradientBoostingClassifier(max_iter=100, random_state=0))
    with warnings.catch_warnings(), threadpool_limits(limits=1):  # a small fit: OpenMP threads only slow shared cores
        warnings.simplefilter("ignore", UserWarning)  # sklearn's guess that many answers may mean a regression
        model.fit(features[:half], targets[:half])
        predicted = model.predict(features[half:])
    return Probe(int(sum(p == t for p, t in zip(predicted, targets[half:]))), len(targets) - half, floor)


def identity(record: dict, scenes: Sequence[dict]) -> list[float]:
    """The fields of an item a model is not meant to see, as numbers for `learned`: its index (and
    parity), retry and root seed, and of each scene spec its seeds, placement attempt and the camera's
    and lights' jitter (their locations and rotations)."""
    found = [record["index"], record["index"] % 2, record["retry"], record["root_seed"] % 2 ** 20]
    for scene in scenes:
        found += [scene["seed"] % 2 ** 20, scene["seed"] % 2, scene["attempt"], scene["render"]["seed"] % 2 ** 20,
                  *scene["camera"]["location"], *scene["camera"]["rotation"]]
        found += [x for light in scene["lights"] for x in (*light["location"], light["energy"])]
    return found


def index_pairs(indices: Sequence[int], labels: Sequence) -> Probe:
    """A solver that answers an item with the other label than its index partner's (2j and 2j+1), where
    the labels are two-valued: its hits are the pairs whose labels differ, against 1/2. A generator that
    makes one item of each pair true (so that any even count is exactly half true) scores 1."""
    label = dict(zip(indices, labels))
    pairs = [(label[i], label[i + 1]) for i in label if i % 2 == 0 and i + 1 in label]
    return Probe(sum(a != b for a, b in pairs), len(pairs), 0.5)
