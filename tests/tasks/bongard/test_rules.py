"""Bongard's rules are public: the audit's rule-aware solver replays those that read no scene with test_a
and with test_b as the positive. On sampled problems it admits every problem's own answer and stays at
1/2; a rule that read the answer (planted: the split side of a key that holds it, as ShapeWorld's 0.2.0
had) lifts it above."""
from __future__ import annotations

import hashlib
import json

import pytest

from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit.rules import consistent, rule_column
from mewl_gen.tasks.bongard.audit import ANSWERS, admits
from tests.conftest import episodes

FAMILIES = tuple(t.name for t in catalog.benchmarks()["bongard"].tasks)  # basic, abstract, freeform
PROBLEMS = 40  # per family: about a second of CPU each


def replayed(rule=admits) -> tuple[list, list, list]:
    """(answers, answers kept by the replayed rules, indices) of sampled problems of every family."""
    records = [item.model_dump(mode="json") for task in FAMILIES for item in episodes(task, PROBLEMS)]
    return ([tuple(r["test_positive"]) for r in records], [consistent(r, ANSWERS, rule) for r in records],
            [r["index"] for r in records])


def split_rule(item: dict, test_positive: tuple[bool, bool]) -> bool:
    """A rule that reads the answer: the problem's split is the side of a key holding it, so only answers
    whose key falls on the side its own answer gave are consistent with where it was found."""
    def side(answer) -> int:
        return hashlib.sha256(json.dumps([item["task"], item["index"], list(answer)]).encode()).digest()[0] % 2

    return admits(item, test_positive) and side(test_positive) == side(item["test_positive"])


@pytest.mark.slow
def test_the_rule_aware_solver_admits_both_answers_and_stays_at_one_half():
    answers, kept, indices = replayed()
    assert all(k == ANSWERS for k in kept), "no rule the solver can replay reads which test image is positive"
    probe, failures = rule_column(answers, kept, indices, 0.5)
    assert failures == [] and not probe.leaks, probe.cell()


@pytest.mark.slow
def test_a_planted_rule_that_reads_the_answer_is_caught():
    answers, kept, indices = replayed(split_rule)
    probe, failures = rule_column(answers, kept, indices, 0.5)
    assert probe.leaks and failures == ["rule-aware solver above its floor"], probe.cell()


@pytest.mark.parametrize("task", FAMILIES)
def test_a_problem_its_rules_would_not_release_is_reported(task):
    """Both tests positive is no answer; a concept moved to a split that does not draw it (a freeform
    program of the train share shown in test, an unknown template) is rejected under every answer, its
    own included, and the rule-aware column says so."""
    record = episodes(task, 1)[0].model_dump(mode="json")
    assert consistent(record, ANSWERS, admits) == ANSWERS and not admits(record, (True, True))
    moved = (dict(record, split="test") if task == "bongard-freeform"
             else dict(record, concept={"kind": "no-such-template", "args": []}))
    kept = [consistent(moved, ANSWERS, admits)]
    assert kept == [()]
    _, failures = rule_column([tuple(record["test_positive"])], kept, [0], 0.5)
    assert failures == ["the rules replayed reject 1 items under their own answer"]
