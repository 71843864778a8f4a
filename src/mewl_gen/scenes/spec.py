"""The scene spec: the schema every other part reads.

A SceneSpec fully determines its image: nothing is drawn at render time. Its
parts (objects, hand, camera, lights, render settings) are declared in
scenes.parts and handed on from here.
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError, model_validator

from mewl_gen.errors import UserError, is_link, shown

from . import hand as hand_geometry
from .parts import (
    HALF_EXTENT,
    HAND_STAGE,
    IMAGE_SIDE,
    MAX_BOUNCES,
    MAX_SAMPLES,
    STAGE,
    CameraSpec,
    HandSpec,
    LightSpec,
    ObjectSpec,
    QualityName,
    RenderSettings,
    Seed,
    Spec,
    Vec3,
    field_error,
    first_error,
)
from .universe import describe

GENERATOR_VERSION = "mewl-gen 0.6.0"
# A split is a folder name under OUT: no '/', no leading '.', so never '..' or an absolute path.
SPLIT_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"

__all__ = ["GENERATOR_VERSION", "HALF_EXTENT", "HAND_STAGE", "IMAGE_SIDE", "MAX_BOUNCES", "MAX_SAMPLES", "SPLIT_PATTERN",
           "STAGE", "CameraSpec", "HandSpec", "LightSpec", "ObjectSpec", "QualityName", "RenderSettings", "SceneSpec",
           "Seed", "Spec", "SpecError", "Vec3", "field_error", "first_error", "read_json", "validate_json"]


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


class SpecError(UserError, ValueError):
    """A spec file that cannot be read or breaks a rule of the models, as one line naming the field."""


def read_json(path: Path) -> tuple[str, object]:
    """A spec file's text and its JSON; SpecError in one line when it cannot be read."""
    try:
        data = read_regular(Path(path), SPEC_LIMIT)
    except FileNotFoundError:
        raise SpecError(f"cannot read {shown(path)}: no such file") from None
    except OSError as err:
        raise SpecError(f"cannot read {shown(path)}: {err.strerror}") from None
    return parse_json(data, path)


def parse_json(data: bytes, path: Path) -> tuple[str, object]:
    """A spec file's text and its JSON from its bytes (read as the user named it, or through the store's
    door); SpecError in one line when they are no JSON."""
    try:
        text = data.decode()
        return text, json.loads(text)
    except RecursionError:
        raise SpecError(f"{shown(path)}: JSON nested too deep") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SpecError(f"{shown(path)}: not a JSON file ({shown(err, 120)})") from None


SPEC_LIMIT = 64 << 20  # bytes of a spec or item file: this tool's largest is a few hundred kB


def read_regular(path: Path, limit: int, what: str = "a spec file", links: bool = True) -> bytes:
    """A file as a user names it: only a regular file (a FIFO or a device is refused without waiting on it),
    of at most `limit` bytes, judged on the file opened (no look first that a swap could outrun); `what`
    it should be, for the message; `links` False: a symbolic link in its place is refused, not followed.
    SpecError in one line; OSError where it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if links else os.O_NOFOLLOW))
    except OSError as err:
        if not links and is_link(err):
            raise SpecError(f"{shown(path)} is not a regular file (a symbolic link)") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SpecError(f"{shown(path)}: not a regular file (a folder, FIFO, device or socket)")
        if st.st_size > limit:
            raise SpecError(f"{shown(path)}: {st.st_size} bytes, more than {what} may be ({limit})")
        return f.read(st.st_size)


Model = TypeVar("Model", bound=BaseModel)


def validate_json(model: type[Model], text: str, path: Path) -> Model:
    """The model from a file's text, strictly: "320" is no width and true no count (JSON's arrays still
    fill tuples and its integers floats); SpecError in one line naming the first broken field."""
    try:
        return model.model_validate_json(text, strict=True)
    except ValidationError as err:
        raise SpecError(f"{path}: invalid {model.__name__}: {first_error(err)}") from None
