"""How `mewl gallery` shows an item to a person: a page of blocks, each of images with what is said of
them, a row of words (the choices, the answer marked) or lines of facts. A benchmark declares its
layout (`Gallery`, on tasks.benchmark.Task); the store writes it as HTML (results/gallery_html.py) and
knows no benchmark. Every text here is plain text: the writer escapes it.

The same object tells the inspector (results/inspector.py) what the item's objects are to it (`roles`)
and why its answer is the answer (`why`, read from the item's files as its file-only solver reads them).

Also here: the layouts the item shapes of tasks/item.py share (an episode of panels and a query), and
the plain one of a task that declares none (every image under its name, the item's index line)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .item import QUESTION, Item
from .stored import StoredItem

# What an object is to its item, as the inspector names it. The pointing hand is no object of the item's.
TARGET, POINTED, DISTRACTOR, CONTEXT = "target", "pointed", "distractor", "context"
ROLES = (TARGET, POINTED, DISTRACTOR, CONTEXT)


@dataclass(frozen=True)
class Shown:
    """One image of the item: its scene's name (`<scene>.png`), what is said of it, a second line."""

    scene: str
    caption: str = ""
    note: str = ""
    marked: bool = False  # drawn as the answer


@dataclass(frozen=True)
class Block:
    """A titled part of the page."""

    title: str
    images: tuple[Shown, ...] = ()
    columns: int = 0  # images per row; 0: as many as the window holds
    words: tuple[str, ...] = ()  # a row of words, e.g. the choices
    marked: tuple[str, ...] = ()  # the words drawn as the answer
    facts: tuple[tuple[str, str], ...] = ()  # (what, value) lines


@dataclass(frozen=True)
class Gallery:
    """An item's page and its line in its task's index."""

    page: Callable[[Item], tuple[Block, ...]]  # the blocks, top to bottom
    line: Callable[[Item], str] = lambda item: ""  # what the index says beside the item's number
    cover: Callable[[Item], str] = lambda item: list(item.scenes())[-1]  # the scene shown small in the index
    # scene -> object index -> one of ROLES; an object left out is CONTEXT
    roles: Callable[[Item], dict[str, dict[int, str]]] = lambda item: marked_roles(item)
    # Lines that derive the answer from the item's files, by the code its file-only solver uses; the
    # inspector adds the solver's answer and the validator's verdict beside them.
    why: Callable[[StoredItem], tuple[str, ...]] = lambda stored: ()
    # An object's name in its image's truth as the words that name it in the item (a benchmark whose names
    # are keys, not words alone, says how to read them).
    words: Callable[[str], str] = lambda name: name


def truth_json(stored: StoredItem, scene: str) -> dict | None:
    """A rendered image's ground truth, read through its model, as the JSON a file-only solver reads; None
    for a sampled item."""
    truth = stored.image_truth(scene)
    return None if truth is None else truth.as_json()


def marked_roles(item: Item) -> dict[str, dict[int, str]]:
    """The objects the item is about (Item.overlay_marked) are its targets, the one a hand points at is
    pointed (a target pointed at is pointed), every other object context."""
    marked = item.overlay_marked()
    roles: dict[str, dict[int, str]] = {}
    for name, scene in item.scenes().items():
        roles[name] = {i: TARGET for i in marked.get(name, ())}
        if scene.hand is not None:
            roles[name][scene.hand.target] = POINTED
    return roles


def _plain_page(item: Item) -> tuple[Block, ...]:
    facts = tuple((k, str(v)) for k, v in item.index_entry().items() if k not in ("task", "split", "index"))
    return (Block("Images", tuple(Shown(name, name) for name in item.scenes())), Block("Item", facts=facts))


PLAIN = Gallery(_plain_page)


def episode_blocks(item) -> tuple[Block, ...]:
    """An episode of context panels and a query (tasks.item.PanelsAndQuery): the panels with their
    utterances three to a row, the query, the choices with the answer marked."""
    return (Block("Context", tuple(Shown(p.name, p.utterance) for p in item.context_panels), columns=3),
            Block("Query", (Shown(QUESTION, "?"),)),
            Block("Choices", words=tuple(item.choices), marked=(item.answer,)))


def episode_line(item) -> str:
    return f"answer {item.answer} of {', '.join(item.choices)}"


EPISODE = Gallery(episode_blocks, episode_line, lambda item: QUESTION)


def one_image_page(caption: Callable[[Item], str], facts: Callable[[Item], tuple[tuple[str, str], ...]],
              line: Callable[[Item], str] = lambda item: "", **inspect) -> Gallery:
    """The layout of an item of one image: the image with its caption, then the item's facts; `inspect`:
    the inspector's `roles` and `why`, where the benchmark gives them."""
    def page(item: Item) -> tuple[Block, ...]:
        (scene,) = item.scenes()
        return Block("Image", (Shown(scene, caption(item)),)), Block("Item", facts=facts(item))

    return Gallery(page, line, **inspect)


def yes_no(value: bool) -> str:
    return "true" if value else "false"


__all__ = ["CONTEXT", "DISTRACTOR", "POINTED", "ROLES", "TARGET", "marked_roles", "truth_json", "Block", "EPISODE", "Gallery", "PLAIN", "Shown", "episode_blocks", "episode_line", "one_image_page",
           "yes_no"]
