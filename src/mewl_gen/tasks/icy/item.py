"""ICY's items: icy-naming (one object, named by its message) and icy-episodes (MEWL's few-shot layout in an
ICY language), with what both hold besides their scenes (identity, language and split) and the split rule.

Splits: the language holds out one color-shape pair per color (`Language.holdout`,
drawn from the root seed). A split named "test" shows only objects of those
pairs (18 of the 144); every other split name (train, val, ...) shows only
the other 126, so a held-out pair is never seen outside test.
"""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import UNIVERSE, ObjectTuple, describe

from ..item import QUESTION, Item, Panel, PanelsAndQuery, check_panels_and_answer
from .language import Language, LanguageSpec

TEST_SPLIT = "test"
IMAGE = "image"
N_PANELS = 6


def shown_in(split: str, lang: Language) -> list[ObjectTuple]:
    """The objects a split may show: held-out pairs in test, the others elsewhere."""
    return [o for o in UNIVERSE if lang.held_out(o) == (split == TEST_SPLIT)]


class IcyItem(Item):
    language: LanguageSpec = Field(description="the dataset's language; its table is language_json(root_seed, language)")
    held_out: bool = Field(description="the (query) object's color-shape pair is one of the language's held-out pairs")

    INDEXED: ClassVar[bool] = True


class Naming(IcyItem):
    task: Literal["icy-naming"] = "icy-naming"
    message: str = Field(description="the message naming the image's one object")
    scene: SceneSpec

    @property
    def object(self) -> ObjectTuple:
        return self.scene.objects[0].properties

    def scenes(self) -> dict[str, SceneSpec]:
        return {IMAGE: self.scene}

    def overlay_captions(self) -> dict[str, str]:
        return {IMAGE: f"named {self.message!r}" + (" (a held-out pair)" if self.held_out else "")}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "Naming":
        return self.model_copy(update={"scene": scenes[IMAGE]})

    def label_image(self, name: str, truth: dict) -> dict:
        truth["objects"][0]["name"] = self.message  # MEWL's field: the object's word
        return truth

    def solution(self) -> str:
        return self.message

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index, "object": describe(self.object),
                "message": self.message, "held_out": self.held_out}


# A panel's file stem is its message, which must not be another file's (c_w = 1 allows "item"), nor
# one of the files of MEWL's layout that an episode folder of this shape reads like (info, episode).
TAKEN = ("info", QUESTION, "episode", Path(IcyItem.RECORD_FILE).stem)


class IcyEpisode(PanelsAndQuery, IcyItem):
    task: Literal["icy-episodes"] = "icy-episodes"
    context_panels: tuple[Panel, ...] = Field(min_length=N_PANELS, max_length=N_PANELS,
                                              description="one object each; name and utterance are its message")
    query: SceneSpec
    choices: tuple[str, ...] = Field(min_length=5, max_length=5)
    answer: str

    @model_validator(mode="after")
    def _files_and_answer(self) -> "IcyEpisode":
        check_panels_and_answer(self, TAKEN)
        return self

    def label_image(self, name: str, truth: dict) -> dict:
        truth["objects"][0]["name"] = None if name == QUESTION else name  # a panel's name is its message
        return truth

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index,
                "query": describe(self.query.objects[0].properties), "choices": list(self.choices),
                "answer": self.answer, "held_out": self.held_out}
