"""info.json, MEWL's record of an episode, declared once (JSON Schema: `mewl schema --kind info`).

Its `objects` is keyed as MEWL's generator keys it per task, and the
per-image `name` of an object is the same key; docs/mewl-compatibility.md
has the table. tasks.mewl.item fills it in.
"""
from __future__ import annotations

from typing import Union

from pydantic import BaseModel, ConfigDict, Field

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
