"""What samplers share: shuffles, choices around an answer, an enumeration of
word meanings, and draws of universe objects (no bpy, no I/O)."""
from __future__ import annotations

from typing import Callable, Hashable, Iterable, Sequence

import numpy as np

from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, UNIVERSE, ObjectTuple

from .validation import InvalidItem


def shuffled(rng: np.random.Generator, items: Sequence) -> list:
    return [items[i] for i in rng.permutation(len(items))]


def choices_with_answer(rng: np.random.Generator, answer: str, distractors: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The answer and four distractors in uniformly random order."""
    if len(distractors) != 4 or answer in distractors or len(set(distractors)) != 4:
        raise InvalidItem(f"need 4 distinct distractors besides {answer!r}, got {distractors!r}")
    return tuple(shuffled(rng, [answer, *distractors])), answer


def enumerate_mappings(
    words: Sequence[str],
    domains: dict[str, Iterable[Hashable]],
    consistent: Callable[[dict[str, Hashable]], bool],
    limit: int = 2,
) -> list[dict[str, Hashable]]:
    """Injective word->concept mappings, each word drawn from its domain, that
    `consistent` accepts; `consistent` also sees partial mappings, so it must
    only reject what no completion could fix. Stops after `limit` mappings."""
    found: list[dict[str, Hashable]] = []

    def extend(k: int, mapping: dict[str, Hashable]) -> None:
        if len(found) >= limit:
            return
        if k == len(words):
            found.append(dict(mapping))
            return
        used = set(mapping.values())
        for concept in domains[words[k]]:
            if concept in used:
                continue
            mapping[words[k]] = concept
            if consistent(mapping):
                extend(k + 1, mapping)
            del mapping[words[k]]

    extend(0, {})
    return found


def distinct_objects(rng: np.random.Generator, count: int) -> list[ObjectTuple]:
    """`count` different objects of the universe, uniformly."""
    return [UNIVERSE[i] for i in rng.choice(len(UNIVERSE), size=count, replace=False)]


def random_values(rng: np.random.Generator) -> dict[str, str]:
    """A uniform value of every attribute, drawn in the universe's tuple order."""
    return {a: ATTRIBUTES[a][rng.integers(len(ATTRIBUTES[a]))] for a in TUPLE_ORDER}
