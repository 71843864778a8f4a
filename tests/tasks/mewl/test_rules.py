"""MEWL's rules are public: the audit's rule-aware solver replays those that read no image under each of
the five choices. On sampled episodes it admits every episode's own answer and, guessing among what the
rules admit, stays at the task's text-only chance; a rule that read the answer (planted: the split side
of a key that holds it, as ShapeWorld's 0.2.0 had) lifts it above."""
from __future__ import annotations

import hashlib
import json

import pytest

from mewl_gen.tasks.audit.rules import consistent, rule_column
from mewl_gen.tasks.mewl.replayed import admits, balanced_answers
from mewl_gen.tasks.mewl.item import TASKS
from mewl_gen.tasks.mewl.solver import SOLVERS
from tests.conftest import episodes

EPISODES = 200  # per task: the planted rule halves what the rules admit, far above chance at the verdict's bar


def replayed(task: str, rule=admits) -> tuple[list, list, list]:
    """(answers, choices kept by the replayed rules, indices) of sampled episodes, from their records."""
    records = [ep.model_dump(mode="json") for ep in episodes(task, EPISODES)]
    return ([r["answer"] for r in records], [consistent(r, r["choices"], rule) for r in records],
            [r["index"] for r in records])


def side(ep: dict, answer: str) -> int:
    return hashlib.sha256(json.dumps([ep["task"], ep["index"], answer]).encode()).digest()[0] % 2


def split_rule(ep: dict, answer: str) -> bool:
    """A rule that reads the answer: the episode's split is the side of a key holding its answer, so only
    answers whose key falls on the side its own answer gave are consistent with where it was found."""
    return admits(ep, answer) and side(ep, answer) == side(ep, ep["answer"])


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_the_rule_aware_solver_admits_every_answer_and_stays_at_chance(task):
    answers, kept, indices = replayed(task)
    probe, failures = rule_column(answers, kept, indices, SOLVERS[task].chance)
    assert failures == [] and not probe.leaks, probe.cell()
    assert {len(k) for k in kept} == {round(1 / SOLVERS[task].chance)}, "as many choices admitted as chance says"


@pytest.mark.slow
@pytest.mark.parametrize("task", ("shape", "composite", "relation", "number"))
def test_a_planted_rule_that_reads_the_answer_is_caught(task):
    answers, kept, indices = replayed(task, split_rule)
    probe, failures = rule_column(answers, kept, indices, SOLVERS[task].chance)
    assert probe.leaks and failures == ["rule-aware solver above its floor"], probe.cell()


def test_a_fresh_word_or_a_heard_phrase_is_never_the_answer():
    """The constructions the replay reads: basic's two fresh words are never uttered, composite's two seen
    phrases are uttered; either, made the answer, is rejected (the rule-aware solver reports it)."""
    for task in ("shape", "composite"):
        ep = episodes(task, 1)[0].model_dump(mode="json")
        wrong = [c for c in ep["choices"] if not admits(ep, c)]
        assert len(wrong) == 2 and ep["answer"] not in wrong
        probe, failures = rule_column([wrong[0]], [consistent(ep, ep["choices"], admits)], [0], SOLVERS[task].chance)
        assert failures == ["the rules replayed reject 1 items under their own answer"]


def test_relation_statements_that_are_no_cycle_set_admit_nothing():
    assert balanced_answers(("red cube dax red cube",) * 5) == frozenset()
    assert not admits({"task": "relation", "context_panels": [], "choices": ["a b c d e"] * 5}, "a b c d e")
