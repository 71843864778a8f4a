"""A ShapeWorld item: one image, one caption, and whether they agree (validate.py checks one)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import TUPLE_ORDER

from ..item import Item
from .distribution import Combination, Distribution
from .logic import Connective, Exists, Form, Not, Quantified, Relation, Statement, referents

TaskName = Literal["shapeworld-existential", "shapeworld-relational", "shapeworld-quantification", "shapeworld-logical"]
# The logical forms each task's captions take, and its objects per scene (the paper: one or more).
FORMS = {
    "shapeworld-existential": (Exists,),
    "shapeworld-relational": (Relation,),
    "shapeworld-quantification": (Quantified,),
    "shapeworld-logical": (Not, Connective),
}
OBJECTS = {
    "shapeworld-existential": (1, 6),
    "shapeworld-relational": (2, 5),
    "shapeworld-quantification": (3, 7),
    "shapeworld-logical": (2, 6),
}


class Caption(Form):
    caption: str
    logical_form: Statement


class ShapeWorldItem(Item):
    task: TaskName
    caption: str
    logical_form: Statement
    agreement: bool = Field(description="the evaluator's verdict on logical_form and the scene")
    near_miss: Caption = Field(description="the caption one element away, with the opposite agreement")
    distribution: Optional[Distribution] = Field(None, description="the held-out combinations of the dataset; "
                                                                   "null: none (iid)")
    held_out_used: tuple[Combination, ...] = Field((), description="held-out combinations in this item's "
                                                                    "caption or scene")
    scene: SceneSpec

    def scenes(self) -> dict[str, SceneSpec]:
        return {"image": self.scene}

    def overlay_captions(self) -> dict[str, str]:
        return {"image": f"{self.caption!r}: {'agrees' if self.agreement else 'disagrees'}"}

    def overlay_marked(self) -> dict[str, tuple[int, ...]]:
        """The caption's referents."""
        objects = [dict(zip(TUPLE_ORDER, o.properties)) for o in self.scene.objects]
        return {"image": tuple(referents(self.logical_form, objects))}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "ShapeWorldItem":
        return self.model_copy(update={"scene": scenes["image"]})

    def solution(self) -> bool:
        return self.agreement

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index, "caption": self.caption,
                "agreement": self.agreement, "held_out_used": [c.label() for c in self.held_out_used]}
