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
from scenes.spec import Episode

from . import basic, bootstrap, composite, number, pragmatic, relation
from . import object as object_task
from .episode import Draft, InvalidEpisode
from .seeds import episode_rng

MAX_RETRIES = 8


@dataclass(frozen=True)
class Task:
    sample: Callable[[np.random.Generator], Draft]
    validate: Callable[[Episode], None]


def _basic(attribute: str) -> Task:
    return Task(partial(basic.sample, attribute=attribute), partial(basic.validate, attribute=attribute))


# Every task of MEWL, in its order; a module that fails to import is an error, never a skipped task.
REGISTRY: dict[str, Task] = {
    "shape": _basic("shape"),
    "color": _basic("color"),
    "material": _basic("material"),
    "object": Task(object_task.sample, object_task.validate),
    "composite": Task(composite.sample, composite.validate),
    "relation": Task(relation.sample, relation.validate),
    "bootstrap": Task(bootstrap.sample, bootstrap.validate),
    "number": Task(number.sample, number.validate),
    "pragmatic": Task(pragmatic.sample, pragmatic.validate),
}


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
