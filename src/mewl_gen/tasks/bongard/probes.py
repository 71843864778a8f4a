"""Deprived solvers of a Bongard problem's test images, for the audit: each sees less than the problem.

- examples withheld: a classifier of single panels (geometry summaries of
  the objects' ground points, or the identity fields of the scene spec)
  fitted on the labelled panels of *other* problems, never on the problem's
  own six-and-six; it calls positive the test image it scores higher.
  Cross-validated across problems (two folds when there are plenty, five
  when few), as MEWL's learned probes are.
- names only: which test image is the positive, learned over the other
  problems from the test images' names in the order shown.
- nearest mean (count, color histogram): a feature averaged over the six
  context positives and the six negatives; the test image nearer the
  positives' mean is called positive (a tie: the second one).
Each gives one hit or miss per problem; its floor is 1/2.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from ..audit import scikit
from .solver import NEGATIVES, POSITIVES, TESTS

MIN_TRAIN = 20  # problems; fewer cannot fit a classifier worth reporting


def geometry(points: Sequence[Sequence[float]]) -> np.ndarray:
    """Summaries of a panel's ground points that need no example: the count, the mean, least, largest
    and spread of the pairwise distances, their ratios, the bounding box's area, the nearest-neighbour mean."""
    p = np.asarray(points, float).reshape(-1, 2)
    n = len(p)
    if n < 2:
        return np.array([n, 0, 0, 0, 0, 0, 0, 0, 0], float)
    d = np.linalg.norm(p[:, None] - p[None, :], axis=-1)
    pairs = d[np.triu_indices(n, 1)]
    nearest = np.where(np.eye(n, dtype=bool), np.inf, d).min(axis=1)
    area = float(np.ptp(p[:, 0]) * np.ptp(p[:, 1]))
    big = pairs.max()
    return np.array([n, pairs.mean(), pairs.min(), big, pairs.std(), area, pairs.min() / big, pairs.mean() / big,
                     nearest.mean() / big], float)


def folds(n: int, seed: int = 0) -> np.ndarray | None:
    k = 2 if n >= 400 else 5
    if n - n // k < MIN_TRAIN:
        return None
    return np.random.default_rng(seed).permutation(n) % k


def _model():
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # scikit-learn loads only for an audit

    return HistGradientBoostingClassifier(max_iter=150, learning_rate=0.1, max_leaf_nodes=15,
                                          l2_regularization=1.0, early_stopping=False, random_state=0)


def pooled_hits(features: Sequence[dict[str, np.ndarray]], labels: Sequence[dict[str, bool]],
                seed: int = 0) -> np.ndarray | None:
    """Per problem: does a classifier of single panels, fitted on the other folds' problems (all fourteen
    labelled panels of each), score its positive test image above its negative one? None: too few problems."""
    from threadpoolctl import threadpool_limits

    fold = folds(len(features), seed)
    if fold is None:
        return None
    names = POSITIVES + NEGATIVES + TESTS
    x = np.array([[f[n] for n in names] for f in features])  # problems x panels x features
    y = np.array([[lab[n] for n in names] for lab in labels])
    out = np.zeros(len(features), dtype=bool)
    jitter = np.random.default_rng(seed).uniform(0, 1e-9, size=(len(features), len(TESTS)))
    with threadpool_limits(limits=1):  # a small fit; OpenMP threads on shared cores only slow it
        for f in np.unique(fold):
            train, test = fold != f, fold == f
            model = _model().fit(x[train].reshape(-1, x.shape[-1]), y[train].ravel())
            tests = x[test][:, -len(TESTS):]
            score = model.predict_proba(tests.reshape(-1, x.shape[-1]))[:, 1].reshape(-1, len(TESTS)) + jitter[test]
            truth = y[test][:, -len(TESTS):]
            out[test] = truth[np.arange(len(score)), score.argmax(axis=1)]
    return out


def names_hits(shown: Sequence[tuple[str, ...]], positive_first: Sequence[bool], seed: int = 0) -> np.ndarray | None:
    """Per problem: does the rule learned on the other folds (for the test images' names in the order shown,
    is the first one the positive more often than not? a tie: a coin) name its positive test image?"""
    fold = folds(len(shown), seed)
    if fold is None:
        return None
    coin = np.random.default_rng(seed).random(len(shown)) < 0.5
    out = np.zeros(len(shown), dtype=bool)
    for f in np.unique(fold):
        votes: Counter = Counter()
        for k in np.flatnonzero(fold != f):
            votes[shown[k]] += 1 if positive_first[k] else -1
        for k in np.flatnonzero(fold == f):
            guess = votes[shown[k]] > 0 if votes[shown[k]] else coin[k]
            out[k] = guess == positive_first[k]
    return out


def nearer_positive(feature: dict[str, np.ndarray], test_positive: Sequence[bool]) -> bool:
    """Whether the nearest-mean solver on this feature answers both test images right."""
    pos = np.mean([feature[n] for n in POSITIVES], axis=0)
    neg = np.mean([feature[n] for n in NEGATIVES], axis=0)

    def score(name: str) -> float:
        return float(np.linalg.norm(feature[name] - neg) - np.linalg.norm(feature[name] - pos))

    first, second = TESTS
    return (score(first) > score(second)) == bool(test_positive[0])
