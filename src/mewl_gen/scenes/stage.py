"""The CLEVR stage (camera and three area lights) and its per-scene jitter.

Jitter is drawn here, by the sampler, and stored in the spec; the renderer
applies nothing of its own. Defaults follow CLEVR's base scene.
"""
from __future__ import annotations

import math

import numpy as np

from .spec import CameraSpec, LightSpec

WIDTH, HEIGHT = 320, 240
CAMERA_LOCATION = (7.3589, -6.9258, 4.9583)
CAMERA_ROTATION = (math.radians(63.559), math.radians(0.620), math.radians(46.692))
LENS_MM, SENSOR_MM = 35.0, 32.0
CAMERA_JITTER = 0.5
LIGHT_JITTER = 1.0

# name, location, watts, size (large, soft lights over a bright world: CLEVR's look)
LIGHTS = (
    ("key", (6.4467, -2.9052, 4.2584), 300.0, 2.0),
    ("fill", (-4.6711, -4.0136, 3.0112), 60.0, 2.0),
    ("back", (-1.1685, 2.6460, 5.8157), 150.0, 2.0),
)


def base_camera() -> CameraSpec:
    return CameraSpec(
        location=CAMERA_LOCATION, rotation=CAMERA_ROTATION,
        lens_mm=LENS_MM, sensor_width_mm=SENSOR_MM, width=WIDTH, height=HEIGHT,
    )


def _jitter(rng: np.random.Generator, loc, amount: float) -> tuple[float, float, float]:
    # One call for the three draws: the same numbers in the same order as three scalar draws, added
    # to the coordinates as Python floats, as they were.
    return tuple(round(v + u, 6) for v, u in zip(loc, rng.uniform(-amount, amount, 3).tolist()))


_BASE_CAMERA = base_camera()  # frozen: every jittered camera is a copy of it


def jittered_stage(rng: np.random.Generator) -> tuple[CameraSpec, tuple[LightSpec, ...]]:
    cam = _BASE_CAMERA.model_copy(update={"location": _jitter(rng, CAMERA_LOCATION, CAMERA_JITTER)})
    lights = tuple(
        LightSpec(name=name, location=_jitter(rng, loc, LIGHT_JITTER), energy=energy, size=size)
        for name, loc, energy, size in LIGHTS
    )
    return cam, lights
