"""Spatial relations with CLEVR's semantics on the ground plane.

`a <rel> b` means a lies in direction rel from b: dot(a - b, dir[rel]) > 0.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from .camera import directions
from .spec import CameraSpec, ObjectSpec, SceneSpec
from .universe import DIRECTIONS

# A stated or tested relation must not be a near-tie along either axis.
RELATION_MARGIN = 0.4
# CLEVR's threshold for its relationship table keyed by names (an image's `relationships`).
CLEVR_EPS = 0.2


def _ground_offset(a: ObjectSpec, b: ObjectSpec) -> np.ndarray:
    return np.array([a.position[0] - b.position[0], a.position[1] - b.position[1], 0.0])


def _along(diff: np.ndarray, direction) -> float:
    """A ground offset's signed length along a direction (a rel b where a - b's is > 0)."""
    return float(diff @ np.asarray(direction))


def offsets(cam: CameraSpec, a: ObjectSpec, b: ObjectSpec) -> dict[str, float]:
    """Signed distance of a from b along each ground direction."""
    dirs, diff = directions(cam), _ground_offset(a, b)
    return {d: _along(diff, dirs[d]) for d in DIRECTIONS}


def holds(cam: CameraSpec, a: ObjectSpec, b: ObjectSpec, rel: str) -> bool:
    """offsets(cam, a, b)[rel] > 0, computing only the direction asked."""
    return _along(_ground_offset(a, b), directions(cam)[rel]) > 0.0


def true_relations(cam: CameraSpec, a: ObjectSpec, b: ObjectSpec) -> set[str]:
    return {d for d, v in offsets(cam, a, b).items() if v > 0.0}


def well_separated(cam: CameraSpec, a: ObjectSpec, b: ObjectSpec, margin: float = RELATION_MARGIN) -> bool:
    """Separated by more than the margin along both ground axes."""
    off = offsets(cam, a, b)
    return abs(off["left"]) > margin and abs(off["behind"]) > margin


def relationships(cam: CameraSpec, objects) -> dict[str, list[list[int]]]:
    """CLEVR's table: relationships[rel][i] lists every j that is rel of i."""
    dirs = directions(cam)
    # holds(cam, b, a, rel) for every pair, each ground offset made once and read along every direction
    diffs = [[(j, _ground_offset(b, a)) for j, b in enumerate(objects) if j != i] for i, a in enumerate(objects)]
    out: dict[str, list[list[int]]] = {}
    for rel in DIRECTIONS:
        d = np.asarray(dirs[rel])
        out[rel] = [[j for j, diff in row if _along(diff, d) > 0.0] for row in diffs]
    return out


def offset_table(cam: CameraSpec, objects) -> dict[str, np.ndarray]:
    """offsets() for every ordered pair at once (one camera computation):
    table[rel][i, j] is the signed distance of objects[i] from objects[j]."""
    dirs = directions(cam)
    pos = np.array([o.position for o in objects], dtype=float).reshape(-1, 2)
    diff = pos[:, None, :] - pos[None, :, :]
    return {d: diff @ np.asarray(dirs[d][:2]) for d in DIRECTIONS}


def separated_in(table: dict[str, np.ndarray], i: int, j: int, margin: float = RELATION_MARGIN) -> bool:
    """well_separated() read off an offset_table."""
    return abs(table["left"][i, j]) > margin and abs(table["behind"][i, j]) > margin


def all_separated(table: dict[str, np.ndarray], margin: float = RELATION_MARGIN) -> bool:
    """Every pair of objects separated along both axes: a scene where every
    stated relation holds clearly, and CLEVR's 0.2 threshold orders every pair."""
    n = table["left"].shape[0]
    return all(separated_in(table, i, j, margin) for i, j in itertools.combinations(range(n), 2))


def related(scene: SceneSpec, eps: float = CLEVR_EPS) -> dict[str, np.ndarray]:
    """table[rel][i, j]: object j lies more than eps in direction rel from object i."""
    dirs = directions(scene.camera)
    pos = np.array([o.position for o in scene.objects], dtype=float).reshape(-1, 2)
    diff = pos[None, :, :] - pos[:, None, :]  # diff[i, j] = pos[j] - pos[i]
    return {d: diff @ np.asarray(dirs[d][:2]) > eps for d in DIRECTIONS}


def named_relationships(scene: SceneSpec, names: Sequence[str | None], eps: float = CLEVR_EPS) -> dict[str, dict[str, list[str]]]:
    """The per-image table keyed by names: {rel: {name: [names of the objects rel of it]}}, named
    objects only (an object without a word has no key), as the generator this format comes from."""
    table = related(scene, eps)
    out: dict[str, dict[str, list[str]]] = {}
    for rel in ("behind", "front", "left", "right"):  # the format's own key order
        out[rel] = {
            a: [b for j, b in enumerate(names) if b is not None and j != i and table[rel][i, j]]
            for i, a in enumerate(names) if a is not None
        }
    return out
