"""Geometry of the pointing hand, shared by placement and the renderer.

In the hand's frame the palm centre is the origin on the ground, the index
finger points along +x, the thumb side is +y and the back of the hand is up.
The renderer builds its mesh inside these boxes.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Union

import numpy as np

from .parts import HandSpec, ObjectSpec

# (centre in hand frame, half extents) of the two parts, scene units; they
# bound assets.hand's mesh (split at x = 0.35), and tests check that they do.
PALM = ((-0.06, -0.0075, 0.155), (0.41, 0.3125, 0.155))
FINGER = ((0.6725, 0.08, 0.13), (0.3225, 0.08, 0.13))
FINGERTIP_X = FINGER[0][0] + FINGER[1][0]
WRIST_X = PALM[0][0] - PALM[1][0]
HALF_WIDTH = PALM[1][1]
# The mesh fills about this much of its boxes' outline: visible pixels of 24
# real draft renders divided by the box estimate (median 0.54, range 0.45-0.65).
MESH_FILL = 0.54
# The ray along the finger keeps at least this from every other object.
POINTING_CLEARANCE = 0.3


class HandPose(NamedTuple):
    """What a HandSpec holds, unvalidated: placement tries many hands and keeps few."""

    position: tuple[float, float]
    yaw: float
    target: int


Hand = Union[HandSpec, HandPose]


def _turn(hand: Hand) -> tuple[float, float]:
    """The hand's cosine and sine: its finger's direction on the ground."""
    return math.cos(hand.yaw), math.sin(hand.yaw)


def _to_world(hand: Hand, x: float, y: float, turn: tuple[float, float] | None = None) -> tuple[float, float]:
    c, s = turn or _turn(hand)
    return hand.position[0] + c * x - s * y, hand.position[1] + s * x + c * y


def to_world(hand: HandSpec, local_xy) -> np.ndarray:
    return np.array(_to_world(hand, *local_xy))


def fingertip(hand: HandSpec) -> np.ndarray:
    return to_world(hand, (FINGERTIP_X, FINGER[0][1]))


def boxes(hand: HandSpec) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """World (centre, half extents, yaw) of the palm and finger boxes."""
    out = []
    for centre, half in (PALM, FINGER):
        xy = to_world(hand, centre[:2])
        out.append((np.array([xy[0], xy[1], centre[2]]), np.array(half), hand.yaw))
    return out


def _point_segment_distance(p, a, b) -> float:
    # Plain float arithmetic (samplers call this a lot); it gives the same
    # bits as numpy's 2-vector dot and norm did.
    abx, aby = b[0] - a[0], b[1] - a[1]
    t = ((p[0] - a[0]) * abx + (p[1] - a[1]) * aby) / (abx * abx + aby * aby)
    t = min(max(t, 0.0), 1.0)
    dx, dy = p[0] - (a[0] + t * abx), p[1] - (a[1] + t * aby)
    return math.sqrt(dx * dx + dy * dy)


def clear_of(hand: Hand, obj: ObjectSpec, gap: float) -> bool:
    """The hand's footprint (a capsule wrist-to-fingertip) keeps `gap` from obj."""
    return clear_of_all(hand, footprints((obj,)), gap)


def footprints(objects) -> list[tuple[tuple[float, float], float]]:
    """(ground position, footprint radius) of each object: what clear_of_all reads."""
    return [(o.position, o.footprint_radius) for o in objects]


def clear_of_all(hand: Hand, feet: list[tuple[tuple[float, float], float]], gap: float) -> bool:
    """clear_of for every one of the objects `feet` describes (footprints), the hand's axis found once."""
    turn = _turn(hand)
    wrist, tip = _to_world(hand, WRIST_X + HALF_WIDTH, 0.0, turn), _to_world(hand, FINGERTIP_X, 0.0, turn)
    for position, radius in feet:
        if not _point_segment_distance(position, wrist, tip) - HALF_WIDTH - radius >= gap:
            return False
    return True


def points_at(hand: Hand, objects: tuple[ObjectSpec, ...], clearance: float = POINTING_CLEARANCE) -> bool:
    """The finger's ray reaches the target's footprint, passing every other
    object by more than `clearance` before it gets there."""
    axis = _turn(hand)
    tip = _to_world(hand, FINGERTIP_X, FINGER[0][1], axis)
    target = objects[hand.target]
    rel = (target.position[0] - tip[0], target.position[1] - tip[1])
    along = rel[0] * axis[0] + rel[1] * axis[1]
    across = abs(rel[0] * axis[1] - rel[1] * axis[0])
    if along <= 0 or across > 0.5 * target.footprint_radius:
        return False
    reach = along - math.sqrt(max(target.footprint_radius**2 - across**2, 0.0))
    hit = (tip[0] + axis[0] * reach, tip[1] + axis[1] * reach)
    for i, obj in enumerate(objects):
        if i == hand.target:
            continue
        if _point_segment_distance(obj.position, tip, hit) <= obj.footprint_radius + clearance:
            return False
    return True
