"""Independent solvers and deprived guessers of MEWL's nine tasks, one module per task.

A solver sees an episode whose lexicon has been emptied: only the context
panels (scenes and utterances), the query scene and the choices. It never
imports the samplers. `SOLVERS` says, per task, which function solves, which
guesses without the images, what balance it checks and which deprivations
the task has, each with its exact guesser and the floor it must stay at
(docs/tasks.md, "Necessary ingredients").
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ..item import Episode
from . import basic, bootstrap, composite, number, object as object_task, pragmatic, relation
from .deprived import NO_HAND, NO_LANGUAGE, NO_QUERY, QUERY_ONLY

Guess = Callable[[Episode, np.random.Generator], str]


@dataclass(frozen=True)
class Deprived:
    guess: Guess  # handed deprived.view(ep, deprivation): it cannot read what it is denied
    floor: float  # chance for this deprivation, proved where the task's construction sets one
    # Where the guess is deprived.pick(pool(ep), rng): the answers it picks among, each draw's in order, so
    # that the audit reads every draw's guess from one call (deprived.outcomes).
    pool: Callable[[Episode], list[str]] | None = None


@dataclass(frozen=True)
class TaskSolvers:
    solve: Callable[[Episode], str]
    text_only: Guess
    balance: Callable[[Episode], dict[str, tuple[list, tuple]]]  # name -> (values drawn, their support)
    chance: float  # the text-only analytic chance
    deprived: dict[str, Deprived]


_basic = TaskSolvers(basic.solve, basic.text_only_guess, basic.balance, basic.CHANCE,
                     {QUERY_ONLY: Deprived(basic.query_only_guess, basic.QUERY_ONLY_CHANCE)})

SOLVERS: dict[str, TaskSolvers] = {
    "shape": _basic,
    "color": _basic,
    "material": _basic,
    "object": TaskSolvers(object_task.solve, object_task.text_only_guess, object_task.balance, object_task.CHANCE,
                          {QUERY_ONLY: Deprived(object_task.query_only_guess, object_task.CHANCE,
                                                object_task.query_only_pool)}),
    "composite": TaskSolvers(composite.solve, composite.text_only_guess, composite.balance, composite.CHANCE,
                             {QUERY_ONLY: Deprived(composite.query_only_guess, composite.CHANCE)}),
    "relation": TaskSolvers(relation.solve, relation.text_only_guess, relation.balance, relation.CHANCE,
                            {QUERY_ONLY: Deprived(relation.query_only_guess, relation.QUERY_ONLY_CHANCE,
                                                  relation.query_only_pool)}),
    "bootstrap": TaskSolvers(bootstrap.solve, bootstrap.text_only_guess, bootstrap.balance, bootstrap.CHANCE,
                             {QUERY_ONLY: Deprived(bootstrap.query_only_guess, bootstrap.QUERY_ONLY_CHANCE,
                                                   bootstrap.query_only_pool),
                              NO_LANGUAGE: Deprived(bootstrap.no_language_guess, bootstrap.NO_LANGUAGE_CHANCE,
                                                    bootstrap.no_language_pool)}),
    "number": TaskSolvers(number.solve, number.text_only_guess, number.balance, number.CHANCE,
                          {QUERY_ONLY: Deprived(number.query_only_guess, number.CHANCE, number.query_only_pool)}),
    "pragmatic": TaskSolvers(pragmatic.solve, pragmatic.text_only_guess, pragmatic.balance, pragmatic.CHANCE,
                             {QUERY_ONLY: Deprived(pragmatic.query_only_guess, pragmatic.QUERY_ONLY_CHANCE),
                              NO_HAND: Deprived(pragmatic.no_hand_guess, pragmatic.NO_HAND_CHANCE)}),
}

# Without the query image (the context, its hands included, and the choices)
# on every task: where the context adds nothing to the utterances about which
# choice is asked, the best guess is the text-only one and its chance the
# floor; relation's and pragmatic's contexts do say more, and their floors
# are proved (docs/tasks.md, tests/tasks/mewl/test_relation.py and
# tests/tasks/mewl/test_pragmatic.py).
_NO_QUERY = {task: Deprived(s.text_only, s.chance) for task, s in SOLVERS.items()} | {
    "relation": Deprived(relation.no_query_guess, relation.NO_QUERY_CHANCE, relation.no_query_pool),
    "pragmatic": Deprived(pragmatic.no_query_guess, pragmatic.NO_QUERY_CHANCE),
}
SOLVERS = {task: replace(s, deprived={**s.deprived, NO_QUERY: _NO_QUERY[task]}) for task, s in SOLVERS.items()}
