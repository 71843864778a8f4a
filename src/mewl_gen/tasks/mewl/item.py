"""MEWL's episode (Jiang et al., ICML 2023): the model a sampler fills, the rules
every episode obeys, and its release files (episode.json, info.json and the
words in each image's JSON), field for field as MEWL's release.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, Literal, Union

from pydantic import Field, model_validator

from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.relations import named_relationships
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import describe

from ..item import Item, Panel, PanelsAndQuery, check_panels_and_answer, json_text
from ..validation import check_scene_geometry, object_multiset, require
from .captions import caption, scene_tuples
from .info import InfoJson, InfoPanel, InfoQuestion, ObjectList

# A word means an attribute value, a direction, a count or a whole object.
Concept = Union[int, str, tuple[str, str, str, str]]

TaskName = Literal[
    "shape", "color", "material", "object", "composite",
    "relation", "bootstrap", "number", "pragmatic",
]
TASKS: tuple[str, ...] = TaskName.__args__  # type: ignore[attr-defined]
# Release files beside the panels' images; a panel with one of these names would overwrite them.
RESERVED_NAMES = ("info", "question", "episode")


class Episode(PanelsAndQuery, Item):
    task: TaskName
    lexicon: dict[str, Concept]
    context_panels: tuple[Panel, ...] = Field(min_length=6, max_length=6)
    query: SceneSpec
    choices: tuple[str, ...] = Field(min_length=5, max_length=5)
    answer: str

    @model_validator(mode="after")
    def _files_and_answer(self) -> "Episode":
        check_panels_and_answer(self, RESERVED_NAMES)
        return self

    @property
    def answer_index(self) -> int:
        return self.choices.index(self.answer)

    # -- the item interface (tasks.item) ---------------------------------------
    RECORD_FILE: ClassVar[str] = "episode.json"
    OTHER_FILES: ClassVar[tuple[str, ...]] = ("info.json",)
    INDEXED: ClassVar[bool] = False  # MEWL's release layout, file for file

    def release_files(self) -> dict[str, str]:
        """episode.json (the full spec) and MEWL's info.json."""
        return {"episode.json": self.model_dump_json(indent=2) + "\n", "info.json": json_text(info_json(self))}

    def label_image(self, name: str, truth: dict) -> dict:
        return image_json(self, name, truth)

    def inspect_lines(self, scene: Callable[[str], list[str]]) -> list[str]:
        lexicon = ", ".join(f"{w} = {c if not isinstance(c, tuple) else describe(c)}" for w, c in self.lexicon.items())
        lines = [f"{self.task} episode {self.index} (split {self.split}, root seed {self.root_seed}, retry {self.retry}), "
                 f"{self.generator}", f"lexicon: {lexicon}"]
        for k, p in enumerate(self.context_panels, 1):
            lines += [f"context panel {k} {p.name!r}: utterance {p.utterance!r}", *("  " + line for line in scene(p.name))]
        lines += ["query (question.png):", *("  " + line for line in scene("question"))]
        marked = [f"[{c}]" if c == self.answer else c for c in self.choices]
        return lines + [f"choices: {', '.join(marked)}  (answer {self.answer!r}, index {self.answer_index})"]


@dataclass(frozen=True)
class Draft:
    """A sampler's result; the task wraps it into an Episode."""

    lexicon: dict[str, Concept]
    context_panels: tuple[Panel, ...]
    query: SceneSpec
    choices: tuple[str, ...]
    answer: str


def check_common(ep: Episode) -> None:
    """What every task's validator checks first: six uniquely named panels, five distinct choices with
    the answer once, every scene's geometry, and a query that copies no context scene."""
    names = [p.name for p in ep.context_panels]
    require(len(names) == 6, f"an episode has 6 context panels, not {len(names)}")
    require(len(set(names)) == 6, f"panel names are not unique: {names}")
    require(len(set(ep.choices)) == 5, f"choices are not distinct: {ep.choices}")
    require(ep.choices.count(ep.answer) == 1, "the answer is not exactly one of the choices")
    for p in ep.context_panels:
        check_scene_geometry(p.scene, f"panel {p.name!r}")
    check_scene_geometry(ep.query, "query")
    query = object_multiset(ep.query)
    require(all(object_multiset(p.scene) != query for p in ep.context_panels), "the query copies a context scene")


