"""MEWL's nine tasks (Jiang et al., ICML 2023): six context panels, a query, five choices."""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from scenes.spec import Episode

from . import basic, bootstrap, composite, number, pragmatic, relation
from . import object as object_task
from .episode import Draft
from .registry import Benchmark, Draw, Task


def _task(name: str, summary: str, sample: Callable[[np.random.Generator], Draft], validate: Callable[[Episode], None]) -> Task:
    def draw(rng: np.random.Generator, d: Draw) -> Episode:
        draft = sample(rng)
        return Episode(
            task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry,
            lexicon=draft.lexicon, context_panels=draft.context_panels, query=draft.query,
            choices=draft.choices, answer=draft.answer,
        )

    return Task(name=name, benchmark="mewl", summary=summary, sample=draw, validate=validate, model=Episode,
                images=7)  # six context panels and the query


def _basic(attribute: str) -> Task:
    return _task(attribute, f"a word per {attribute} value, each named by one single-object panel",
                 partial(basic.sample, attribute=attribute), partial(basic.validate, attribute=attribute))


# Every task of MEWL, in its order; a module that fails to import is an error, never a skipped task.
MEWL = Benchmark("mewl", "MEWL: few-shot word learning from six context panels, a query and five choices", (
    _basic("shape"),
    _basic("color"),
    _basic("material"),
    _task("object", "words for whole objects (shape, color, material), learned across panels",
          object_task.sample, object_task.validate),
    _task("composite", "two-word phrases: a color word and a shape word composed",
          composite.sample, composite.validate),
    _task("relation", "words for left, right, front and behind between two objects",
          relation.sample, relation.validate),
    _task("bootstrap", "new object words learned from sentences with already-known ones",
          bootstrap.sample, bootstrap.validate),
    _task("number", "number words for how many objects a panel shows",
          number.sample, number.validate),
    _task("pragmatic", "a word for the object the hand points at, told apart by what the panels share",
          pragmatic.sample, pragmatic.validate),
))
