"""The learned view probe (views.py) over multiple choices: each choice of an item has its generic view,
a model of "this choice is the answer" is fitted on one set of items' choices, and on each scored item
it answers the choice it scores highest (a tie: a coin of the item's index, never of its answer). Its
floor is the one the deprived view leaves: 1 over the choices where nothing tells them apart, or the
task's proved floor."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .markers import coin
from .probes import Probe
from .views import View, fitted, flatten

TIE_SALT = 7  # sets the tie's coin apart from the marker scan's coins of the same index


@dataclass(frozen=True)
class Choices:
    """One item as the probe keeps it: its index, each choice's view (flattened, so that a large audit
    keeps numbers, not the objects' rows) and the answer's position among the choices."""

    index: int
    views: tuple[dict[str, float], ...]
    answer: int


def choices(index: int, views: Sequence[View], answer: int) -> Choices:
    return Choices(index, tuple(flatten(v) for v in views), answer)


def choices_probe(fit: Sequence[Choices], score: Sequence[Choices], floor: float) -> Probe:
    """The model fitted on `fit`'s choices, its hits on `score`'s items."""
    rows = [(v, k == item.answer) for item in fit for k, v in enumerate(item.views)]
    predict = fitted([v for v, _ in rows], [y for _, y in rows]) if rows else None
    if predict is None or not score:
        return Probe(0, 0, floor)
    scores = predict([v for item in score for v in item.views])
    hits, at = 0, 0
    for item in score:
        mine = scores[at:at + len(item.views)]
        at += len(item.views)
        best = np.flatnonzero(mine == mine.max())
        hits += int(best[coin(item.index, len(best), TIE_SALT)] == item.answer)
    return Probe(hits, len(score), floor)


def halves_choices(items: Sequence[Choices], train: Sequence[Choices] | None, floor: float) -> Probe:
    """Fitted on `train` (another dataset's items, `--train DIR`) and scored on every item, or fitted on
    the first half by index and scored on the rest."""
    if train:
        return choices_probe(train, items, floor)
    ordered = sorted(items, key=lambda item: item.index)
    half = len(ordered) // 2
    return choices_probe(ordered[:half], ordered[half:], floor)
