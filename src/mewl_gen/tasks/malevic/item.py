"""MALeViC's item: one image and one sentence about the relative size of one object.

Pezzelle and Fernández (EMNLP 2019) frame every task as sentence verification: an
image of 5 to 9 objects and a sentence such as 'The red cube is a big cube', true or
false. The item stores what a checker needs to recompute the label from the
sizes alone: the target, the reference set, every size, k and T.
"""
from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from mewl_gen.scenes.spec import SceneSpec, field_error

from ..item import Item

# Ten half-extents evenly spaced, in scene units. CLEVR's two sizes (small 0.35,
# large 0.70) are levels 2 and 9, so the scenes keep CLEVR's look; nothing is
# smaller than 0.25, which still covers a few hundred pixels at MEWL's 320x240.
SIZE_LEVELS: tuple[float, ...] = tuple(round(0.25 + 0.05 * i, 2) for i in range(10))
# The paper queries only areas 40..110 of 30..120: never an object that is
# biggest or smallest whatever the others are.
QUERY_LEVELS: tuple[int, ...] = tuple(range(1, 9))
OBJECT_COUNTS = (5, 6, 7, 8, 9)
K_SHARP, K_SPREAD = 0.29, 0.066  # Schmidt et al. (2009), as the paper: k ~ N(0.29, 0.066)

Adjective = Literal["big", "small", "biggest", "smallest"]
SWAP: dict[str, str] = {"big": "small", "small": "big", "biggest": "smallest", "smallest": "biggest"}
# The adjective an object of that form counts as big or small under (the compositional split pairs by it).
POSITIVE: dict[str, str] = {"big": "big", "small": "small", "biggest": "big", "smallest": "small"}


def sentence(color: str, shape: str, adjective: str, noun: str) -> str:
    """The paper's templates: 'The red cube is the biggest cube' (SUP1), 'The red cube is a big cube'."""
    article = "the" if adjective in ("biggest", "smallest") else "a"
    return f"The {color} {shape} is {article} {adjective} {noun}"


class MalevicItem(Item):
    task: str = Field(pattern=r"^malevic-[a-z0-9-]+$")
    scheme: str = Field(description="split scheme: iid, or malevic-unseen (paper 7.2)")
    scene: SceneSpec
    sentence: str
    label: bool = Field(description="whether the sentence is true of the image")
    target: int = Field(ge=0, description="index in scene.objects of the object the sentence is about")
    reference: tuple[int, ...] = Field(description="indices of the reference set the adjective is judged against")
    adjective: Adjective
    noun: str = Field(description="the shape word, or 'object' (POS)")
    sizes: tuple[float, ...] = Field(description="half-extent of every object, scene units")
    size_levels: tuple[int, ...] = Field(description="index of every size in SIZE_LEVELS (0..9)")
    k: float | None = Field(description="the scene's k, drawn from N(0.29, 0.066); null for SUP1")
    threshold: float | None = Field(description="T = Max - k (Max - Min) over the reference sizes; null for SUP1")
    label_sharp: bool = Field(description="the label under k = 0.29 (the paper's ceiling); SUP1: the label")
    projected_area: tuple[float, ...] = Field(description="pixels of every object's whole silhouette (analytic)")
    visible_fraction: tuple[float, ...] = Field(description="estimated visible pixels / projected area, per object")

    RECORD_FILE: ClassVar[str] = "item.json"
    INDEXED: ClassVar[bool] = True

    @model_validator(mode="after")
    def _indices(self) -> "MalevicItem":
        n = len(self.scene.objects)
        for name in ("sizes", "size_levels", "projected_area", "visible_fraction"):
            if len(getattr(self, name)) != n:
                raise field_error(name, f"has {len(getattr(self, name))} entries for {n} objects")
        if self.target >= n or any(i >= n for i in self.reference):
            raise field_error("target", f"the target or reference set names an object beyond the {n} in the scene")
        return self

    def scenes(self) -> dict[str, SceneSpec]:
        return {"image": self.scene}

    def overlay_captions(self) -> dict[str, str]:
        return {"image": f"{self.sentence!r}: {'true' if self.label else 'false'} (about #{self.target})"}

    def overlay_marked(self) -> dict[str, tuple[int, ...]]:
        return {"image": (self.target,)}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "MalevicItem":
        return self.model_copy(update={"scene": scenes["image"]})

    def solution(self) -> bool:
        return self.label

    def index_entry(self) -> dict:
        return {
            "task": self.task, "split": self.split, "index": self.index, "scheme": self.scheme,
            "sentence": self.sentence, "label": self.label, "target": self.target,
            "adjective": self.adjective, "noun": self.noun,
        }
