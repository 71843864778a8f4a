"""Learned deprived baselines: a gradient-boosted scorer of choices.

Each choice of an episode becomes one row of hand-made features
(features.py) computed from the deprived view; the model learns which rows
are answers, and a test episode's guess is its highest-scoring choice. The
model is fitted on one set of episodes and scored on another (a second seed,
or the other folds of one dataset), so it finds shortcuts that generalise,
not the training episodes.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ...audit import scikit
from ..item import Episode
from .deprived import view
from .features import FEATURES
from .no_query import FEATURES as NO_QUERY_FEATURES

# Episodes a model must be fitted on to be reported: on fewer, its score says nothing a reader could use
# (scored on as few, its 99.9 % band at chance 1/5 is wider than +-0.13) and its 165 fits were most of
# the time of auditing a small dataset. Below it a learned cell reads "-" (too few to learn).
MIN_TRAIN = 100


Kept = np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]


def kept(rows: np.ndarray) -> Kept:
    """An episode's rows as a Table keeps them. Where they differ in fewer than half of their columns (the
    identity features: every choice's row is its position, then the same fields of the episode), its first row,
    the columns that differ and their values; else the rows themselves. Columns are compared bit for bit,
    so that given_back returns every value as it was (a NaN, a -0.0 included)."""
    if rows.dtype != np.float64 or rows.ndim != 2 or len(rows) < 2:
        return rows
    bits = rows.view(np.int64)
    differ = np.flatnonzero((bits != bits[0]).any(axis=0))
    if 2 * len(differ) >= rows.shape[1]:
        return rows
    return rows[0].copy(), differ, rows[:, differ].copy()


def given_back(k: Kept) -> np.ndarray:
    """The rows `kept` was given, value for value."""
    if isinstance(k, np.ndarray):
        return k
    first, differ, values = k
    rows = np.repeat(first[None, :], len(values), axis=0)
    rows[:, differ] = values
    return rows


class Table:
    """One deprivation's feature rows and labels of many episodes, made as each episode is read (`add`):
    the episodes themselves are not kept (a parsed one weighs far more than its rows), and their rows are
    kept small (`kept`: the identity rows of 1,777 pragmatic episodes took 11.7 MB as made)."""

    def __init__(self, task: str, deprivation: str, episodes: Iterable[Episode] = ()):
        self.features = {**FEATURES, **NO_QUERY_FEATURES}[(task, deprivation)]
        self.deprivation = deprivation
        self.x: list[Kept] = []  # an episode's rows, one per choice
        self.y: list[np.ndarray] = []  # which of its choices is the answer
        for ep in episodes:
            self.add(ep)

    def __len__(self) -> int:
        return len(self.x)

    def add(self, ep: Episode) -> None:
        self.x.append(kept(self.features(view(ep, self.deprivation, keep_lexicon=True))))
        self.y.append(np.array([c == ep.answer for c in ep.choices]))

    def rows(self, which=None) -> tuple[np.ndarray, np.ndarray]:
        """The rows and labels of the episodes `which` (default: all), in order: each episode's rows
        written into one array, so that a large table is never held twice (its episodes' rows, then
        them stacked)."""
        which = range(len(self)) if which is None else which
        return stacked([self.x[i] for i in which]), np.concatenate([self.y[i] for i in which])


def stacked(parts: list[Kept]) -> np.ndarray:
    """np.vstack of the parts' given_back rows, value for value, without making each part's rows first."""
    if not parts or any(isinstance(k, np.ndarray) and k.ndim != 2 for k in parts):
        return np.vstack([given_back(k) for k in parts])
    first = [k if isinstance(k, np.ndarray) else k[0][None, :] for k in parts]
    heights = [len(k) if isinstance(k, np.ndarray) else len(k[2]) for k in parts]
    out = np.empty((sum(heights), first[0].shape[1]), dtype=np.result_type(*first))
    at = 0
    for k, height in zip(parts, heights):
        if isinstance(k, np.ndarray):
            out[at:at + height] = k
        else:
            start, differ, values = k
            out[at:at + height] = start
            out[at:at + height, differ] = values
        at += height
    return out


def _model():
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # scikit-learn loads only when a model is fitted

    return HistGradientBoostingClassifier(
        max_iter=150, learning_rate=0.1, max_leaf_nodes=15, l2_regularization=1.0, early_stopping=False, random_state=0
    )


def _picks(model, x: np.ndarray, n_choices: int, rng: np.random.Generator) -> np.ndarray:
    """Index of the best-scoring choice of each episode; ties at random."""
    score = model.predict_proba(x)[:, 1].reshape(-1, n_choices)
    score = score + rng.uniform(0, 1e-9, size=score.shape)
    return score.argmax(axis=1)


def fitted_hits(train: Table, test: Table, train_rows=None, test_rows=None, seed: int = 0) -> np.ndarray:
    """Whether the model fitted on the `train_rows` episodes of `train` (default: all) answers each
    `test_rows` episode of `test`."""
    from threadpoolctl import threadpool_limits

    test_rows = range(len(test)) if test_rows is None else test_rows
    x, y = train.rows(train_rows)
    # One thread: the fit is small, and OpenMP threads on a shared machine
    # made it thirty times slower (measured on 2 busy cores).
    with threadpool_limits(limits=1):
        model = _model().fit(x, y)
        del x  # the train rows are not needed to score the test rows
        labels = [test.y[i] for i in test_rows]
        picks = _picks(model, test.rows(test_rows)[0], len(labels[0]), np.random.default_rng(seed))
    return np.array([answer[k] for answer, k in zip(labels, picks)])


def hits(task: str, deprivation: str, train: list[Episode], test: list[Episode], seed: int = 0) -> np.ndarray:
    """Whether the model fitted on `train` answers each `test` episode."""
    return fitted_hits(Table(task, deprivation, train), Table(task, deprivation, test), seed=seed)


def cross_validated(table: Table, seed: int = 0) -> np.ndarray | None:
    """Every episode of the table answered by a model fitted on the other fold(s): two halves when there
    are plenty, five folds when few; None when too few."""
    n = len(table)
    folds = 2 if n >= 400 else 5
    if n - n // folds < MIN_TRAIN:
        return None
    fold = np.random.default_rng(seed).permutation(n) % folds
    out = np.zeros(n, dtype=bool)
    for f in range(folds):
        test_idx = np.flatnonzero(fold == f)
        out[test_idx] = fitted_hits(table, table, np.flatnonzero(fold != f), test_idx, seed)
    return out

