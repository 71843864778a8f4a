"""Pydantic scene and episode specs: the schema every other part reads.

A SceneSpec fully determines its image: nothing is drawn at render time.
"""
from __future__ import annotations

import hashlib
import math
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from .universe import (
    SIZE_SCALE,
    Color,
    Material,
    ObjectTuple,
    Shape,
    Size,
)

GENERATOR_VERSION = "mewl-gen 0.1.0"

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
Seed = Annotated[int, Field(ge=0, lt=2**63)]


class Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def canonical_json(self) -> str:
        return self.model_dump_json()

    def spec_hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


class ObjectSpec(Spec):
    shape: Shape
    color: Color
    material: Material
    size: Size
    position: Vec2 = Field(description="ground-plane centre (x, y)")
    rotation: float = Field(ge=0.0, lt=2 * math.pi, description="yaw about +z, radians")

    @property
    def properties(self) -> ObjectTuple:
        return (self.shape, self.color, self.material, self.size)

    @property
    def scale(self) -> float:
        return SIZE_SCALE[self.size]

    @property
    def footprint_radius(self) -> float:
        """Radius of a ground circle that contains the object whatever its yaw."""
        return self.scale * (math.sqrt(2.0) if self.shape == "cube" else 1.0)

    @property
    def center(self) -> Vec3:
        return (self.position[0], self.position[1], self.scale)


class HandSpec(Spec):
    """The pointing hand lying on the ground; geometry in scenes.hand."""

    position: Vec2 = Field(description="ground point under the palm centre")
    yaw: float = Field(ge=0.0, lt=2 * math.pi, description="direction of the index finger, radians from +x")
    target: int = Field(ge=0, description="index of the pointed object")


class CameraSpec(Spec):
    location: Vec3
    rotation: Vec3 = Field(description="Euler XYZ, radians (Blender convention)")
    lens_mm: float = Field(gt=0)
    sensor_width_mm: float = Field(gt=0)
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class LightSpec(Spec):
    """An area light aimed at the world origin."""

    name: str
    location: Vec3
    energy: float = Field(ge=0, description="watts")
    size: float = Field(gt=0)


class RenderSettings(Spec):
    quality: str
    samples: int = Field(ge=1)
    adaptive_threshold: float = Field(ge=0, description="0 disables adaptive sampling")
    adaptive_min_samples: int = Field(ge=0)
    denoiser: Literal["none", "openimagedenoise"]
    max_bounces: int = Field(ge=0)
    seed: Seed = Field(description="Cycles sampling seed")


class SceneSpec(Spec):
    objects: tuple[ObjectSpec, ...]
    hand: HandSpec | None = None
    camera: CameraSpec
    lights: tuple[LightSpec, ...]
    render: RenderSettings
    seed: Seed = Field(description="seed the placement was drawn from")
    attempt: int = Field(ge=0, description="placement attempt that produced this scene")


# A word means an attribute value, a direction, a count or a whole object.
Concept = Union[int, str, tuple[str, str, str, str]]

TaskName = Literal[
    "shape", "color", "material", "object", "composite",
    "relation", "bootstrap", "number", "pragmatic",
]
TASKS: tuple[str, ...] = TaskName.__args__  # type: ignore[attr-defined]


class Panel(Spec):
    name: str = Field(pattern=r"^[a-z0-9#]+( [a-z0-9#]+)*$", description="file stem; unique in the episode")
    utterance: str
    scene: SceneSpec


class Episode(Spec):
    generator: str = GENERATOR_VERSION
    task: TaskName
    split: str
    index: int = Field(ge=0)
    root_seed: Seed
    retry: int = Field(0, ge=0, description="episode redrawn from a derived seed this many times")
    lexicon: dict[str, Concept]
    context_panels: tuple[Panel, ...] = Field(min_length=6, max_length=6)
    query: SceneSpec
    choices: tuple[str, ...] = Field(min_length=5, max_length=5)
    answer: str

    @property
    def answer_index(self) -> int:
        return self.choices.index(self.answer)


def schema() -> dict:
    """JSON Schema of the episode (which embeds every scene model)."""
    return Episode.model_json_schema()
