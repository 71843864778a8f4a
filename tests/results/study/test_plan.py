"""What a study shows and what only its key knows (results/study/plan.py), on sampled items, no browser.

The experiment a participant loads must not decide any answer: its pictures have random names, its
buttons carry only their words, the right button's place among them is drawn, and nothing of the item
(split, task, index, scene names, labels) is in it. The key knows, for each trial, the item and what
each button answers, and that answer is the item's own by Item.read_answer."""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest

from mewl_gen.results.study.plan import CATCH_QUESTION, Source, make
from mewl_gen.tasks import catalog
from tests.conftest import EPISODES_PER_TASK, FEW, episodes

# Items per task, as other tests sample them in the same session (shared, not sampled again): MEWL's
# EPISODES_PER_TASK, Bongard's 16 problems (tests/tasks/bongard/test_sample.py).
TASKS = {"shape": EPISODES_PER_TASK, "malevic-pos": 100, "shapeworld-existential": 100, "icy-episodes": 100,
         "bongard-basic": 16}
TOKEN = re.compile(r"^img/[0-9a-f]{16}\.png$")
# Words of the records and the key that would tell an answer, or name an item, if the experiment held them.
KEY_WORDS = ("answer", "correct", "label", "solution", "test_positive", "agreement", "lexicon", "split", "index",
             "task", "episode.json", "item.json", "info.json")


def items(task: str, n: int) -> tuple:
    """The first n of the task's sampled items: the first chunks of the session's sample of TASKS[task]
    (sampled once per session and shared), so a quick check samples no more than it reads."""
    return episodes(task, min(TASKS[task], max(n, FEW)))[:n]


def sources(task: str, n: int) -> list[Source]:
    return [Source("train", task, i.index, i) for i in items(task, n)]


def public(plan) -> list[dict]:
    """Every scored and catch trial the experiment holds (practice trials carry their feedback by design)."""
    return [t for b in plan.blocks for trials in (*b["tasks"], b["catch"]) for t in trials]


@pytest.mark.slow
def test_each_button_answers_as_the_item_reads_it_and_exactly_one_is_right():
    plan = make([s for t, n in TASKS.items() for s in sources(t, 20)], [], 2, np.random.default_rng(1))
    shown = {(t, i.index): i for t in TASKS for i in items(t, 20)}
    for trial in public(plan):
        key = plan.key[trial["id"]]
        if key["kind"] == "catch":
            assert key["correct"] in trial["options"]
            assert trial["question"] == CATCH_QUESTION.format(key["correct"])
            continue
        assert set(trial["options"]) == set(key["answers"]) and key["correct"] in key["answers"]
        item = shown[(key["task"], key["index"])]
        right = [label for label, answer in key["answers"].items() if item.read_answer(answer) == item.solution()]
        assert right == [key["correct"]]


@pytest.mark.slow
def test_the_experiment_names_no_item_and_no_answer():
    plan = make([s for t, n in TASKS.items() for s in sources(t, 10)], [], 2, np.random.default_rng(2))
    text = json.dumps([{k: v for k, v in b.items() if k != "practice"} for b in plan.blocks])
    for word in KEY_WORDS:
        assert f'"{word}"' not in text, word
    scenes = {name for t in TASKS for i in items(t, 10) for name in i.scenes()}
    for trial in public(plan):
        assert re.fullmatch(r"[0-9a-f]{16}", trial["id"])
        for group in trial["groups"]:
            for picture in group["pictures"]:
                assert TOKEN.match(picture["src"]) and picture["src"][4:-4] not in scenes
    tokens = [t for t in plan.images]
    assert len(set(tokens)) == len(tokens)


@pytest.mark.slow
def test_the_right_button_s_place_is_drawn():
    """A solver that picks the button at a fixed place in the experiment's list stays at chance."""
    for task, n in TASKS.items():
        n *= 4 if task == "bongard-basic" else 1
        plan = make(sources(task, TASKS[task]) * (n // TASKS[task]), [], 0, np.random.default_rng(3))
        places = Counter(t["options"].index(plan.key[t["id"]]["correct"]) for t in public(plan))
        width = len(public(plan)[0]["options"])
        expected = n / width
        spread = 4 * (n * (1 / width) * (1 - 1 / width)) ** 0.5
        assert set(places) <= set(range(width))
        assert all(abs(places[k] - expected) < spread for k in range(width)), (task, places)


@pytest.mark.slow
def test_bongard_s_test_image_to_place_is_drawn_by_the_study_not_the_item():
    plan = make(sources("bongard-basic", 16) * 4, [], 0, np.random.default_rng(4))  # each problem shown 4 times
    left = Counter(plan.key[t["id"]]["correct"] for t in public(plan))
    assert 16 < left["left"] < 48, left  # the shown test is the positive about half the time, drawn per trial


@pytest.mark.slow
def test_the_same_seed_makes_the_same_study_and_another_seed_another():
    items = sources("malevic-pos", 10)
    a, b, c = (make(items, [], 1, np.random.default_rng(s)) for s in (5, 5, 6))
    assert a.blocks == b.blocks and a.key == b.key
    assert set(a.images).isdisjoint(c.images)


def test_practice_trials_carry_their_feedback_and_are_never_scored():
    practice = [Source("train", "shape", i.index, i) for i in items("shape", 3)]
    tests = [Source("test", "shape", i.index, i) for i in items("shape", 7)[3:]]
    plan = make(tests, practice, 1, np.random.default_rng(7))
    (block,) = plan.blocks
    assert len(block["practice"]) == 3 and all(t["id"] not in plan.key for t in block["practice"])
    for trial, source in zip(block["practice"], practice):
        assert trial["feedback"] == source.item.answer
    assert {k["split"] for k in plan.key.values() if k["kind"] == "test"} == {"test"}


def test_every_task_of_a_benchmark_with_a_study_declares_a_trial():
    """A study is a benchmark's choice (the guide's toy has none); one that has it shows people every task."""
    studied = [b for b in catalog.BENCHMARKS if any(t.study is not None for t in b.tasks)]
    assert studied
    lacking = {t.name for b in studied for t in b.tasks if t.study is None}
    assert lacking == {"icy-naming"}  # an object alone teaches no language to name it in
