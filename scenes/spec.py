"""Pydantic scene and episode specs: the schema every other part reads.

A SceneSpec fully determines its image: nothing is drawn at render time.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Annotated, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator
from pydantic_core import PydanticCustomError

from .universe import (
    SIZE_SCALE,
    Color,
    Material,
    ObjectTuple,
    Shape,
    Size,
    describe,
)

GENERATOR_VERSION = "mewl-gen 0.1.0"

# Limits of a spec that can be rendered. They live in the models, so the JSON
# Schema states them too; sampled specs lie well inside them.
STAGE = 3.0  # object centres lie in [-STAGE, STAGE]^2, CLEVR's square; placement draws from it
HAND_STAGE = STAGE + 0.5  # the palm may lie a little outside, pointing in
IMAGE_SIDE = (16, 8192)  # pixels per side: MEWL's 320x240 is inside, a 16k frame is not
MAX_SAMPLES = 8192  # 16x MEWL's 512 samples per pixel
MAX_BOUNCES = 1024  # Cycles' own ceiling
HALF_EXTENT = (0.1, 1.0)  # a continuous size: from under CLEVR's small (0.35) to over its large (0.7)
# A split is a folder name under OUT: no '/', no leading '.', so never '..' or an absolute path.
SPLIT_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
# Release files beside the panels' images; a panel with one of these names would overwrite them.
RESERVED_NAMES = ("info", "question", "episode")

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
        description="continuous size (MALeViC): the half-extent in scene units, overriding `size`'s; "
                    "absent in MEWL's specs, whose sizes are the two CLEVR levels")

    @model_serializer(mode="wrap")
    def _omit_default_extent(self, handler):
        data = handler(self)
        if isinstance(data, dict) and data.get("half_extent") is None:
            data.pop("half_extent", None)  # a MEWL spec's bytes stay what they were before the field existed
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
QualityName = Literal["draft", "default", "paper", "reference", "custom"]


class RenderSettings(Spec):
    quality: QualityName
    samples: int = Field(ge=1, le=MAX_SAMPLES)
    adaptive_threshold: float = Field(ge=0, le=1, description="0 disables adaptive sampling")
    adaptive_min_samples: int = Field(ge=0, le=MAX_SAMPLES)
    denoiser: Literal["none", "openimagedenoise"]
    max_bounces: int = Field(ge=0, le=MAX_BOUNCES)
    seed: Seed = Field(description="Cycles sampling seed")


class SceneSpec(Spec):
    objects: tuple[ObjectSpec, ...]
    hand: HandSpec | None = None
    camera: CameraSpec
    lights: tuple[LightSpec, ...]
    render: RenderSettings
    seed: Seed = Field(description="seed the placement was drawn from")
    attempt: int = Field(ge=0, description="placement attempt that produced this scene")

    @model_validator(mode="after")
    def _renderable(self) -> "SceneSpec":
        """Objects stand apart and the hand points at one of them, lying clear of all."""
        from . import hand as hand_geometry  # it needs these models first

        objs = self.objects
        for j, b in enumerate(objs):
            for i, a in enumerate(objs[:j]):
                if math.dist(a.position, b.position) < a.footprint_radius + b.footprint_radius:
                    raise field_error(f"objects.{j}", f"footprint overlaps objects.{i} ({describe(a.properties)})")
        if self.hand is not None:
            if self.hand.target >= len(objs):
                raise field_error("hand.target", f"{self.hand.target} is not the index of one of the {len(objs)} objects")
            for i, o in enumerate(objs):
                if not hand_geometry.clear_of(self.hand, o, 0.0):
                    raise field_error("hand.position", f"the hand overlaps objects.{i} ({describe(o.properties)})")
        return self


# -- items -------------------------------------------------------------------
# What every task's sampler produces: an item (no bpy).
#
# An item is a frozen model holding its named scene specs, its text and its
# labels: a MEWL episode (seven scenes), a MALeViC statement about one image,
# ... The pipeline (cluster/) knows items only through this interface: which
# scenes to render (name -> spec, each giving <name>.png and <name>.json),
# how to label a rendered image's ground truth, and which release files to
# write beside the images. It never assumes a count of images or a file name.
#
# Every item also carries its identity: task, split, index, root_seed, retry.


def json_text(obj) -> str:
    """A release file's JSON: indented, keys in the order written, newline-terminated."""
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


