"""One sampler and one validator per MEWL task (no bpy).

`sample_episode(task, root_seed, split, index)` is the only entry point the
rest of the project needs: it derives the episode's generator, samples,
validates, and redraws from a derived seed when placement runs out of
attempts (bounded).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from scenes.placement import PlacementError
from scenes.spec import TASKS, Episode

from . import basic
from .episode import Draft, InvalidEpisode
from .seeds import episode_rng

MAX_RETRIES = 8


@dataclass(frozen=True)
class Task:
    sample: Callable[[np.random.Generator], Draft]
    validate: Callable[[Episode], None]


REGISTRY: dict[str, Task] = {
    attr: Task(partial(basic.sample, attribute=attr), partial(basic.validate, attribute=attr))
    for attr in ("shape", "color", "material")
}


def _register_optional() -> None:
    """Tasks whose modules exist; all nine once the project is complete."""
    import importlib

    for name in TASKS:
        if name in REGISTRY:
            continue
        try:
            module = importlib.import_module(f"tasks.{name}")
        except ModuleNotFoundError:
            continue
        REGISTRY[name] = Task(module.sample, module.validate)


_register_optional()


class EpisodeError(RuntimeError):
    """An episode that could not be produced within the retry budget."""


def sample_episode(task: str, root_seed: int, split: str, index: int, first_retry: int = 0) -> Episode:
    spec = REGISTRY[task]
    for retry in range(first_retry, first_retry + MAX_RETRIES):
        rng = episode_rng(root_seed, split, task, index, retry)
        try:
            draft = spec.sample(rng)
        except PlacementError:
            continue
        episode = Episode(
            task=task, split=split, index=index, root_seed=root_seed, retry=retry,
            lexicon=draft.lexicon, context_panels=draft.context_panels, query=draft.query,
            choices=draft.choices, answer=draft.answer,
        )
        spec.validate(episode)
        return episode
    raise EpisodeError(f"{task} episode {index}: placement failed in {MAX_RETRIES} redraws")


__all__ = ["REGISTRY", "sample_episode", "EpisodeError", "InvalidEpisode", "Draft"]
