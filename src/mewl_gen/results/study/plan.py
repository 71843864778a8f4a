"""What a study shows and what only its key knows, drawn from the study's seed before anything is written.

Each item becomes a trial through its task's `Study` (tasks.study): its pictures get opaque names (random
tokens, the same for every participant), its buttons are listed in a drawn order under their words alone,
and the trial gets an opaque id. The experiment (`Public`) carries only that; the key (`Plan.key`) maps
each trial id to its item and each button to the answer it gives, for `mewl study score`. Practice trials
(from the train split, never scored) carry their answer for the feedback a participant sees. Catch trials
are a trial's pictures under a question whose answer is written in it ("click “false”")."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mewl_gen.tasks import catalog
from mewl_gen.tasks.item import Item
from mewl_gen.tasks.study import Trial

TOKEN_BYTES = 8  # 64 random bits per name: no two alike in any study this size
CATCH_QUESTION = "Attention check: whatever the pictures show, click “{}”."


@dataclass(frozen=True)
class Source:
    """An item and where it lies: (split, task, index)."""

    split: str
    task: str
    index: int
    item: Item


@dataclass
class Plan:
    blocks: list[dict] = field(default_factory=list)  # per benchmark: what the experiment runs (no answer)
    key: dict[str, dict] = field(default_factory=dict)  # trial id -> its item and each button's answer
    images: dict[str, tuple[str, str, int, str]] = field(default_factory=dict)  # token -> (split, task, index, scene)

    @property
    def sources(self) -> list[str]:
        """The image tokens in the order the experiment preloads them."""
        return list(self.images)


class Tokens:
    """Opaque names from the study's generator, never one twice."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.used = rng, set()

    def new(self) -> str:
        for _ in range(16):  # 64-bit tokens: a repeat is a freak; sixteen in a row is a broken generator
            token = self.rng.bytes(TOKEN_BYTES).hex()
            if token not in self.used:
                self.used.add(token)
                return token
        raise RuntimeError("the study's generator repeats its tokens")


def _public(trial: Trial, source: Source, tokens: Tokens, plan: Plan, rng: np.random.Generator,
            names: dict[tuple[str, str, int, str], str]) -> tuple[dict, list]:
    """A trial as the experiment holds it (its pictures by token, its buttons in a drawn order) and its options."""
    groups = []
    for group in trial.groups:
        pictures = []
        for picture in group.pictures:
            where = (source.split, source.task, source.index, picture.scene)
            if where not in names:
                names[where] = tokens.new()
                plan.images[names[where]] = where
            pictures.append({"src": f"img/{names[where]}.png", "caption": picture.caption})
        groups.append({"title": group.title, "columns": group.columns, "pictures": pictures})
    options = [trial.options[k] for k in rng.permutation(len(trial.options))]
    return {"id": tokens.new(), "groups": groups, "question": trial.question,
            "options": [o.label for o in options]}, options


def _correct(options, item: Item) -> str:
    """The label of the button that answers the item rightly (a layout must offer exactly one)."""
    right = [o.label for o in options if item.read_answer(o.answer) == item.solution()]
    if len(right) != 1:
        raise ValueError(f"{item.task} item {item.index}: {len(right)} of its study's buttons answer it rightly")
    return right[0]


def make(tests: list[Source], practice: list[Source], catches: int, rng: np.random.Generator) -> Plan:
    """The study of these items, one block per benchmark in the catalog's order: the benchmark's practice
    trials, its tasks' trials and `catches` catch trials made from its trials' pictures."""
    plan, tokens, names = Plan(), Tokens(rng), {}
    for bench in catalog.BENCHMARKS:
        mine = [s for s in tests if catalog.task(s.task).benchmark == bench.name]
        if not mine:
            continue
        block = {"benchmark": bench.name, "practice": [], "tasks": [], "catch": []}
        for source in (s for s in practice if catalog.task(s.task).benchmark == bench.name):
            public, options = _public(catalog.task(source.task).study.trial(source.item, rng), source, tokens, plan,
                                      rng, names)
            block["practice"].append(public | {"feedback": _correct(options, source.item)})
        shown = []
        for task in dict.fromkeys(s.task for s in mine):
            trials = []
            for source in (s for s in mine if s.task == task):
                public, options = _public(catalog.task(task).study.trial(source.item, rng), source, tokens, plan, rng,
                                          names)
                plan.key[public["id"]] = {"kind": "test", "split": source.split, "task": task, "index": source.index,
                                          "answers": {o.label: o.answer for o in options},
                                          "correct": _correct(options, source.item)}
                trials.append(public)
            shown += trials
            block["tasks"].append(trials)
        for _ in range(catches):
            base = shown[int(rng.integers(len(shown)))]
            label = base["options"][int(rng.integers(len(base["options"])))]
            trial = base | {"id": tokens.new(), "question": CATCH_QUESTION.format(label)}
            plan.key[trial["id"]] = {"kind": "catch", "benchmark": bench.name, "correct": label}
            block["catch"].append(trial)
        plan.blocks.append(block)
    return plan
