"""icy-naming: one object per image, named by its message in the dataset's language.

Splits: the language holds out one color-shape pair per color (`Language.holdout`,
drawn from the root seed). A split named "test" shows only objects of those
pairs (18 of the 144); every other split name (train, val, ...) shows only
the other 126, so a held-out pair is never seen outside test.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import UNIVERSE, ObjectTuple, describe

from ..benchmark import Draw
from ..seeds import draw_seed
from ..validation import check_scene_geometry, require
from .item import IcyItem
from .language import Language, LanguageSpec, language

TEST_SPLIT = "test"
IMAGE = "image"


def shown_in(split: str, lang: Language) -> list[ObjectTuple]:
    """The objects a split may show: held-out pairs in test, the others elsewhere."""
    return [o for o in UNIVERSE if lang.held_out(o) == (split == TEST_SPLIT)]


class Naming(IcyItem):
    task: Literal["icy-naming"] = "icy-naming"
    message: str = Field(description="the message naming the image's one object")
    scene: SceneSpec

    @property
    def object(self) -> ObjectTuple:
        return self.scene.objects[0].properties

    def scenes(self) -> dict[str, SceneSpec]:
        return {IMAGE: self.scene}

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


def sample(rng: np.random.Generator, d: Draw) -> Naming:
    spec = d.config or LanguageSpec()
    lang = language(d.root_seed, spec)
    pool = shown_in(d.split, lang)
    obj = pool[int(rng.integers(len(pool)))]
    return Naming(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, language=spec,
                  message=lang.messages[obj], held_out=lang.held_out(obj), scene=place_scene(draw_seed(rng), [obj]))


def validate(item: Naming) -> None:
    """Every label recomputed from the language and the scene."""
    lang = language(item.root_seed, item.language)
    require(item.scene.hand is None and len(item.scene.objects) == 1, "an icy-naming image shows one object")
    check_scene_geometry(item.scene, IMAGE)
    require(item.message == lang.messages[item.object], f"{describe(item.object)} is not named {item.message!r}")
    require(item.held_out == lang.held_out(item.object), "held_out disagrees with the language's holdout")
    require(item.held_out == (item.split == TEST_SPLIT), f"a {'held-out' if item.held_out else 'seen'} pair in split {item.split!r}")
