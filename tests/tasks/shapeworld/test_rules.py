"""ShapeWorld's rules are public: the rule-aware solver replays them under both answers on an item's
released fields. The split rule of 0.2.0 (a key holding the agreement) let it decide half the items;
planted back, the audit's probe flags it, and the rule that replaced it leaves the solver at 1/2."""
from __future__ import annotations

import json

import pytest

from mewl_gen.tasks.audit.rules import consistent, rule_column
from mewl_gen.tasks.benchmark import draw_item
from mewl_gen.tasks.shapeworld import SHAPEWORLD, repeats
from mewl_gen.tasks.shapeworld.audit import admits
from mewl_gen.tasks.shapeworld.distribution import TEST_SPLIT

TASK = next(t for t in SHAPEWORLD.tasks if t.name == "shapeworld-existential")
ITEMS = 120  # per split: the planted rule decides half of them, far above 1/2 at the verdict's bar


def old_admits(task, caption, objects, agreement, split) -> bool:
    """The split rule of 0.2.0: the side of a key that held the agreement."""
    key = json.dumps([task, caption, sorted(list(o) for o in objects), bool(agreement)], separators=(",", ":"))
    return repeats.on_test_side(key) == (split == TEST_SPLIT)


def replayed(seed: int) -> tuple[list, list, list]:
    """(labels, answers kept by the replayed rules, indices) of train and test items of one seed."""
    records = [json.loads(draw_item(TASK, seed, split, i).model_dump_json())
               for split in ("train", TEST_SPLIT) for i in range(ITEMS)]
    return ([r["agreement"] for r in records], [consistent(r, (True, False), admits) for r in records],
            [r["index"] for r in records])


@pytest.mark.slow
def test_the_rule_aware_solver_flags_the_old_split_rule_planted_back(monkeypatch):
    monkeypatch.setattr(repeats, "admits", old_admits)  # the sampler and the replay both read it
    labels, kept, indices = replayed(31)
    probe, failures = rule_column(labels, kept, indices, 0.5)
    assert probe.leaks and failures == ["rule-aware solver above its floor"]
    decided = sum(len(k) == 1 for k in kept) / len(kept)
    assert 0.35 < decided < 0.65, "one bit of the hash under each answer: half the items decided"


@pytest.mark.slow
def test_the_new_split_rule_admits_both_answers_and_leaves_the_solver_at_one_half():
    labels, kept, indices = replayed(31)
    assert all(k == (True, False) for k in kept), "no rule the solver can replay reads the agreement"
    probe, failures = rule_column(labels, kept, indices, 0.5)
    assert not probe.leaks and failures == []


def test_a_replay_that_rejects_an_items_own_answer_is_reported():
    """A replay that is not the generator's rule (or a damaged item) must not pass as a clean probe."""
    probe, failures = rule_column([True, False], [(False,), (True,)], [0, 1], 0.5)
    assert probe.hits == 0 and failures == ["the rules replayed reject 2 items under their own answer"]


@pytest.mark.parametrize("split", ["train", TEST_SPLIT])
def test_the_sampler_keeps_only_keys_of_its_splits_side(split):
    for i in range(20):
        record = json.loads(draw_item(TASK, 8, split, i).model_dump_json())
        assert admits(record, record["agreement"]) and admits(record, not record["agreement"])
