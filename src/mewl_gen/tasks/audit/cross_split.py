"""The cross-split repeat probe: the audit's `repeats` column, the same for every benchmark."""
from __future__ import annotations

from functools import partial
from typing import Callable, Hashable, Sequence

from ..stored import StoredItem
from .probes import Probe, measured

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
    objects' attributes, the query's objects, the choices, the answer), given as its Audit's `key`: the
    frame (frame.py) fills every row's `repeats` cell and verdict words from `repeat_column`. Keys must
    be module-level functions (the items are measured on worker processes)."""
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
