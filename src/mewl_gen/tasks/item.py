"""What every task's sampler produces: an item (no bpy).

An item is a frozen model holding its named scene specs, its text and its
labels: a few-shot episode of seven scenes, a statement about one image, a
problem of fourteen... The farm and the store know items only through this
interface: which scenes to render (name -> spec, each giving <name>.png and
<name>.json), how to label a rendered image's ground truth, which release
files to write beside the images and what the item's line in its split's
index says. They never assume a count of images or a file name.

Every item also carries its identity: task, split, index, root_seed, retry.
"""
from __future__ import annotations

import json
from typing import Callable, ClassVar

from pydantic import Field

from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.spec import GENERATOR_VERSION, SPLIT_PATTERN, SceneSpec, Seed, Spec, field_error


def json_text(obj) -> str:
    """A release file's JSON: indented, keys in the order written, newline-terminated."""
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


class Item(Spec):
    """Base of every item model; subclasses declare their fields and their files."""

    # The release file that holds the item itself (what `mewl validate` and `inspect` read back).
    RECORD_FILE: ClassVar[str] = "item.json"
    # The names of its other release files (release_files() writes them too).
    OTHER_FILES: ClassVar[tuple[str, ...]] = ()
    # The model of each rendered image's ground truth `<scene>.json` (what label_image returns, as written).
    TRUTH: ClassVar[type[ImageTruth]] = ImageTruth
    # Whether OUT/<split>/<task>.jsonl lists the items (a release whose original has no such file has none).
    INDEXED: ClassVar[bool] = True

    # Who the item is, first in its JSON; a benchmark narrows `task` to its
    # own names (the field keeps its place).
    generator: str = GENERATOR_VERSION
    task: str
    split: str = Field(pattern=SPLIT_PATTERN, description="folder under OUT")
    index: int = Field(ge=0)
    root_seed: Seed
    retry: int = Field(0, ge=0, description="item redrawn from a derived seed this many times")

    def scenes(self) -> dict[str, SceneSpec]:
        """The scenes to render, in order: name -> spec; files <name>.png and <name>.json."""
        raise NotImplementedError

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "Item":
        """The same item with its scenes replaced (same names), e.g. at another quality."""
        raise NotImplementedError

    def release_files(self) -> dict[str, str]:
        """File name -> text, written beside the images (the record of checksums comes after)."""
        return {self.RECORD_FILE: self.model_dump_json(indent=2) + "\n"}

    def label_image(self, name: str, truth: dict) -> dict:
        """The renderer's ground truth of scene `name`, with the item's words added."""
        return truth

    def index_entry(self) -> dict:
        """This item's line in OUT/<split>/<task>.jsonl (its path is added by the writer)."""
        raise NotImplementedError

    def solution(self) -> object:
        """What a solver of the item must answer (its task's Solver.solve gives the same from the files)."""
        raise NotImplementedError

    def read_answer(self, value: object) -> object:
        """A model's answer (`mewl eval`, parsed from JSON) as solution() gives it; ValueError (its reason,
        a few words) when the item cannot have it. By default the answer is of the solution's own type:
        true or false for a truth value, a string for a message."""
        solution = self.solution()
        if isinstance(solution, bool) != isinstance(value, bool) or not isinstance(value, type(solution)):
            raise ValueError(f"expected {'true or false' if isinstance(solution, bool) else type(solution).__name__}")
        return value

    def inspect_lines(self, scene: Callable[[str], list[str]]) -> list[str]:
        """What `mewl inspect` prints of the item, line by line; `scene(name)` is the lines of one of its scenes.
        A line holds the item's words as written: the command escapes each line for the terminal."""
        lines = [f"{self.task} item {self.index} (split {self.split}, root seed {self.root_seed}, retry {self.retry})"]
        lines += [f"{key}: {value}" for key, value in self.index_entry().items() if key not in ("task", "split", "index")]
        for name in self.scenes():
            lines += [f"scene {name!r} ({name}.png):", *("  " + line for line in scene(name))]
        return lines

    def overlay_captions(self) -> dict[str, str]:
        """scene name -> the caption `mewl inspect --overlay` writes over its image, in the order drawn: what
        the item says of it and its answer, where it has them."""
        return {name: name for name in self.scenes()}

    def overlay_marked(self) -> dict[str, tuple[int, ...]]:
        """scene name -> the objects (indices into its objects) the item is about, marked by the overlay."""
        return {}


QUESTION = "question"  # the query scene's name (question.png) in an item of panels and a query


class PanelsAndQuery:
    """The item interface of an episode-shaped item: context panels (each named by its file stem), a query
    scene named QUESTION, choices and an answer. The item declares those fields itself, in its own order."""

    def scenes(self) -> dict[str, SceneSpec]:
        return {**{p.name: p.scene for p in self.context_panels}, QUESTION: self.query}

    def with_scenes(self, scenes: dict[str, SceneSpec]):
        panels = tuple(p.model_copy(update={"scene": scenes[p.name]}) for p in self.context_panels)
        return self.model_copy(update={"context_panels": panels, "query": scenes[QUESTION]})

    def solution(self) -> str:
        return self.answer

    def overlay_captions(self) -> dict[str, str]:
        """The context panels with their utterances, then the query with the answer among the choices."""
        captions = {p.name: f"{p.name}: {p.utterance!r}" for p in self.context_panels}
        return {**captions, QUESTION: f"{QUESTION}; answer {self.answer!r} of {', '.join(self.choices)}"}

    def read_answer(self, value: object) -> str:
        """One of the five choices, as a word."""
        if value not in self.choices or not isinstance(value, str):
            raise ValueError(f"{value!r} is not one of the choices")
        return value


def one_image(item: Item) -> list[tuple[str, str, str]]:
    """An export's panels of an item of one scene: the member `image`, nothing said of it."""
    (scene,) = item.scenes()
    return [("image", scene, "")]


def episode_panels(item) -> list[tuple[str, str, str]]:
    """An export's panels of an episode: `ctx<k>` in context order with their utterances, then `query`."""
    return [*((f"ctx{k}", p.name, p.utterance) for k, p in enumerate(item.context_panels)), ("query", QUESTION, "")]


def episode_fields(item) -> dict:
    """An episode's typed fields: the choices, the answer and its index (a class of five)."""
    return {"choices": list(item.choices), "answer": item.answer, "label": item.choices.index(item.answer)}


class Panel(Spec):
    """A context scene with what is said of it; its name is its files' stem."""

    name: str = Field(pattern=r"^[a-z0-9#]+( [a-z0-9#]+)*$", description="file stem; unique in the episode")
    utterance: str
    scene: SceneSpec


def check_panels_and_answer(item, taken) -> None:
    """An episode's panels name files of their own (none of `taken`, no two
    alike) and its answer is one of its choices; ValueError otherwise."""
    names = [p.name for p in item.context_panels]
    for k, name in enumerate(names):
        if name in taken or name in names[:k]:
            what = "a release file's name" if name in taken else "another panel's name"
            raise field_error(f"context_panels.{k}.name", f"{name!r} is {what}")
    if item.answer not in item.choices:
        raise field_error("answer", f"{item.answer!r} is not one of the choices")
