"""CLEVR-like unit shapes: bevelled cube, smooth sphere, bevelled cylinder.

Each spans [-1, 1]^3 around its centre; the renderer scales it by the
object's half-extent and lifts it so it rests on the ground. Normals are
exact (analytic), so the renderer can set them as custom normals and flat
faces stay flat right up to their bevels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

CUBE_BEVEL = 0.12  # radius of the rounded edges, fraction of the half-extent
CYLINDER_BEVEL = 0.08
BEVEL_STEPS = 6  # segments per quarter circle of a bevel
SPHERE_STEPS = 24  # grid lines per cube face of the sphere
CYLINDER_SEGMENTS = 64


@dataclass(frozen=True)
class Mesh:
    vertices: np.ndarray  # (V, 3) float
    faces: tuple[tuple[int, ...], ...]  # polygons, counter-clockwise seen from outside
    normals: np.ndarray  # (V, 3) unit vertex normals


def _orient(vertices: np.ndarray, faces: list[tuple[int, ...]], outward) -> tuple[tuple[int, ...], ...]:
    """Flip every polygon whose winding disagrees with the outward direction (`outward` maps an (F, 3) array of
    polygon centres to directions). The polygons of each size at once: every Blender worker builds the meshes."""
    out = [tuple(f) for f in faces]
    sizes: dict[int, list[int]] = {}
    for k, f in enumerate(faces):
        sizes.setdefault(len(f), []).append(k)
    for which in sizes.values():
        p = vertices[np.array([faces[k] for k in which])]  # (F, size, 3)
        n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]) + np.cross(p[:, 2] - p[:, 0], p[:, -1] - p[:, 0])
        facing = np.einsum("ij,ij->i", n, outward(p.mean(axis=1)))
        for k, keep in zip(which, facing >= 0):
            if not keep:
                out[k] = out[k][::-1]
    return tuple(out)


def _cube_grid(coords: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Surface of [-1, 1]^3 as a welded quad grid with the given line positions."""
    index: dict[tuple, int] = {}
    verts: list[tuple[float, float, float]] = []
    faces = []
    n = len(coords)

    def vid(p) -> int:
        key = tuple(round(float(x), 9) for x in p)
        if key not in index:
            index[key] = len(verts)
            verts.append(key)
        return index[key]

    for axis in range(3):
        a, b = [k for k in range(3) if k != axis]
        for sign in (-1.0, 1.0):
            ids = np.empty((n, n), dtype=int)
            for i in range(n):
                for j in range(n):
                    p = [0.0, 0.0, 0.0]
                    p[axis], p[a], p[b] = sign, coords[i], coords[j]
                    ids[i, j] = vid(p)
            for i in range(n - 1):
                for j in range(n - 1):
                    faces.append((ids[i, j], ids[i + 1, j], ids[i + 1, j + 1], ids[i, j + 1]))
    return np.array(verts), faces


def rounded_cube(bevel: float = CUBE_BEVEL, steps: int = BEVEL_STEPS) -> Mesh:
    inner = 1.0 - bevel
    # tan spacing gives equal angles along each bevel once rounded
    band = inner + bevel * np.tan(np.linspace(0.0, math.pi / 4, steps // 2 + 1))
    coords = np.concatenate([-band[::-1], band])
    grid, faces = _cube_grid(coords)
    core = np.clip(grid, -inner, inner)
    normals = grid - core
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    verts = core + bevel * normals
    return Mesh(verts, _orient(verts, faces, lambda c: c), normals)


def sphere(steps: int = SPHERE_STEPS) -> Mesh:
    coords = np.tan(np.linspace(-math.pi / 4, math.pi / 4, steps + 1))
    grid, faces = _cube_grid(coords)
    verts = grid / np.linalg.norm(grid, axis=1, keepdims=True)
    return Mesh(verts, _orient(verts, faces, lambda c: c), verts.copy())


def _cylinder_profile(bevel: float, steps: int) -> np.ndarray:
    """(r, z, normal_r, normal_z) from the bottom centre round to the top centre."""
    rows = [(0.0, -1.0, 0.0, -1.0)]
    for phi in np.linspace(0.0, math.pi / 2, steps + 1):
        rows.append((1 - bevel + bevel * math.sin(phi), -1 + bevel - bevel * math.cos(phi), math.sin(phi), -math.cos(phi)))
    for phi in np.linspace(math.pi / 2, math.pi, steps + 1):
        rows.append((1 - bevel + bevel * math.sin(phi), 1 - bevel - bevel * math.cos(phi), math.sin(phi), -math.cos(phi)))
    rows.append((0.0, 1.0, 0.0, 1.0))
    return np.array(rows)


def cylinder(bevel: float = CYLINDER_BEVEL, steps: int = BEVEL_STEPS, segments: int = CYLINDER_SEGMENTS) -> Mesh:
    prof = _cylinder_profile(bevel, steps)
    ring = prof[1:-1]
    ang = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    c, s = np.cos(ang)[None, :], np.sin(ang)[None, :]
    r, z = ring[:, :1], ring[:, 1:2]
    verts = np.stack([r * c, r * s, np.broadcast_to(z, r.shape * np.array([1, segments]))], -1).reshape(-1, 3)
    normals = np.stack([ring[:, 2:3] * c, ring[:, 2:3] * s, np.broadcast_to(ring[:, 3:4], (len(ring), segments))], -1).reshape(-1, 3)
    bottom, top = len(verts), len(verts) + 1
    verts = np.vstack([verts, [[0, 0, -1], [0, 0, 1]]])
    normals = np.vstack([normals, [[0, 0, -1], [0, 0, 1]]])
    faces = []
    for j in range(len(ring) - 1):
        for i in range(segments):
            k = (i + 1) % segments
            faces.append((j * segments + i, j * segments + k, (j + 1) * segments + k, (j + 1) * segments + i))
    last = (len(ring) - 1) * segments
    for i in range(segments):
        k = (i + 1) % segments
        faces.append((bottom, k, i))
        faces.append((top, last + i, last + k))
    return Mesh(verts, _orient(verts, faces, lambda p: p), normals)


SHAPE_MESHES = {"cube": rounded_cube, "sphere": sphere, "cylinder": cylinder}


@lru_cache(maxsize=None)
def shape_mesh(shape: str) -> Mesh:
    return SHAPE_MESHES[shape]()
