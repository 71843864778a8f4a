from __future__ import annotations

import functools
import os
import tempfile

from joblib import Parallel, delayed

from scenes.spec import Episode, Item

# Measured workers per device (cluster.calibrate) are kept per user; tests, and the
# commands they start, must neither read a developer's measurements nor leave theirs.
os.environ["MEWL_CACHE_DIR"] = tempfile.mkdtemp(prefix="mewl-test-cache-")

# The bar: 2,000 episodes per task, every one checked.
EPISODES_PER_TASK = 2000


def _sample_range(task: str, split: str, seed: int, start: int, stop: int) -> list[str]:
    from tasks import sample_item

    return [sample_item(task, seed, split, i).model_dump_json() for i in range(start, stop)]


@functools.cache
def episodes(task: str, n: int = EPISODES_PER_TASK, split: str = "train", seed: int = 0) -> tuple[Episode | Item, ...]:
    """n episodes (items, for a task beyond MEWL) of a task, sampled once per test session on every core."""
    from tasks import REGISTRY

    step = 250
    batches = Parallel(n_jobs=-1)(
        delayed(_sample_range)(task, split, seed, s, min(s + step, n)) for s in range(0, n, step)
    )
    return tuple(REGISTRY[task].model.model_validate_json(j) for batch in batches for j in batch)
