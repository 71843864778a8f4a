"""The rule-aware solver: the generator's own rules, replayed under every possible answer.

Our code is public, so every rule that keeps, rejects, balances, places or
splits a drawn item is known to whoever solves the items. A rule that reads
the answer leaves a trace in what it lets through: the split an item landed
in, its key fields, its index, its retry. This solver knows the rules and an
item's released fields but not what the task tests (it never looks at the
image or the words the task is about): for each possible answer it asks every
rule whether it would have released the item as it is seen with that answer,
keeps the answers that every rule admits, and guesses one of them uniformly
(a coin of the item's index, never of its answer). A rule that reads no
answer admits every answer, and the solver stays at its floor; a rule that
reads it (ShapeWorld's split side on a key that held the agreement) rules
answers out, and the solver climbs above it.

A benchmark plugs in with one function, `admits(record, answer) -> bool`, its
rules replayed on the item's record (item.json) with the answer replaced; each
audit's row takes its `rule-aware` cell and verdict words from `rule_column`.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence

import numpy as np

from . import Probe, leaking

GUESS_TAG = 0x5E1F  # sets the guessing coin apart from every seed of the generator


def consistent(record: dict, answers: Sequence[Hashable], admits: Callable[[dict, Any], bool]) -> tuple:
    """The answers under which every rule would have released the item as it is seen."""
    return tuple(a for a in answers if admits(record, a))


def rule_aware(truths: Sequence[Hashable], kept: Sequence[tuple], indices: Sequence[int], floor: float) -> Probe:
    """The solver's score: per item, one of the answers its rules kept, drawn by a coin of the index."""
    hits = 0
    for truth, answers, index in zip(truths, kept, indices):
        if answers:
            guess = answers[int(np.random.default_rng([GUESS_TAG, index]).integers(len(answers)))]
            hits += guess == truth
    return Probe(hits, len(truths), floor)


def rule_column(truths: Sequence[Hashable], kept: Sequence[tuple], indices: Sequence[int],
                floor: float) -> tuple[Probe, list[str]]:
    """The rule-aware probe and its verdict's words: above its floor, or a rule that would not have
    released an item under its own answer (the replay is not the generator's rule)."""
    probe = rule_aware(truths, kept, indices, floor)
    failures = leaking({"rule-aware solver": probe})
    missed = sum(t not in k for t, k in zip(truths, kept))
    if missed:
        failures.append(f"the rules replayed reject {missed} items under their own answer")
    return probe, failures
