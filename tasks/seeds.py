"""Item seeds: one SeedSequence per (root, split, task, index, retry)."""
from __future__ import annotations

import hashlib

import numpy as np

from scenes.spec import TASKS


def _code(name: str) -> int:
    """A stable integer for a name (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def split_code(split: str) -> int:
    return _code(split)


def task_code(task: str) -> int:
    """MEWL's nine keep their index (their seeds predate other benchmarks); any
    other task is coded by its name, so adding a task never moves another's."""
    return TASKS.index(task) if task in TASKS else _code(f"task:{task}")


def item_rng(root_seed: int, split: str, task: str, index: int, retry: int = 0) -> np.random.Generator:
    entropy = [root_seed, split_code(split), task_code(task), index, retry]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def balanced_label(root_seed: int, split: str, task: str, index: int) -> bool:
    """True for exactly one item of each pair (2j, 2j+1), which one drawn from
    the pair's own seed: any even number of items is exactly half true, and
    neither an item's index nor its parity tells its label."""
    pair = np.random.default_rng(np.random.SeedSequence(
        [root_seed, split_code(split), task_code(task), index // 2, _code("balanced label pair")]))
    return (index % 2 == 0) == bool(pair.integers(2))


def draw_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**63))
