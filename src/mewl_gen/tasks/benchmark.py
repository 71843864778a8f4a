"""A benchmark, as the shared code may ask it things: the one typed extension point.

A benchmark package exports one `Benchmark`: its tasks (each a sampler, a
validator, an item model and the solver that reads only released files), its
dataset-wide configuration, its audit, its dataset-card text and its own
commands. The farm, the store and the command line know a benchmark only
through this object (tasks.catalog lists them); nothing is found by a name.

Task names: MEWL's nine keep their bare names (`pragmatic`); every other task
is `<benchmark>-<task>` (`malevic-setpos`).
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from mewl_gen.errors import UserError
from mewl_gen.scenes.draws import OutOfDraws

from .audit import Audit
from .gallery import PLAIN, Gallery
from .item import Item, episode_fields, episode_panels
from .seeds import item_rng, name_code
from .stored import StoredItem
from .study import Study

MAX_RETRIES = 8  # whole-item redraws, each from its own derived seed


@dataclass(frozen=True)
class Scheme:
    """How a task's splits differ. Under `iid` every split is drawn from one
    distribution; a compositional scheme holds combinations out of some splits
    and names the splits it knows (None: any split name)."""

    name: str
    summary: str
    splits: tuple[str, ...] | None = None


IID_SCHEME = Scheme("iid", "every split drawn from the same distribution")
IID = IID_SCHEME.name


@dataclass(frozen=True)
class Draw:
    """Which item is drawn: everything that decides it besides the generator."""

    task: str
    split: str
    index: int
    root_seed: int
    retry: int
    scheme: str = IID
    config: object | None = None  # the benchmark's dataset-wide configuration; None = its defaults
    code: int = 0  # the task's seed code (Task.code), for seeds drawn beside the item's generator


@dataclass(frozen=True)
class Solver:
    """What solves a task's items from their released files alone, never from the sampler's code."""

    solve: Callable[[StoredItem], object]  # the answer, comparable with Item.solution()
    chance: float  # what guessing without the image scores (a text-only solver's floor)
    floors: Mapping[str, float] = field(default_factory=dict)  # deprivation -> the floor it must stay at


@dataclass(frozen=True)
class Column:
    """A typed field of an exported item: "string", "int", "float", "bool", "strings" (a list), or
    "class" (the value is an index into `classes`: a Hugging Face ClassLabel). `what` says what it holds,
    for a reader of an export's card who has nothing else."""

    kind: str
    what: str
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Export:
    """How `mewl export` lays out one item. Its images go in panel order, each as a member name
    (`ctx0` ... `query`: no name that bears an answer), the scene it shows and what is said of it;
    its typed fields are what a model is given and what it must answer. Every file of the item is kept
    besides, as JSON text."""

    panels: Callable[[Item], list[tuple[str, str, str]]]  # (member, scene name, utterance), in panel order
    fields: Callable[[Item], dict]  # column -> value, as `columns` types it
    columns: Mapping[str, Column]
    answer: str | None = None  # the "class" column that holds the answer: `mewl eval` takes its names and indexes


# An episode exported (MEWL's, ICY's): its panels in order, its choices and the answer, also as a class of five.
EPISODE_EXPORT = Export(episode_panels, episode_fields, {
    "choices": Column("strings", "the five choices (words, phrases or messages), one of which names the query, "
                                 "the last image"),
    "answer": Column("string", "the right choice, as text"),
    "label": Column("class", "the right choice's position in `choices`", tuple("01234"))}, answer="label")


@dataclass(frozen=True)
class Task:
    name: str
    benchmark: str
    summary: str  # one line, for `mewl tasks`
    sample: Callable[[np.random.Generator, Draw], Item]
    validate: Callable[[Item], None]
    model: type[Item]
    images: int  # scenes per item, each one image
    solver: Solver
    schemes: tuple[Scheme, ...] = (IID_SCHEME,)
    seed_code: int | None = None  # None: derived from the name (tasks.seeds.name_code)
    export: Export | None = None  # `mewl export`'s layout of an item; None: the task is not exported
    gallery: Gallery = PLAIN  # `mewl gallery`'s page of an item (tasks.gallery); PLAIN: every image by its name
    study: Study | None = None  # `mewl study`'s trial of an item (tasks.study); None: not shown to people

    @property
    def code(self) -> int:
        return name_code(self.name) if self.seed_code is None else self.seed_code

    def scheme(self, name: str) -> Scheme | None:
        return next((s for s in self.schemes if s.name == name), None)


class UsageError(UserError, ValueError):
    """A user's mistake that a benchmark finds (an option's value, a file that is
    not what it should be): reported as one line, exit 2, before any work."""


