"""Placing objects (and the hand) on the ground, with bounded attempts.

A scene is drawn from (seed, attempt): attempt k uses its own generator,
so any attempt can be reproduced alone and the spec records which one won.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from . import hand as hand_geometry
from .camera import project_uv
from .draws import OutOfDraws
from .quality import render_settings
from .spec import HAND_STAGE, STAGE, HandSpec, ObjectSpec, SceneSpec
from .stage import jittered_stage
from .universe import ObjectTuple
from .visibility import visible_enough

MIN_GAP = 0.25  # between footprints
POSITION_TRIES = 50  # per object, inside one attempt
MAX_ATTEMPTS = 200  # whole scenes per call
# The fingertip stops this far short of the target's footprint.
HAND_REACH = (0.15, 0.8)
_CORNERS = np.array([(dx, dy, dz) for dx in (-1, 1) for dy in (-1, 1) for dz in (-1, 1)], dtype=float)


class PlacementError(OutOfDraws):
    """No valid scene within the attempt budget."""


def _fits(obj: ObjectSpec, others: Sequence[ObjectSpec], hand: HandSpec | None = None) -> bool:
    for o in others:
        dist = math.dist(obj.position, o.position)
        if dist - obj.footprint_radius - o.footprint_radius < MIN_GAP:
            return False
    return hand is None or hand_geometry.clear_of(hand, obj, MIN_GAP)


def scatter(
    rng: np.random.Generator, props: Sequence[ObjectTuple], half_extents: Sequence[float | None] | None = None,
) -> tuple[ObjectSpec, ...] | None:
    """Objects dropped one by one on the stage; `half_extents` gives continuous sizes."""
    placed: list[ObjectSpec] = []
    for (shape, color, material, size), extent in zip(props, half_extents or [None] * len(props)):
        for _ in range(POSITION_TRIES):
            obj = ObjectSpec(
                shape=shape, color=color, material=material, size=size, half_extent=extent,
                position=(round(float(rng.uniform(-STAGE, STAGE)), 6), round(float(rng.uniform(-STAGE, STAGE)), 6)),
                rotation=round(float(rng.uniform(0.0, 2 * math.pi)), 6) % (2 * math.pi),
            )
            if _fits(obj, placed):
                placed.append(obj)
                break
        else:
            return None
    return tuple(placed)


def stand_at(rng: np.random.Generator, props: Sequence[ObjectTuple],
             positions: Sequence[tuple[float, float]]) -> tuple[ObjectSpec, ...] | None:
    """Objects at given ground points (an arrangement made by placement actions), each at a drawn yaw."""
    placed: list[ObjectSpec] = []
    for (shape, color, material, size), (x, y) in zip(props, positions):
        obj = ObjectSpec(shape=shape, color=color, material=material, size=size,
                         position=(round(float(x), 6), round(float(y), 6)),
                         rotation=round(float(rng.uniform(0.0, 2 * math.pi)), 6) % (2 * math.pi))
        if not _fits(obj, placed):
            return None
        placed.append(obj)
    return tuple(placed)


def aim_hand(rng: np.random.Generator, objects: tuple[ObjectSpec, ...], target: int) -> HandSpec | None:
    """A hand whose finger points at objects[target], clear of every object."""
    goal, feet = objects[target], hand_geometry.footprints(objects)
    for _ in range(POSITION_TRIES):
        yaw = float(rng.uniform(0.0, 2 * math.pi))
        gap = feet[target][1] + float(rng.uniform(*HAND_REACH))
        tip_x = hand_geometry.FINGERTIP_X
        px = goal.position[0] - math.cos(yaw) * (gap + tip_x)
        py = goal.position[1] - math.sin(yaw) * (gap + tip_x)
        # The finger sits off the palm's axis; shift so the finger's line meets the centre.
        off = hand_geometry.FINGER[0][1]
        px += math.sin(yaw) * off
        py -= math.cos(yaw) * off
        if max(abs(px), abs(py)) > HAND_STAGE:
            continue
        # Checked unvalidated; only the hand kept becomes a HandSpec (the same numbers).
        pose = hand_geometry.HandPose((round(px, 6), round(py, 6)), round(yaw, 6) % (2 * math.pi), target)
        if hand_geometry.clear_of_all(pose, feet, MIN_GAP) and hand_geometry.points_at(pose, objects):
            return HandSpec(position=pose.position, yaw=pose.yaw, target=target)
    return None


def in_frame(spec: SceneSpec) -> bool:
    """Every object's bounding box projects inside the image."""
    cam = spec.camera
    for o in spec.objects:
        r = o.footprint_radius
        # The corners x + dx * r, ... for dx, dy, dz in +-1 (dx slowest), as one array operation.
        corners = np.array(o.center) + _CORNERS * np.array([r, r, o.scale])
        u, v, _ = project_uv(cam, corners)
        if u.min() < 0 or v.min() < 0 or u.max() > cam.width or v.max() > cam.height:
            return False
    return True


def place_scene(
    seed: int,
    props: Sequence[ObjectTuple],
    *,
    pointed: int | None = None,
    accept: Callable[[SceneSpec], bool] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    half_extents: Sequence[float] | None = None,
    image_size: tuple[int, int] | None = None,
    positions: Sequence[tuple[float, float]] | None = None,
) -> SceneSpec:
    """The first attempt that satisfies the gaps, the frame, the visibility
    estimate and `accept`; PlacementError after `max_attempts`. With `positions`
    the objects stand there and only the view, the lights and the yaws are drawn."""
    for attempt in range(max_attempts):
        rng = np.random.default_rng([seed, attempt])
        camera, lights = jittered_stage(rng)
        if image_size is not None:  # the same view (the sensor fits the wider side), more pixels
            camera = camera.model_copy(update={"width": image_size[0], "height": image_size[1]})
        objects = scatter(rng, props, half_extents) if positions is None else stand_at(rng, props, positions)
        if objects is None:
            continue
        hand = None
        if pointed is not None:
            hand = aim_hand(rng, objects, pointed)
            if hand is None:
                continue
        spec = SceneSpec(
            objects=objects, hand=hand, camera=camera, lights=lights,
            render=render_settings("default", int(rng.integers(2**31))),
            seed=seed, attempt=attempt,
        )
        if (accept is None or accept(spec)) and in_frame(spec) and visible_enough(spec):
            return spec
    raise PlacementError(f"no valid placement of {len(props)} objects in {max_attempts} attempts (seed {seed})")
