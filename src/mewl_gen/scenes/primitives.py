"""A scene's entities as exact primitives for the visibility estimate (scenes.visibility): spheres,
boxes and upright cylinders (no bevels), the hand as its two boxes; where a ray meets them, what
box on the screen holds them and the area of their outline.

A primitive is a tuple: ("sphere", centre, radius), ("box", centre, half extents, yaw) or
("cylinder", centre, radius, half height). The numbers are part of the pinned output (samplers
accept or redraw scenes on them): every array here is computed by the same operations on arrays of
the same shape as when the estimate was pinned (a matrix product's rounding may depend on the rows
around a row, so products run on whole arrays before rows are picked).
"""
from __future__ import annotations

import numpy as np

from . import hand as hand_geometry
from .spec import HandSpec, SceneSpec

_BOX_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
_RING = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
_RING_XY = np.stack([np.cos(_RING), np.sin(_RING), np.zeros_like(_RING)], axis=1)


def object_primitives(spec: SceneSpec) -> list[list[tuple]]:
    ents = []
    for o in spec.objects:
        c, s = np.array(o.center), o.scale
        if o.shape == "sphere":
            ents.append([("sphere", c, s)])
        elif o.shape == "cube":
            ents.append([("box", c, np.array([s, s, s]), o.rotation)])
        else:
            ents.append([("cylinder", c, s, s)])
    return ents


def hand_primitives(hand: HandSpec) -> list[tuple]:
    return [("box", c, h, yaw) for c, h, yaw in hand_geometry.boxes(hand)]


def bounds(prim) -> np.ndarray:
    """The 8 corners of an upright box around the primitive (whatever a box's yaw)."""
    kind, c = prim[0], prim[1]
    if kind == "box":
        half = prim[2]
        r = np.hypot(half[0], half[1])
        ext = np.array([r, r, half[2]])
    else:
        ext = np.array([prim[2], prim[2], prim[2] if kind == "sphere" else prim[3]])
    return c + _BOX_CORNERS * ext


def hits(prims, origin, d, rows=None) -> np.ndarray:
    """Ray distance to the nearest of prims along d (or d[rows]), inf where all miss. Boxes of one
    yaw (the hand's palm and finger) share their rotated rays and are tested together. Rays
    parallel to a face divide by zero: call under np.errstate(divide=..., invalid=...)."""
    found = [_round_hit(p, origin, d, rows) for p in prims if p[0] != "box"]
    for yaw in dict.fromkeys(p[3] for p in prims if p[0] == "box"):
        found.append(_boxes_hit([p for p in prims if p[0] == "box" and p[3] == yaw], origin, d, rows, yaw))
    t = found[0]
    for near in found[1:]:
        t = np.minimum(t, near)
    return t


def _boxes_hit(boxes, origin, d, rows, yaw) -> np.ndarray:
    cs, sn = np.cos(-yaw), np.sin(-yaw)
    rot = np.array([[cs, -sn, 0], [sn, cs, 0], [0, 0, 1]])
    ld = d @ rot.T
    # The slabs are worked axis first, (box, axis, ray): every element is the same division, but
    # numpy runs along the rays instead of stepping three numbers at a time (several times quicker).
    ld = np.ascontiguousarray((ld if rows is None else ld[rows]).T)
    half = np.array([b[2] for b in boxes])[:, :, None]
    lo = np.array([rot @ (origin - b[1]) for b in boxes])[:, :, None]
    t1, t2 = (-half - lo) / ld, (half - lo) / ld
    # Maxima and minima are exact whatever their order: the three axes (and the boxes) are compared
    # element by element, quicker than numpy's reductions over such short axes.
    near, far = np.minimum(t1, t2), np.maximum(t1, t2)
    tn = np.maximum(np.maximum(near[:, 0], near[:, 1]), near[:, 2])
    tf = np.minimum(np.minimum(far[:, 0], far[:, 1]), far[:, 2])
    t = np.where((tn <= tf) & (tn > 0), tn, np.inf)
    nearest = t[0]
    for other in t[1:]:
        nearest = np.minimum(nearest, other)
    return nearest


def _round_hit(prim, origin, d, rows) -> np.ndarray:
    kind, c = prim[0], prim[1]
    o = origin - c
    if kind == "sphere":
        b = d @ o
        if rows is not None:
            b = b[rows]
        disc = b * b - (o @ o - prim[2] ** 2)
        t = np.where(disc >= 0, -b - np.sqrt(disc), np.inf)
        t[~(t > 0)] = np.inf
        return t
    r, h = prim[2], prim[3]  # upright cylinder
    if rows is not None:
        d = d[rows]
    a = d[:, 0] ** 2 + d[:, 1] ** 2
    b = d[:, 0] * o[0] + d[:, 1] * o[1]
    disc = b * b - a * (o[0] ** 2 + o[1] ** 2 - r * r)
    side = np.where((disc >= 0) & (a > 1e-12), (-b - np.sqrt(disc)) / a, np.inf)
    z = o[2] + side * d[:, 2]
    side[np.abs(z) > h] = np.inf
    cap = (h - o[2]) / d[:, 2]
    px, py = o[0] + cap * d[:, 0], o[1] + cap * d[:, 1]
    cap[(px * px + py * py > r * r) | ~(cap > 0)] = np.inf
    t = np.minimum(side, cap)
    t[~(t > 0)] = np.inf
    return t


def silhouette_points(prim, eye: np.ndarray) -> np.ndarray:
    """World points whose projections' convex hull is the primitive's outline."""
    kind, c = prim[0], prim[1]
    if kind == "box":
        half, yaw = prim[2], prim[3]
        cs, sn = np.cos(yaw), np.sin(yaw)
        rot = np.array([[cs, -sn, 0], [sn, cs, 0], [0, 0, 1]])
        return c + (_BOX_CORNERS * half) @ rot.T
    if kind == "cylinder":
        r, h = prim[2], prim[3]
        return np.concatenate([c + _RING_XY * r + [0, 0, h], c + _RING_XY * r - [0, 0, h]])
    # A sphere's outline is the circle where the view cone touches it.
    r = prim[2]
    v = c - eye
    d = float(np.linalg.norm(v))
    v /= d
    a = _cross(v, (0.0, 0.0, 1.0))
    a /= np.linalg.norm(a)
    b = _cross(v, a)
    rim = r * np.sqrt(d * d - r * r) / d
    centre = c - v * (r * r / d)
    return centre + rim * (np.outer(np.cos(_RING), a) + np.outer(np.sin(_RING), b))


def _cross(a, b) -> np.ndarray:
    """np.cross of two 3-vectors, each component's two products subtracted as np.cross does, quicker."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def hull_area(u: np.ndarray, v: np.ndarray) -> float:
    """Area of the convex hull of the 2D points (u, v) (monotone chain + shoelace)."""
    pts = sorted(zip(u.tolist(), v.tolist()))

    def half(points):
        chain: list[tuple] = []
        k = 0  # len(chain)
        for p in points:
            px, py = p
            while k >= 2:
                (ax, ay), (bx, by) = chain[k - 2], chain[k - 1]
                if not (bx - ax) * (py - ay) - (by - ay) * (px - ax) <= 0:
                    break
                chain.pop()
                k -= 1
            chain.append(p)
            k += 1
        return chain

    hull = np.array(half(pts)[:-1] + half(pts[::-1])[:-1])
    x, y = hull[:, 0], hull[:, 1]
    return 0.5 * abs(float(x @ np.concatenate((y[1:], y[:1])) - y @ np.concatenate((x[1:], x[:1]))))
