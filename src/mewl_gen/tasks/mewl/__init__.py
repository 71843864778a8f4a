"""MEWL's nine tasks (Jiang et al., ICML 2023): six context panels, a query, five choices.

`MEWL` is everything the shared code may ask of this benchmark: the tasks
(samplers in sample/, their validators in validate.py, the episode and its
release files in item.py, the independent solvers in solver/), the audit (audit.py), the
text inputs of the paper's unimodal baselines (text.py), its dataset-card
text, the release preset and the JSON Schemas of its files.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from mewl_gen.scenes.universe import describe

from ..benchmark import EPISODE_EXPORT, Benchmark, Card, Draw, Preset, Schema, Solver, Task
from ..gallery import Block, Gallery, episode_blocks, episode_line
from ..item import QUESTION
from ..stored import StoredItem
from ..study import EPISODE_WORDS, Study, episode_trial
from . import explain
from .audit import AUDIT
from .info import InfoJson
from .item import TASKS, Draft, Episode, schema
from .published import BIBTEX, PUBLISHED
from .sample import basic, bootstrap, composite, number, object as object_task, pragmatic, relation
from .solver import SOLVERS, deprived
from .text import episode_text
from .validate import VALIDATORS

def _page(item: Episode) -> tuple[Block, ...]:
    """The episode as MEWL shows it (six panels with their utterances, the query, five choices), then the
    lexicon it teaches: the key a person checks the answer against."""
    key = tuple((word, describe(concept) if isinstance(concept, tuple) else str(concept))
                for word, concept in item.lexicon.items())
    return (*episode_blocks(item), Block("Lexicon", facts=key))


GALLERY = Gallery(_page, episode_line, lambda item: QUESTION, roles=explain.roles, why=explain.why,
                  words=explain.words)
# A participant's trial as MEWL's human study showed it: the panels with their words, the query, five choices.
STUDY = Study(episode_trial, EPISODE_WORDS)


def _solver(name: str) -> Solver:
    solvers = SOLVERS[name]

    def solve(stored: StoredItem) -> str:
        return solvers.solve(stored.item().model_copy(update={"lexicon": {}}))

    return Solver(solve, solvers.chance, {deprived.TITLE[d]: g.floor for d, g in solvers.deprived.items()})


def _task(name: str, summary: str, sample: Callable[[np.random.Generator], Draft]) -> Task:
    def draw(rng: np.random.Generator, d: Draw) -> Episode:
        draft = sample(rng)
        return Episode(
            task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry,
            lexicon=draft.lexicon, context_panels=draft.context_panels, query=draft.query,
            choices=draft.choices, answer=draft.answer,
        )

    # MEWL's seeds predate the other benchmarks: a task's code is its place in MEWL's order.
    return Task(name=name, benchmark="mewl", summary=summary, sample=draw, validate=VALIDATORS[name], model=Episode,
                images=7, solver=_solver(name), seed_code=TASKS.index(name),  # six context panels and the query
                export=EPISODE_EXPORT, gallery=GALLERY, study=STUDY)


def _basic(attribute: str) -> Task:
    return _task(attribute, f"a word per {attribute} value, each named by one single-object panel",
                 partial(basic.sample, attribute=attribute))


def _paragraph(rendered: bool, record: str) -> str:
    what = ("six context panels (`<utterance>.png` with its ground truth `<utterance>.json`), the query "
            "(`question.png`, `question.json`), " if rendered else "no images (specs only), ")
    return ("Episodes of the tasks of MEWL (Jiang et al., ICML 2023) in MEWL's release layout: each folder "
            f"`<split>/<task>/<i>/` holds {what}`info.json` (MEWL's fields), `episode.json` (the full spec that "
            f"produced the folder) and `{record}` (size and sha256 of every other file, written last).")


LOADER = '''```python
import json, pathlib
from PIL import Image

# MEWL's episodes only: a folder may hold other benchmarks' items too, which have no info.json.
for episode in sorted(p for p in pathlib.Path("OUT").glob("{split}/*/*") if (p / "info.json").is_file()):
    info = json.loads((episode / "info.json").read_text())
    answer = info["question"]["choices"].index(info["question"]["answer"])
    if (episode / "question.png").is_file():  # rendered: a sampled dataset holds the specs only
        panels = [Image.open(episode / f"{{p['name']}}.png") for p in info["context_panels"]]
        query = Image.open(episode / "question.png")
```'''

# Every task of MEWL, in its order; a module that fails to import is an error, never a skipped task.
MEWL = Benchmark(
    "mewl", "MEWL: few-shot word learning from six context panels, a query and five choices", (
        _basic("shape"),
        _basic("color"),
        _basic("material"),
        _task("object", "words for whole objects (shape, color, material), learned across panels",
              object_task.sample),
        _task("composite", "two-word phrases: a color word and a shape word composed",
              composite.sample),
        _task("relation", "words for left, right, front and behind between two objects",
              relation.sample),
        _task("bootstrap", "new object words learned from sentences with already-known ones",
              bootstrap.sample),
        _task("number", "number words for how many objects a panel shows",
              number.sample),
        _task("pragmatic", "a word for the object the hand points at, told apart by what the panels share",
              pragmatic.sample),
    ),
    card=Card(_paragraph, title="MEWL-style few-shot word-learning episodes", loader=LOADER, bibtex=BIBTEX),
    published=PUBLISHED,
    noun="episode",
    audit=AUDIT,
    text=episode_text,
    presets=(Preset("mewl-release", "MEWL's 27,000/5,400/5,400 episodes (3,000/600/600 per task)", "mewl",
                    {"train": 3000, "val": 600, "test": 600}),),
    schemas=(Schema("episode", "episode.json: the full spec of an episode, with every scene", schema),
             Schema("info", "info.json: MEWL's record of an episode", lambda: InfoJson.model_json_schema(by_alias=True))),
)

__all__ = ["MEWL", "TASKS", "Episode"]