class Item(Spec):
    """Base of every item model; subclasses declare their fields and their files."""

    # The release file that holds the item itself (what `mewl validate` and `inspect` read back).
    RECORD_FILE: ClassVar[str] = "item.json"
    # Whether OUT/<split>/<task>.jsonl lists the items (MEWL's release has no such file).
    INDEXED: ClassVar[bool] = True

    # Who the item is, first in its JSON in MEWL's episode.json order; a
    # benchmark narrows `task` to its own names (the field keeps its place).
    generator: str = GENERATOR_VERSION
    task: str
    split: str = Field(pattern=SPLIT_PATTERN, description="folder under OUT")
    index: int = Field(ge=0)
    root_seed: Seed
    retry: int = Field(0, ge=0, description="item redrawn from a derived seed this many times")

    def scenes(self) -> dict[str, SceneSpec]:
        """The scenes to render, in order: name -> spec; files <name>.png and <name>.json."""
        raise NotImplementedError

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "Item":
        """The same item with its scenes replaced (same names), e.g. at another quality."""
        raise NotImplementedError

    def release_files(self) -> dict[str, str]:
        """File name -> text, written beside the images (the record of checksums comes after)."""
        return {self.RECORD_FILE: self.model_dump_json(indent=2) + "\n"}

    def label_image(self, name: str, truth: dict) -> dict:
        """The renderer's ground truth of scene `name`, with the item's words added."""
        return truth

    def index_entry(self) -> dict:
        """This item's line in OUT/<split>/<task>.jsonl (its path is added by the writer)."""
        raise NotImplementedError


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


def check_panels_and_answer(item, taken) -> None:
    """An episode's panels name files of their own (none of `taken`, no two
    alike) and its answer is one of its choices; ValueError otherwise."""
    names = [p.name for p in item.context_panels]
    for k, name in enumerate(names):
        if name in taken or name in names[:k]:
            what = "a release file's name" if name in taken else "another panel's name"
            raise field_error(f"context_panels.{k}.name", f"{name!r} is {what}")
    if item.answer not in item.choices:
        raise field_error("answer", f"{item.answer!r} is not one of the choices")


class Episode(Item):
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

    def scene(self, name: str) -> SceneSpec:
        """A context panel's scene by its name, or the query's as 'question'."""
        if name == "question":
            return self.query
        for p in self.context_panels:
            if p.name == name:
                return p.scene
        raise KeyError(name)

    # -- the item interface (scenes.item) --------------------------------------
    RECORD_FILE: ClassVar[str] = "episode.json"
    INDEXED: ClassVar[bool] = False  # MEWL's release layout, file for file

    def scenes(self) -> dict[str, SceneSpec]:
        return {**{p.name: p.scene for p in self.context_panels}, "question": self.query}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "Episode":
        panels = tuple(p.model_copy(update={"scene": scenes[p.name]}) for p in self.context_panels)
        return self.model_copy(update={"context_panels": panels, "query": scenes["question"]})

    def release_files(self) -> dict[str, str]:
        """episode.json (the full spec) and MEWL's info.json."""
        from .mewl_release import info_json

        return {"episode.json": self.model_dump_json(indent=2) + "\n", "info.json": json_text(info_json(self))}

    def label_image(self, name: str, truth: dict) -> dict:
        from .mewl_release import image_json

        return image_json(self, name, truth)


def schema() -> dict:
    """JSON Schema of the episode (which embeds every scene model)."""
    return Episode.model_json_schema()


class SpecError(ValueError):
    """A spec file that cannot be read or breaks a rule of the models, as one line naming the field."""


def read_spec(path: Path, items: dict[str, type[Item]] | None = None) -> Item | SceneSpec:
    """An item or a SceneSpec from a JSON file, or an item's folder. `items`
    maps task names to their item models (tasks.read_item passes every
    registered task's); without it only MEWL episodes are recognised."""
    path = Path(path)
    items = items or {}
    if path.is_dir():
        records = dict.fromkeys([Episode.RECORD_FILE, *(m.RECORD_FILE for m in items.values())])
        path = next((path / r for r in records if (path / r).is_file()), path / Episode.RECORD_FILE)
    try:
        text = path.read_text()
        data = json.loads(text)
    except FileNotFoundError:
        raise SpecError(f"cannot read {path}: no such file") from None
    except OSError as err:
        raise SpecError(f"cannot read {path}: {err.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SpecError(f"{path}: not a JSON file ({err})") from None
    task = data.get("task") if isinstance(data, dict) else None
    if isinstance(task, str) and task in items:  # first: other benchmarks' items have context panels too
        model = items[task]
    elif isinstance(data, dict) and "context_panels" in data:
        model = Episode
    else:
        model = SceneSpec
    try:
        # strict: "320" is no width and true no count; JSON's arrays still fill tuples and its integers floats
        return model.model_validate_json(text, strict=True)
    except ValidationError as err:
        raise SpecError(f"{path}: invalid {model.__name__}: {first_error(err)}") from None
