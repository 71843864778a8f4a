"""MEWL's release files for an episode: info.json and the words in each image's JSON.

info.json is declared once as `InfoJson` (JSON Schema: `mewl schema --kind
info`). Its `objects` is keyed as MEWL's generator keys it per task, and the
per-image `name` of an object is the same key; docs/mewl-compatibility.md
has the table.
"""
from __future__ import annotations

from typing import Union

from pydantic import BaseModel, ConfigDict, Field

from .captions import caption, named_relationships, scene_tuples
from .image_truth import ImageTruth
from .spec import Episode, SceneSpec
from .universe import UNIVERSE_INDEX

ObjectList = list[str]  # [shape, color, material, size]; the hand is ["arrow", "yellow", "rubber", "small"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class InfoPanel(_Record):
    name: str = Field(description="the file stem of the panel's image; MEWL's loaders drop a final '#...' token "
                                  "to get the utterance")
    objects: list[ObjectList] = Field(description="the objects shown, the hand last in pragmatic")
    arrow_idx: int | None = Field(None, description="pragmatic: index of the pointed object")


class InfoQuestion(_Record):
    objects: list[ObjectList]
    arrow_idx: int | None = None
    choices: list[str] = Field(min_length=5, max_length=5)
    answer: str


class InfoJson(_Record):
    task: str
    split: str
    index: int
    seed: int
    retry: int
    generator: str
    objects: dict[str, ObjectList] = Field(description="MEWL: the named objects, keyed per task as MEWL's generator "
                                                       "keys them (see docs/mewl-compatibility.md)")
    objects_list: list[ObjectList] = Field(description="every distinct universe object shown in the episode, in order "
                                                       "of first appearance")
    word_concept: dict[str, Union[int, str, ObjectList]] = Field(alias="word-concept")
    context_panels: list[InfoPanel] = Field(min_length=6, max_length=6)
    question: InfoQuestion


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
        # MEWL keys an object "<word> #<its index in the universe>"; a context panel's name is exactly that.
        return [f"{said} #{UNIVERSE_INDEX[props[0]]}"]
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