def numbered(word: str, position: int) -> str:
    """MEWL's name `"<word> #<k>"` (its loaders drop the final '#...' token), k the panel's position in
    the context, or the number of panels for the query. k carries nothing about any image: every
    sampler that numbers names puts its panels in a uniformly random order drawn independently of
    what they show (a permutation of the panels), so a panel's position, and with it k, is independent
    of its scene, its word's meaning and the answer; the order itself is in info.json anyway. (The
    object's index in the universe, MEWL's own choice, named the object shown, so the names alone
    taught every word: tasks.mewl.solver.names.)"""
    return f"{word} #{position}"


def schema() -> dict:
    """JSON Schema of the episode (which embeds every scene model)."""
    return Episode.model_json_schema()


# -- release files -------------------------------------------------------------
def _scenes(ep: Episode) -> list[tuple[str, SceneSpec]]:
    return [(p.name, p.scene) for p in ep.context_panels] + [("question", ep.query)]


def _utterance(ep: Episode, name: str) -> str:
    return ep.answer if name == "question" else next(p.utterance for p in ep.context_panels if p.name == name)


def object_names(ep: Episode, name: str) -> list[str | None]:
    """The word label MEWL's generator gives each universe object of a scene (None: no word)."""
    scene = dict(_scenes(ep))[name]
    props = [o.properties for o in scene.objects]
    said = _utterance(ep, name)
    if ep.task in ("shape", "color", "material"):
        # MEWL keys an object "<word> #<k>"; a context panel's object is keyed by the panel's name, and
        # the query's by the next number (numbered(): k tells nothing about the object).
        return [name if name != "question" else numbered(said, len(ep.context_panels))]
    if ep.task in ("object", "bootstrap"):
        word_of = {tuple(c): w for w, c in ep.lexicon.items()}
        return [word_of.get(p) for p in props]
    if ep.task == "composite":
        return [said]
    if ep.task == "relation":
        return [f"{color} {shape}" for shape, color, _, _ in props]
    if ep.task == "pragmatic":
        return [said if i == scene.hand.target else None for i in range(len(props))]
    return [None] * len(props)  # number: MEWL names no object


def info_objects(ep: Episode) -> dict[str, ObjectList]:
    """MEWL's `objects` dict: name -> object over the context then the query; a
    later scene's object replaces an earlier one of the same name, as in MEWL.
    Number has no names: MEWL keys its objects '#0', '#1', ... in order shown."""
    out: dict[str, ObjectList] = {}
    for name, scene in _scenes(ep):
        for label, o in zip(object_names(ep, name), scene.objects):
            if ep.task == "number":
                label = f"#{len(out)}"
            if label is not None:
                out[label] = list(o.properties)
    return out


def _concept(value) -> Union[int, str, ObjectList]:
    return list(value) if isinstance(value, tuple) else value


def info_model(ep: Episode) -> InfoJson:
    def objects(scene: SceneSpec) -> list[ObjectList]:
        return [list(t) for t in scene_tuples(scene)]

    def arrow(scene: SceneSpec) -> int | None:
        return None if scene.hand is None else scene.hand.target

    seen: list[ObjectList] = []
    for _, scene in _scenes(ep):
        seen += [list(o.properties) for o in scene.objects if list(o.properties) not in seen]
    return InfoJson(
        task=ep.task, split=ep.split, index=ep.index, seed=ep.root_seed, retry=ep.retry, generator=ep.generator,
        objects=info_objects(ep), objects_list=seen,
        word_concept={w: _concept(c) for w, c in ep.lexicon.items()},
        context_panels=[InfoPanel(name=p.name, objects=objects(p.scene), arrow_idx=arrow(p.scene))
                        for p in ep.context_panels],
        question=InfoQuestion(objects=objects(ep.query), arrow_idx=arrow(ep.query),
                              choices=list(ep.choices), answer=ep.answer),
    )


def info_json(ep: Episode) -> dict:
    """info.json as written; `arrow_idx` only where MEWL writes it (pragmatic)."""
    return info_model(ep).model_dump(mode="json", by_alias=True, exclude_none=True)


def image_json(ep: Episode, name: str, truth: dict) -> dict:
    """The renderer's ground truth of scene `name`, labelled with the episode's
    words: objects' names, MEWL's name-keyed relationships and the caption."""
    gt = ImageTruth.model_validate(truth)
    scene = dict(_scenes(ep))[name]
    names = object_names(ep, name)
    labelled = [o.model_copy(update={"name": n}) for o, n in zip(gt.objects, names)] + list(gt.objects[len(names):])
    return gt.model_copy(update={
        "objects": labelled,
        "relationships": named_relationships(scene, names),
        "caption": caption(ep.task, scene),
    }).as_json()
