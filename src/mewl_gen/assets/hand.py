"""The pointing hand: a right hand lying palm down, index finger along +x.

Built as a smooth signed-distance field of capsules and a rounded palm,
turned into a mesh by surface nets. Frame as in scenes.hand: palm centre at
the origin on the ground, thumb side +y, back of the hand up. The mesh stays
inside scenes.hand's PALM and FINGER boxes (tests check it).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .shapes import Mesh

VOXEL = 0.01
# The parts below are drawn for a hand 1.12 long; the mesh is this much larger.
SCALE = 1.3
BLEND = 0.035  # smooth-union radius: how softly the parts merge

# (start, end, start radius, end radius) in the hand frame
INDEX = [((0.12, 0.062, 0.160), (0.36, 0.062, 0.120), 0.062, 0.058),
         ((0.36, 0.062, 0.120), (0.55, 0.062, 0.085), 0.058, 0.053),
         ((0.55, 0.062, 0.085), (0.715, 0.062, 0.060), 0.053, 0.048)]
THUMB = [((-0.15, 0.08, 0.09), (0.0, 0.16, 0.07), 0.08, 0.06),
         ((0.0, 0.16, 0.07), (0.13, 0.185, 0.05), 0.055, 0.048)]

FINGERTIP_HEIGHT = INDEX[-1][1][2] * SCALE  # the tip's axis above the ground


def _curled(y: float, r: float, reach: float) -> list:
    """A finger bent under the palm: knuckle, first joint ahead and low, tip tucked back."""
    knuckle, joint, tip = (0.10, y, 0.175), (0.10 + reach, y, 0.11), (0.08 + reach / 3, y, 0.045)
    return [(knuckle, joint, r, r * 0.95), (joint, tip, r * 0.95, r * 0.85)]


CURLED = _curled(-0.045, 0.058, 0.105) + _curled(-0.13, 0.055, 0.095) + _curled(-0.195, 0.045, 0.07)
PALM = ((-0.07, -0.04, 0.105), (0.21, 0.165, 0.105), 0.08)  # rounded box: centre, half extents, radius
WRIST = ((-0.22, -0.04, 0.10), (-0.34, -0.04, 0.10), 0.10, 0.10)


def _round_cone(p: np.ndarray, a, b, ra: float, rb: float) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    ab = b - a
    t = np.clip(((p - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1) - (ra + t * (rb - ra))


def _rounded_box(p: np.ndarray, centre, half, r: float) -> np.ndarray:
    q = np.abs(p - np.asarray(centre)) - (np.asarray(half) - r)
    return np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(axis=-1), 0.0) - r


def _smooth_union(d1: np.ndarray, d2: np.ndarray, k: float) -> np.ndarray:
    h = np.clip(0.5 + 0.5 * (d2 - d1) / k, 0.0, 1.0)
    return d2 + (d1 - d2) * h - k * h * (1 - h)


def distance(p: np.ndarray) -> np.ndarray:
    """Signed distance (negative inside) of the hand at points p (..., 3)."""
    d = _rounded_box(p, *PALM)
    d = _smooth_union(d, _round_cone(p, *WRIST), BLEND)
    # joints of one finger meet without a blend, which would bulge
    d = _smooth_union(d, np.min([_round_cone(p, *seg) for seg in INDEX], axis=0), BLEND)
    d = _smooth_union(d, np.min([_round_cone(p, *seg) for seg in THUMB], axis=0), BLEND)
    for seg in CURLED:
        d = _smooth_union(d, _round_cone(p, *seg), 0.6 * BLEND)
    # flat underside where it lies on the ground; the wrist is cut square
    d = np.maximum(d, -p[..., 2])
    return np.maximum(d, -0.36 - p[..., 0])


def _gradient(p: np.ndarray, h: float = 1e-4) -> np.ndarray:
    g = np.stack([distance(p + e) - distance(p - e) for e in np.eye(3) * h], axis=-1)
    return g / np.maximum(np.linalg.norm(g, axis=-1, keepdims=True), 1e-12)


def _surface_nets(f: np.ndarray, origin: np.ndarray, h: float):
    """Vertices (one per cell the surface crosses) and quads (one per crossed edge)."""
    inside = f < 0
    shape = np.array(f.shape) - 1
    total = np.zeros((*shape, 3))
    count = np.zeros(shape)
    idx = np.indices(f.shape).transpose(1, 2, 3, 0).astype(float)
    for axis in range(3):
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(None, -1), slice(1, None)
        f0, f1 = f[tuple(lo)], f[tuple(hi)]
        cross = inside[tuple(lo)] != inside[tuple(hi)]
        t = np.where(cross, f0 / np.where(cross, f0 - f1, 1.0), 0.0)
        pos = idx[tuple(lo)].copy()
        pos[..., axis] += t
        pos *= cross[..., None]
        # every edge borders up to four cells: those sharing it along the other axes
        others = [k for k in range(3) if k != axis]
        for da in (0, 1):
            for db in (0, 1):
                sl = [slice(None)] * 3
                for k, dk in zip(others, (da, db)):
                    sl[k] = slice(dk, dk + shape[k])
                total += pos[tuple(sl)]
                count += cross[tuple(sl)]
    has = count > 0
    cell_id = np.full(shape, -1)
    cell_id[has] = np.arange(has.sum())
    verts = origin + h * total[has] / count[has][:, None]
    quads = []
    for axis in range(3):
        a, b = (axis + 1) % 3, (axis + 2) % 3  # cyclic, so every axis winds the same way
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(None, -1), slice(1, None)
        cross = inside[tuple(lo)] != inside[tuple(hi)]
        flip = inside[tuple(lo)]
        edges = np.argwhere(cross)  # every crossed edge, in order; those on the grid's border have no quad
        edges = edges[(edges[:, a] > 0) & (edges[:, b] > 0) & (edges[:, a] < shape[a]) & (edges[:, b] < shape[b])]
        cells = []
        for da, db in ((-1, -1), (0, -1), (0, 0), (-1, 0)):  # the four cells around each edge
            c = edges.copy()
            c[:, a] += da
            c[:, b] += db
            cells.append(cell_id[c[:, 0], c[:, 1], c[:, 2]])
        cells = np.stack(cells, axis=1)
        for row, keep in zip(cells, flip[edges[:, 0], edges[:, 1], edges[:, 2]]):
            quads.append(tuple(row if keep else row[::-1]))
    return verts, quads


@lru_cache(maxsize=1)
def hand_mesh(voxel: float = VOXEL) -> Mesh:
    lo, hi = np.array([-0.40, -0.28, -0.02]), np.array([0.80, 0.28, 0.30])
    axes = [np.arange(l, u + voxel, voxel) for l, u in zip(lo, hi)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    verts, quads = _surface_nets(distance(grid), lo, voxel)
    for _ in range(3):  # pull the cell averages onto the surface itself
        verts -= distance(verts)[:, None] * _gradient(verts)
    verts[:, 2] = np.maximum(verts[:, 2], 0.0)
    return Mesh(verts * SCALE, tuple(quads), _gradient(verts))
