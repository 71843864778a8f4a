"""Item seeds: one SeedSequence per (root, split, task, index, retry).

A task's code enters every seed of its items: a fixed one where the task
declares it (tasks.benchmark.Task.seed_code), else one derived from its name,
so adding a task never moves another task's items.
"""
from __future__ import annotations

import hashlib

import numpy as np


def _code(name: str) -> int:
    """A stable integer for a name (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def split_code(split: str) -> int:
    return _code(split)


def name_code(task: str) -> int:
    """The code of a task that declares none: derived from its name."""
    return _code(f"task:{task}")


def item_rng(root_seed: int, split: str, code: int, index: int, retry: int = 0) -> np.random.Generator:
    entropy = [root_seed, split_code(split), code, index, retry]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def draw_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**63))
