"""The parts a scene spec is made of: objects, the hand, camera, lights and render settings.

`scenes.spec.SceneSpec` assembles them; it is the module the rest of the
project reads, and it hands these names on.
"""
from __future__ import annotations

import hashlib
import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer
from pydantic_core import PydanticCustomError

from .universe import SIZE_SCALE, Color, Material, ObjectTuple, Shape, Size

# Limits of a spec that can be rendered. They live in the models, so the JSON
# Schema states them too; sampled specs lie well inside them.
STAGE = 3.0  # object centres lie in [-STAGE, STAGE]^2, CLEVR's square; placement draws from it
HAND_STAGE = STAGE + 0.5  # the palm may lie a little outside, pointing in
IMAGE_SIDE = (16, 8192)  # pixels per side: CLEVR's 320x240 is inside, a 16k frame is not
MAX_SAMPLES = 8192  # 16x CLEVR's 512 samples per pixel
MAX_BOUNCES = 1024  # Cycles' own ceiling
HALF_EXTENT = (0.1, 1.0)  # a continuous size: from under CLEVR's small (0.35) to over its large (0.7)

Vec3 = tuple[float, float, float]
StageCoord = Annotated[float, Field(ge=-STAGE, le=STAGE)]
HandCoord = Annotated[float, Field(ge=-HAND_STAGE, le=HAND_STAGE)]
Seed = Annotated[int, Field(ge=0, lt=2**63)]


def field_error(field: str, message: str) -> PydanticCustomError:
    """A rule broken by a field of this model: first_error puts `field` after the model's own location."""
    return PydanticCustomError("spec_rule", message, {"field": field})


def first_error(err: ValidationError) -> str:
    """The first of the errors as 'objects.1.position.0: why', and how many more there are."""
    e = err.errors()[0]
    loc = [str(x) for x in e["loc"]]
    loc += [e["ctx"]["field"]] if "field" in e.get("ctx", {}) else []
    more = err.error_count() - 1
    return f"{'.'.join(loc) or 'top level'}: {e['msg']}" + (f" (and {more} more error(s))" if more else "")


class Spec(BaseModel):
    # NaN or infinity anywhere would reach Blender as a broken scene.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    def canonical_json(self) -> str:
        return self.model_dump_json()

    def spec_hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


class ObjectSpec(Spec):
    shape: Shape
    color: Color
    material: Material
    size: Size
    position: tuple[StageCoord, StageCoord] = Field(description="ground-plane centre (x, y), on the stage")
    rotation: float = Field(ge=0.0, lt=2 * math.pi, description="yaw about +z, radians")
    half_extent: float | None = Field(
        None, ge=HALF_EXTENT[0], le=HALF_EXTENT[1],
        description="continuous size: the half-extent in scene units, overriding `size`'s; absent where "
                    "sizes are the two CLEVR levels")

    @model_serializer(mode="wrap")
    def _omit_default_extent(self, handler):
        data = handler(self)
        if isinstance(data, dict) and data.get("half_extent") is None:
            data.pop("half_extent", None)  # a two-level spec's bytes stay what they were before the field existed
        return data

    @property
    def properties(self) -> ObjectTuple:
        return (self.shape, self.color, self.material, self.size)

    @property
    def scale(self) -> float:
        return SIZE_SCALE[self.size] if self.half_extent is None else self.half_extent

    @property
    def footprint_radius(self) -> float:
        """Radius of a ground circle that contains the object whatever its yaw."""
        return self.scale * (math.sqrt(2.0) if self.shape == "cube" else 1.0)

    @property
    def center(self) -> Vec3:
        return (self.position[0], self.position[1], self.scale)


class HandSpec(Spec):
    """The pointing hand lying on the ground; geometry in scenes.hand."""

    position: tuple[HandCoord, HandCoord] = Field(description="ground point under the palm centre")
    yaw: float = Field(ge=0.0, lt=2 * math.pi, description="direction of the index finger, radians from +x")
    target: int = Field(ge=0, description="index of the pointed object")


class CameraSpec(Spec):
    location: Vec3
    rotation: Vec3 = Field(description="Euler XYZ, radians (Blender convention)")
    lens_mm: float = Field(gt=0)
    sensor_width_mm: float = Field(gt=0)
    width: int = Field(ge=IMAGE_SIDE[0], le=IMAGE_SIDE[1])
    height: int = Field(ge=IMAGE_SIDE[0], le=IMAGE_SIDE[1])


class LightSpec(Spec):
    """An area light aimed at the world origin."""

    name: str
    location: Vec3
    energy: float = Field(ge=0, description="watts")
    size: float = Field(gt=0)


# The profile a scene's settings came from (scenes.quality), "reference" for
# the bench's 1024-sample renders, or "custom" for settings set by hand.
QualityName = Literal["preview", "draft", "default", "paper", "reference", "custom"]


class RenderSettings(Spec):
    quality: QualityName
    samples: int = Field(ge=1, le=MAX_SAMPLES)
    adaptive_threshold: float = Field(ge=0, le=1, description="0 disables adaptive sampling")
    adaptive_min_samples: int = Field(ge=0, le=MAX_SAMPLES)
    denoiser: Literal["none", "openimagedenoise"]
    max_bounces: int = Field(ge=0, le=MAX_BOUNCES)
    seed: Seed = Field(description="Cycles sampling seed")
