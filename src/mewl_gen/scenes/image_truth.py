"""The per-image ground truth `<name>.json`, declared once (JSON Schema: `mewl schema --kind image`).

The fields of the format's origin keep its structure (objects[].name is the object's word or
null, rotation in degrees, integer pixel coordinates, relationships keyed by
name, the pointing hand as the last object); the richer fields of this
project sit beside them under names of their own. docs/mewl-compatibility.md
has the table.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from .relations import relationships
from .spec import LightSpec, RenderSettings, SceneSpec, Vec3
from .universe import Color, Material, Shape, Size


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def as_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)


class Mask(Record):
    """COCO run-length encoding (pycocotools), of the visible pixels."""

    size: tuple[int, int] = Field(description="[height, width]")
    counts: str


class _Entity(Record):
    name: str | None = Field(description="the object's word in its item (the panel name in the basic "
                                         "tasks, 'color shape' in relation), or null")
    size: Size
    material: Material
    color: Color
    coords_3d: Vec3 = Field(alias="3d_coords", description="centre: ground (x, y) and half-height z")
    rotation: float = Field(ge=0, lt=360, description="CLEVR: yaw in degrees")
    pixel_coords: tuple[int, int, float] = Field(description="CLEVR: rounded column, rounded row (from the "
                                                             "top-left), depth along the view axis")
    description: str = Field(description="'large red metal cube': what the paper's captioner calls it")
    rotation_radians: float = Field(description="the exact yaw the renderer applied")
    pixel_coords_float: Vec3 = Field(description="unrounded (u, v, depth)")
    index: int = Field(ge=1, description="label of this entity in the object-index pass")
    bbox: tuple[int, int, int, int] = Field(description="tight [x, y, w, h] of the visible pixels")
    visible_pixels: int = Field(ge=0)
    mask: Mask


class ImageObject(_Entity):
    shape: Shape


class HandObject(_Entity):
    """The pointing hand, listed last as the format lists its `arrow`."""

    shape: Literal["arrow"]
    fingertip: Vec3
    fingertip_pixel_coords: Vec3


class CameraPose(Record):
    location: Vec3
    rotation_euler_xyz: Vec3
    matrix_world: list[list[float]]
    intrinsics: list[list[float]]
    lens_mm: float
    sensor_width_mm: float
    width: int
    height: int


class ImageTruth(Record):
    image_filename: str
    objects: list[Annotated[Union[ImageObject, HandObject], Field(discriminator="shape")]]
    directions: dict[str, Vec3] = Field(description="CLEVR's unit ground directions of this camera")
    relationships: dict[str, dict[str, list[str]]] = Field(
        description="relationships[rel][name] lists the names of the objects more than 0.2 in direction rel "
                    "from the named one; unnamed objects are left out")
    clevr_relationships: dict[str, list[list[int]]] = Field(
        description="exact (threshold 0): clevr_relationships[rel][i] lists every j that is rel of object i; "
                    "the hand is not in it")
    points_to: int | None = Field(description="index of the pointed object (pragmatic), else null")
    caption: str | None = Field(description="the item's caption of the image (its benchmark's captioner); null for a "
                                            "scene rendered outside an episode")
    camera: CameraPose
    lights: list[LightSpec]
    render: RenderSettings
    device: str
    blender_version: str
    generator: str
    spec_hash: str
    seed: int
    attempt: int


def schema() -> dict:
    return ImageTruth.model_json_schema(by_alias=True)


def geometric_truth(spec: SceneSpec) -> dict:
    """The fields of `<name>.json` that follow from the scene spec alone, without a render: each
    object's shape, color, material, size and `3d_coords`, and `clevr_relationships` (what a
    file-only checker reads of an image, for items that were sampled but not rendered)."""
    return {"objects": [{"shape": o.shape, "color": o.color, "material": o.material, "size": o.size,
                         "3d_coords": list(o.center)} for o in spec.objects],
            "clevr_relationships": relationships(spec.camera, spec.objects)}