@dataclass(frozen=True)
class Config:
    """A benchmark's dataset-wide configuration (ShapeWorld's held-out
    combinations, ICY's language), given on the command line and handed to
    every Draw of its tasks. Without the option, Draw.config is None: the
    benchmark's defaults."""

    option: str  # the command-line option, e.g. "--distribution"
    help: str
    load: Callable[[str], object]  # the option's value -> the config; ValueError (one line) if it is wrong
    manifest: Callable[[object, int], dict]  # (config, root seed) -> what OUT's manifest pins and shows
    default: str | None = None  # the value used when the option is not given; None: Draw.config stays None

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Card:
    """The benchmark's part of the dataset card OUT/README.md."""

    paragraph: Callable[[bool, str], str]  # (rendered?, the record file's name) -> what an item folder holds
    title: str | None = None  # the card's title where the dataset holds this benchmark alone
    loader: str = ""  # Python that reads a split ({split} is filled in), shown under "How to load"
    bibtex: str = ""  # the BibTeX entry of the benchmark's paper, shown under "Citation"


def release_card(text: str, bibtex: str = "") -> Card:
    """A card whose paragraph is `text` (markdown), then a sentence on the record of checksums."""
    return Card(lambda rendered, record: f"{text} `{record}` lists the size and sha256 of every other file and "
                                         "is written last.", bibtex=bibtex)


@dataclass(frozen=True)
class Command:
    """A subcommand of `mewl` that belongs to one benchmark (`mewl icy-metrics`); it raises
    UsageError for a user's mistake."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Preset:
    """A named run (`--preset mewl-release`): the tasks and the items per task of each split."""

    name: str
    help: str
    task: str
    splits: Mapping[str, int]


@dataclass(frozen=True)
class Schema:
    """A JSON Schema `mewl schema --kind KIND` prints: one of the benchmark's release files."""

    kind: str
    help: str
    build: Callable[[], dict]


@dataclass(frozen=True)
class Published:
    """A row of results that a benchmark's paper reports, measured on the original data, not on ours:
    `mewl eval` prints it beside a model's scores, marked as such."""

    source: str  # where it is printed, e.g. "MEWL (Jiang et al., ICML 2023), Table 2"
    who: str  # "Human", "CLIP", "Flamingo" ...
    accuracy: Mapping[str, float]  # our task name -> accuracy in [0, 1], for the tasks the row reports
    human: bool = False  # the row of people (the one `mewl eval --plot` draws)
    condition: Mapping[str, str] = field(default_factory=dict)  # task -> the paper's test set or condition
    n: Mapping[str, int] = field(default_factory=dict)  # task -> items (or people) the figure is over, where given

    @property
    def paper(self) -> str:
        """The source before its table: "MEWL (Jiang et al., ICML 2023)"."""
        return self.source.rpartition(", Table")[0] or self.source

    @property
    def table(self) -> str:
        """The source's table: "Table 2", "Table 1 (avg test)"."""
        head, sep, tail = self.source.rpartition(", Table")
        return f"Table{tail}" if sep else ""


@dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    tasks: tuple[Task, ...]
    card: Card
    noun: str = "item"  # what messages call one item ("episode")
    config: Config | None = None
    audit: Audit | None = None
    text: Callable[[StoredItem], dict] | None = None  # `mewl text`: the text inputs of one item, as one JSON line
    commands: tuple[Command, ...] = ()
    presets: tuple[Preset, ...] = ()
    schemas: tuple[Schema, ...] = ()
    published: tuple[Published, ...] = ()  # the paper's reference rows (`mewl eval`)


class ItemError(RuntimeError):
    """An item that could not be drawn within the retry budget."""


def draw_item(task: Task, root_seed: int, split: str, index: int, first_retry: int = 0, scheme: str = IID,
              config: object | None = None) -> Item:
    """Sample and validate one item; a sampler that runs out of draws is
    retried from the next derived seed, at most MAX_RETRIES times."""
    last = ""
    for retry in range(first_retry, first_retry + MAX_RETRIES):
        rng = item_rng(root_seed, split, task.code, index, retry)
        try:
            item = task.sample(rng, Draw(task.name, split, index, root_seed, retry, scheme, config, task.code))
        except OutOfDraws as err:
            last = str(err)
            continue
        task.validate(item)
        if len(item.scenes()) != task.images:
            raise ItemError(f"{task.name} item {index}: {len(item.scenes())} scenes, the task declares {task.images}")
        return item
    raise ItemError(f"{task.name} item {index}: ran out of draws in {MAX_RETRIES} redraws ({last})")
