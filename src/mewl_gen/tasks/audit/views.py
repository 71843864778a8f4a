"""A learned probe that needs no idea of the leak: what a deprived solver still sees, featurised
generically, and a gradient-boosted model fitted on one set of items and scored on another.

A benchmark declares the view its solver is left with: a flat dict of scalars (the adjective, the
target's own attributes) and named groups of objects (the objects one level below the target, one test
panel), each object described by the marker scan's generic statistics (markers.object_statistics).
`flatten` turns a view into numbers without knowing what they mean: a category becomes one column per
value, a group its object count and, of every statistic of its objects, the sum, least and largest (a
category: how many objects hold each value). Columns are the union over the items; a missing one is 0.
So a marker nobody thought of (a uniquely coloured object on one side, a shape no other object of the
panel has) is a column or a combination of columns the trees can find."""
from __future__ import annotations

from typing import Hashable, Mapping, Sequence

import numpy as np

from . import scikit
from .probes import Probe

View = Mapping[str, object]  # name -> a number, a category (str) or a group (a list of objects' statistics)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (bool, int, float, np.integer, np.floating)) else None


def _group(name: str, rows: Sequence[Mapping[str, Hashable]]) -> dict[str, float]:
    out = {f"{name}: count": float(len(rows))}
    for row in rows:
        for key, value in row.items():
            x = _number(value)
            if x is None:
                column = f"{name}: {key}={value}"
                out[column] = out.get(column, 0.0) + 1
                continue
            for how, f in (("sum", lambda a, b: a + b), ("min", min), ("max", max)):
                column = f"{name}: {how} {key}"
                out[column] = f(out[column], x) if column in out else x
    return out


def flatten(view: View) -> dict[str, float]:
    """A view as named numbers."""
    out: dict[str, float] = {}
    for name, value in view.items():
        if isinstance(value, (list, tuple)):
            out |= _group(name, value)
        elif (x := _number(value)) is not None:
            out[name] = x
        else:
            out[f"{name}={value}"] = 1.0
    return out


def matrix(flat: Sequence[Mapping[str, float]], columns: Sequence[str]) -> np.ndarray:
    return np.array([[f.get(c, 0.0) for c in columns] for f in flat], dtype=float)


def fitted(views: Sequence[View], labels: Sequence[bool]):
    """A gradient-boosted classifier of the views, as a function of other views -> P(label true);
    None where the labels show one value only."""
    if len(set(labels)) < 2:
        return None
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads only for an audit
    from threadpoolctl import threadpool_limits

    flat = [flatten(v) for v in views]
    columns = sorted({c for f in flat for c in f})
    model = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.1, max_leaf_nodes=15,
                                           l2_regularization=1.0, random_state=0)
    with threadpool_limits(limits=1):  # a small fit: OpenMP threads only slow shared cores
        model.fit(matrix(flat, columns), np.asarray(labels, bool))

    def predict(others: Sequence[View]) -> np.ndarray:
        if not others:
            return np.zeros(0)
        with threadpool_limits(limits=1):
            return model.predict_proba(matrix([flatten(v) for v in others], columns))[:, 1]

    return predict


def view_probe(fit: Sequence[tuple[View, bool]], score: Sequence[tuple[View, bool]], floor: float) -> Probe:
    """The model fitted on `fit`'s views and labels, its hits on `score` (a tie, 1/2: true)."""
    predict = fitted([v for v, _ in fit], [y for _, y in fit]) if fit else None
    if predict is None or not score:
        return Probe(0, 0, floor)
    guesses = predict([v for v, _ in score]) >= 0.5
    return Probe(int(sum(g == y for g, (_, y) in zip(guesses, score))), len(score), floor)


def halves_probe(seen: Sequence[tuple[int, View, bool]], train: Sequence[tuple[View, bool]] | None,
                 floor: float) -> Probe:
    """The view probe on (index, view, label) per item: fitted on `train` (another dataset's items,
    `--train DIR`) and scored on every item, or fitted on the first half by index and scored on the rest."""
    if train:
        return view_probe(train, [(v, y) for _, v, y in seen], floor)
    ordered = sorted(seen, key=lambda s: s[0])
    half = len(ordered) // 2
    return view_probe([(v, y) for _, v, y in ordered[:half]], [(v, y) for _, v, y in ordered[half:]], floor)
