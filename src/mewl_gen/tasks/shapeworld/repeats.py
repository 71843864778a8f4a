"""No test item repeats an item of another split, by construction.

An item's canonical key is what it shows up to camera, lights, positions,
rotations, index and seeds: its task, its caption and its objects'
attributes (shape, color, material, size) as a multiset. Not its agreement:
the rule is public, and a key holding the answer would let anyone hash it
under both answers and keep the one whose side matches the item's split
(half the items decided without reading the caption). A hash of the key
puts every key on one side: keys of the test side are drawn only in
the split "test", keys of the other side only in every other split. So a
test item never has the key of a train or val item, of this dataset or of
any other made by this generator, and no split needs to see another to keep
it. The sampler rejects objects whose key is on the wrong side before it
places them (sampler.SceneDraw.feasible); the audit finds repeats from the
files (tasks.audit.repeats with `stored_key`).
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable

from mewl_gen.scenes.universe import TUPLE_ORDER

from ..stored import StoredItem
from .distribution import TEST_SPLIT


def key(task: str, caption: str, objects: Iterable[tuple[str, ...]]) -> str:
    """The canonical key; each object as its attributes in MEWL's tuple order (shape, color, material, size)."""
    return json.dumps([task, caption, sorted(list(o) for o in objects)], separators=(",", ":"))


def on_test_side(k: str) -> bool:
    """Whether the key belongs to the split test: one bit of its sha256, so half of all keys."""
    return hashlib.sha256(k.encode()).digest()[0] & 1 == 1


def allowed(k: str, split: str) -> bool:
    """Whether an item of `split` may have the key."""
    return on_test_side(k) == (split == TEST_SPLIT)


def admits(task: str, caption: str, objects: Iterable[tuple[str, ...]], agreement: bool, split: str) -> bool:
    """The split rule as the sampler applies it, with everything it could read as arguments (the
    answer included), so that the audit's rule-aware solver replays it under both answers. It reads
    no answer: both replays agree, and the item's split says nothing about its label."""
    return allowed(key(task, caption, objects), split)


def stored_key(stored: StoredItem) -> str:
    """The key of a released item, from its item.json alone."""
    item = stored.record()
    objects = [tuple(o[a] for a in TUPLE_ORDER) for o in item["scene"]["objects"]]
    return key(item["task"], item["caption"], objects)
