"""What every benchmark's audit shares: binomial intervals, uniformity tests,
the verdict's bar, running a measurement over batches of items, the probe
cell, the cross-split repeat probe and a learned deprived solver."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Callable, Hashable, Sequence

from joblib import Parallel, delayed

from ..stored import StoredItem

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


TEST_SPLIT = "test"  # the split whose items may repeat no item of another split


def _keys(key: Callable[[StoredItem], Hashable], items: list[StoredItem]) -> list:
    return [key(s) for s in items]


def repeats(items: Sequence[StoredItem], others: Sequence[StoredItem], key: Callable[[StoredItem], Hashable],
            workers: int = 1) -> Probe:
    """The cross-split repeat probe: the items (one split and task) whose canonical key is the key of one
    of `others` (the same task's items of the dataset's other splits, AuditRun.others), against a floor
    of 0. Judge it with `repeat_failures`: a test item may repeat nothing; train and val items may
    repeat each other, and their cell says how often.

    A benchmark plugs in with one function, `key(stored) -> hashable`, read from the item's files
    alone: what the item shows a model, up to what must not make two items differ (camera, lights,
    positions, rotations, jitter, index, retry and seeds), e.g. ShapeWorld's (task, caption, the
    objects' attributes as a multiset, agreement) or MEWL's (task, each panel's utterance with its
    objects' attributes, the query's objects, the choices, the answer). Its audit's row then takes
    its `repeats` cell and verdict words from `repeat_column(split, items, run.others, key, run.workers)`. Keys must be module-level functions (the items are measured on worker processes)."""
    measure = partial(_keys, key)
    seen = set(measured(measure, others, workers))
    return Probe(sum(k in seen for k in measured(measure, items, workers)), len(items), 0.0)


def repeat_failures(split: str, probe: Probe) -> list[str]:
    """The verdict's words for a test split with an item that repeats another split's."""
    return [f"{probe.hits} test items repeat an item of another split"] if split == TEST_SPLIT and probe.hits else []


def repeat_column(split: str, items: Sequence[StoredItem], others: Sequence[StoredItem],
                  key: Callable[[StoredItem], Hashable], workers: int = 1) -> tuple[str, list[str]]:
    """An audit row's `repeats` cell and its verdict's words: `repeats`, judged by `repeat_failures`."""
    probe = repeats(items, others, key, workers)
    return probe.cell(), repeat_failures(split, probe)


MANY_CLASSES = 10


def learned(features: Sequence[Sequence[float]], targets: Sequence, floor: float) -> Probe:
    """A deprived solver learned from features alone, fitted on the first half of the items and scored
    on the second half: a gradient-boosted classifier, or for an open answer (more than MANY_CLASSES
    answers, where boosting would fit a tree per answer) a decision tree."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads only for an audit
    from sklearn.tree import DecisionTreeClassifier

    half = len(targets) // 2
    if half == 0 or len(set(targets[:half])) < 2:
        return Probe(0, 0, floor)
    many = len(set(targets[:half])) > MANY_CLASSES
    model = (DecisionTreeClassifier(min_samples_leaf=3, random_state=0) if many else
             HistGradientBoostingClassifier(max_iter=100, random_state=0))
    with warnings.catch_warnings():  # sklearn's guess that many answers may mean a regression
        warnings.simplefilter("ignore", UserWarning)
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


def balanced(hits: int, n: int, share: float = 0.5) -> bool:
    """Whether a count of one label is within the verdict's interval of `share` (either way)."""
    lo, hi = wilson(hits, n, Z_VERDICT)
    return lo <= share <= hi
