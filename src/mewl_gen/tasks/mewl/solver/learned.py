"""Learned deprived baselines: a gradient-boosted scorer of choices.

Each choice of an episode becomes one row of hand-made features
(features.py) computed from the deprived view; the model learns which rows
are answers, and a test episode's guess is its highest-scoring choice. The
model is fitted on one set of episodes and scored on another (a second seed,
or the other folds of one dataset), so it finds shortcuts that generalise,
not the training episodes.
"""
from __future__ import annotations

import numpy as np

from ..item import Episode
from .deprived import view
from .features import FEATURES
from .no_query import FEATURES as NO_QUERY_FEATURES

# Episodes a model must be fitted on to be reported: on fewer, its score says nothing a reader could use
# (scored on as few, its 99.9 % band at chance 1/5 is wider than +-0.13) and its 165 fits were most of
# the time of auditing a small dataset. Below it a learned cell reads "-" (too few to learn).
MIN_TRAIN = 100


def rows(task: str, deprivation: str, episodes) -> tuple[np.ndarray, np.ndarray]:
    """Features (one row per choice, episodes after each other) and labels."""
    features = {**FEATURES, **NO_QUERY_FEATURES}[(task, deprivation)]
    x = [features(view(ep, deprivation, keep_lexicon=True)) for ep in episodes]
    y = [np.array([c == ep.answer for c in ep.choices]) for ep in episodes]
    return np.vstack(x), np.concatenate(y)


def _model():
    from sklearn.ensemble import HistGradientBoostingClassifier  # scikit-learn loads only when a model is fitted

    return HistGradientBoostingClassifier(
        max_iter=150, learning_rate=0.1, max_leaf_nodes=15, l2_regularization=1.0, early_stopping=False, random_state=0
    )


def _picks(model, x: np.ndarray, n_choices: int, rng: np.random.Generator) -> np.ndarray:
    """Index of the best-scoring choice of each episode; ties at random."""
    score = model.predict_proba(x)[:, 1].reshape(-1, n_choices)
    score = score + rng.uniform(0, 1e-9, size=score.shape)
    return score.argmax(axis=1)


def hits(task: str, deprivation: str, train: list[Episode], test: list[Episode], seed: int = 0) -> np.ndarray:
    """Whether the model fitted on `train` answers each `test` episode."""
    from threadpoolctl import threadpool_limits

    x, y = rows(task, deprivation, train)
    # One thread: the fit is small, and OpenMP threads on a shared machine
    # made it thirty times slower (measured on 2 busy cores).
    with threadpool_limits(limits=1):
        model = _model().fit(x, y)
        picks = _picks(model, rows(task, deprivation, test)[0], len(test[0].choices), np.random.default_rng(seed))
    return np.array([ep.choices[k] == ep.answer for ep, k in zip(test, picks)])


def cross_validated_hits(task: str, deprivation: str, episodes: list[Episode], seed: int = 0) -> np.ndarray | None:
    """Every episode answered by a model fitted on the other fold(s): two
    halves when there are plenty, five folds when few; None when too few."""
    n = len(episodes)
    folds = 2 if n >= 400 else 5
    if n - n // folds < MIN_TRAIN:
        return None
    fold = np.random.default_rng(seed).permutation(n) % folds
    out = np.zeros(n, dtype=bool)
    for f in range(folds):
        train = [ep for ep, g in zip(episodes, fold) if g != f]
        test_idx = np.flatnonzero(fold == f)
        out[test_idx] = hits(task, deprivation, train, [episodes[i] for i in test_idx], seed)
    return out
