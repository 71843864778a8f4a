"""Benchmarks and their tasks, declared once, and the one way to draw an item.

A benchmark owns tasks. MEWL's nine keep their bare names (`pragmatic`);
every other task is `<benchmark>-<task>` (`malevic-setpos`). A task's sampler
turns a generator and the item's identity (a Draw) into an item; its
validator recomputes every label from the item's specs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from scenes.draws import OutOfDraws
from scenes.spec import Item

from .seeds import item_rng

MAX_RETRIES = 8  # whole-item redraws, each from its own derived seed


@dataclass(frozen=True)
class Scheme:
    """How a task's splits differ. Under `iid` every split is drawn from one
    distribution; a compositional scheme holds combinations out of some splits
    and names the splits it knows (None: any split name)."""

    name: str
    summary: str
    splits: tuple[str, ...] | None = None


IID_SCHEME = Scheme("iid", "every split drawn from the same distribution")
IID = IID_SCHEME.name


@dataclass(frozen=True)
class Draw:
    """Which item is drawn: everything that decides it besides the generator."""

    task: str
    split: str
    index: int
    root_seed: int
    retry: int
    scheme: str = IID
    config: object | None = None


@dataclass(frozen=True)
class Task:
    name: str
    benchmark: str
    summary: str  # one line, for `mewl tasks`
    sample: Callable[[np.random.Generator, Draw], Item]
    validate: Callable[[Item], None]
    model: type[Item]
    images: int  # scenes per item, each one image
    schemes: tuple[Scheme, ...] = (IID_SCHEME,)

    def scheme(self, name: str) -> Scheme | None:
        return next((s for s in self.schemes if s.name == name), None)


@dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    tasks: tuple[Task, ...]
    release: str = ""  # the dataset card's paragraph: what an item folder holds (markdown)


class ItemError(RuntimeError):
    """An item that could not be drawn within the retry budget."""


def draw_item(task: Task, root_seed: int, split: str, index: int, first_retry: int = 0, scheme: str = IID,
              config: object | None = None) -> Item:
    """Sample and validate one item; a sampler that runs out of draws is
    retried from the next derived seed, at most MAX_RETRIES times."""
    last = ""
    for retry in range(first_retry, first_retry + MAX_RETRIES):
        rng = item_rng(root_seed, split, task.name, index, retry)
        try:
            item = task.sample(rng, Draw(task.name, split, index, root_seed, retry, scheme, config))
        except OutOfDraws as err:
            last = str(err)
            continue
        task.validate(item)
        if len(item.scenes()) != task.images:
            raise ItemError(f"{task.name} item {index}: {len(item.scenes())} scenes, the task declares {task.images}")
        return item
    raise ItemError(f"{task.name} item {index}: ran out of draws in {MAX_RETRIES} redraws ({last})")
