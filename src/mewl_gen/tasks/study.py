"""How `mewl study` shows an item to a participant: one trial of pictures with what is said of them, a
question and buttons. A benchmark declares its trial (`Study`, on tasks.benchmark.Task); the study's
builder (results/study/) lays it out in the browser, hides every name that could tell the answer, and
keeps each button's answer in the researcher's key, never in the experiment. Every text here is plain
text: the builder escapes it.

Also here: the trials the item shapes of tasks/item.py share (an episode of panels and a query; an image
and a sentence, true or false)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .item import QUESTION, Item


@dataclass(frozen=True)
class Picture:
    """One image of the trial: its scene's name (`<scene>.png`) and what is said of it."""

    scene: str
    caption: str = ""


@dataclass(frozen=True)
class Group:
    """A titled row of pictures."""

    title: str
    pictures: tuple[Picture, ...]
    columns: int = 0  # pictures per row; 0: as many as the window holds


@dataclass(frozen=True)
class Option:
    """A button: the words on it, and what choosing it answers, as `mewl eval` reads a prediction
    (Item.read_answer). The answer goes into the researcher's key only."""

    label: str
    answer: object


@dataclass(frozen=True)
class Trial:
    groups: tuple[Group, ...]  # top to bottom
    question: str
    options: tuple[Option, ...]  # shown in an order drawn per participant


@dataclass(frozen=True)
class Study:
    """A task's trial and the words that introduce its benchmark to a participant.

    `trial(item, rng)` lays out one item; `rng` is the study's (drawn from its seed, never the item's)
    for whatever the layout leaves open, such as which of two test images a person places."""

    trial: Callable[[Item, np.random.Generator], Trial]
    instructions: str  # paragraphs separated by blank lines: the template a researcher edits


def episode_trial(item, rng: np.random.Generator) -> Trial:
    """An episode of context panels and a query (tasks.item.PanelsAndQuery), as MEWL shows it: the six
    panels with their utterances, the query, and a button per choice."""
    return Trial((Group("What each picture is called", tuple(Picture(p.name, p.utterance) for p in item.context_panels),
                        columns=3),
                  Group("The new picture", (Picture(QUESTION),))),
                 "Which of these describes the new picture?", tuple(Option(c, c) for c in item.choices))


def sentence_trial(sentence: Callable[[Item], str]) -> Callable[[Item, np.random.Generator], Trial]:
    """An item of one image and a sentence: is the sentence true of the picture?"""
    def trial(item: Item, rng: np.random.Generator) -> Trial:
        (scene,) = item.scenes()
        return Trial((Group("The picture", (Picture(scene, sentence(item)),)),),
                     "Is the sentence under the picture true of it?", (Option("true", True), Option("false", False)))

    return trial


EPISODE_WORDS = (
    "Each page shows six pictures, each with the words that name it, in a language you do not know. "
    "Work out what the words mean from the six pictures.\n\n"
    "Then a new picture appears. Click the words that describe it. There is always one best answer; "
    "take the time you need.")

SENTENCE_WORDS = (
    "Each page shows a picture of a few objects and a sentence about it.\n\n"
    "Click “true” if the sentence is true of the picture, “false” if it is not.")

__all__ = ["EPISODE_WORDS", "Group", "Option", "Picture", "SENTENCE_WORDS", "Study", "Trial", "episode_trial",
           "sentence_trial"]
