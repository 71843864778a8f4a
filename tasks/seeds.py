"""Episode seeds: one SeedSequence per (root, split, task, index, retry)."""
from __future__ import annotations

import hashlib

import numpy as np

from scenes.spec import TASKS


def split_code(split: str) -> int:
    """A stable integer for a split name (Python's hash() is salted)."""
    return int.from_bytes(hashlib.sha256(split.encode()).digest()[:8], "little")


def episode_rng(root_seed: int, split: str, task: str, index: int, retry: int = 0) -> np.random.Generator:
    entropy = [root_seed, split_code(split), TASKS.index(task), index, retry]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def draw_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**63))
