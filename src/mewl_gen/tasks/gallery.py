"""How `mewl gallery` shows an item to a person: a page of blocks, each of images with what is said of
them, a row of words (the choices, the answer marked) or lines of facts. A benchmark declares its
layout (`Gallery`, on tasks.benchmark.Task); the store writes it as HTML (results/gallery_html.py) and
knows no benchmark. Every text here is plain text: the writer escapes it.

Also here: the layouts the item shapes of tasks/item.py share (an episode of panels and a query), and
the plain one of a task that declares none (every image under its name, the item's index line)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .item import QUESTION, Item


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
              line: Callable[[Item], str] = lambda item: "") -> Gallery:
    """The layout of an item of one image: the image with its caption, then the item's facts."""
    def page(item: Item) -> tuple[Block, ...]:
        (scene,) = item.scenes()
        return Block("Image", (Shown(scene, caption(item)),)), Block("Item", facts=facts(item))

    return Gallery(page, line)


def yes_no(value: bool) -> str:
    return "true" if value else "false"


__all__ = ["Block", "EPISODE", "Gallery", "PLAIN", "Shown", "episode_blocks", "episode_line", "one_image_page",
           "yes_no"]
