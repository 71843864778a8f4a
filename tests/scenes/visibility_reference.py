"""The visibility estimate as it was pinned (scenes/visibility.py before it was made cheaper), kept
unchanged as the reference the faster one must equal, float for float (test_visibility.py).

Analytic estimate of each object's visible pixels, by ray casting.
Objects are exact spheres, boxes and cylinders (no bevels); the hand is its
two boxes. Rays are cast on a grid of every `STRIDE`-th pixel, only inside
the screen boxes of entities, and counts are scaled back to full resolution.
It lets samplers reject scenes before rendering; the renderer still checks
the real render.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.camera import pixel_rays, project
from mewl_gen.scenes.spec import SceneSpec

STRIDE = 2
MIN_VISIBLE_PIXELS = 200
# Estimates must clear the minimum by this factor: bevels, shading and
# anti-aliasing make the real count differ.
ESTIMATE_MARGIN = 1.5

_BOX_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


def _object_primitives(spec: SceneSpec) -> list[list[tuple]]:
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


def _hand_primitives(spec: SceneSpec) -> list[tuple]:
    return [("box", c, h, yaw) for c, h, yaw in hand_geometry.boxes(spec.hand)]


def _bounds(prim) -> np.ndarray:
    kind, c = prim[0], prim[1]
    if kind == "box":
        half = prim[2]
        r = np.hypot(half[0], half[1])
        ext = np.array([r, r, half[2]])
    else:
        ext = np.array([prim[2], prim[2], prim[2] if kind == "sphere" else prim[3]])
    return c + _BOX_CORNERS * ext


def _hit(prim, origin, d, rows=None) -> np.ndarray:
    """Ray distance to the primitive, inf where it misses; with `rows`, for
    d[rows] only. Rays parallel to a face divide by zero: call under
    np.errstate(divide=..., invalid=...)."""
    kind, c = prim[0], prim[1]
    o = origin - c
    # Matrix products run on all of d before taking rows: BLAS rounds a row
    # differently depending on the rows around it, and the numbers must not
    # depend on which rays are asked for.
    pick = slice(None) if rows is None else rows
    t = np.full(len(d) if rows is None else len(rows), np.inf)
    if kind == "sphere":
        b = (d @ o)[pick]
        disc = b * b - (o @ o - prim[2] ** 2)
        ok = disc >= 0
        t[ok] = -b[ok] - np.sqrt(disc[ok])
    elif kind == "box":
        half, yaw = prim[2], prim[3]
        cs, sn = np.cos(-yaw), np.sin(-yaw)
        rot = np.array([[cs, -sn, 0], [sn, cs, 0], [0, 0, 1]])
        lo, ld = rot @ o, (d @ rot.T)[pick]
        t1, t2 = (-half - lo) / ld, (half - lo) / ld
        tn = np.minimum(t1, t2).max(axis=1)
        tf = np.maximum(t1, t2).min(axis=1)
        ok = tn <= tf
        t[ok] = tn[ok]
    else:  # upright cylinder
        r, h = prim[2], prim[3]
        d = d[pick]
        a = d[:, 0] ** 2 + d[:, 1] ** 2
        b = d[:, 0] * o[0] + d[:, 1] * o[1]
        disc = b * b - a * (o[0] ** 2 + o[1] ** 2 - r * r)
        ok = (disc >= 0) & (a > 1e-12)
        side = np.full(len(d), np.inf)
        side[ok] = (-b[ok] - np.sqrt(disc[ok])) / a[ok]
        z = o[2] + side * d[:, 2]
        side[np.abs(z) > h] = np.inf
        cap = (h - o[2]) / d[:, 2]
        px, py = o[0] + cap * d[:, 0], o[1] + cap * d[:, 1]
        cap[(px * px + py * py > r * r) | ~(cap > 0)] = np.inf
        t = np.minimum(side, cap)
    t[~(t > 0)] = np.inf
    return t


_RING = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)


def _silhouette_points(prim, eye: np.ndarray) -> np.ndarray:
    """World points whose projections' convex hull is the primitive's outline."""
    kind, c = prim[0], prim[1]
    if kind == "box":
        half, yaw = prim[2], prim[3]
        cs, sn = np.cos(yaw), np.sin(yaw)
        rot = np.array([[cs, -sn, 0], [sn, cs, 0], [0, 0, 1]])
        return c + (_BOX_CORNERS * half) @ rot.T
    ring = np.stack([np.cos(_RING), np.sin(_RING), np.zeros_like(_RING)], axis=1)
    if kind == "cylinder":
        r, h = prim[2], prim[3]
        return np.concatenate([c + ring * r + [0, 0, h], c + ring * r - [0, 0, h]])
    # A sphere's outline is the circle where the view cone touches it.
    r = prim[2]
    v = c - eye
    d = float(np.linalg.norm(v))
    v /= d
    a = np.cross(v, [0.0, 0.0, 1.0])
    a /= np.linalg.norm(a)
    b = np.cross(v, a)
    rim = r * np.sqrt(d * d - r * r) / d
    centre = c - v * (r * r / d)
    return centre + rim * (np.outer(np.cos(_RING), a) + np.outer(np.sin(_RING), b))


def _hull_area(pts: np.ndarray) -> float:
    """Area of the convex hull of 2D points (monotone chain + shoelace)."""
    pts = sorted(map(tuple, pts))

    def half(points):
        chain: list[tuple] = []
        for p in points:
            while len(chain) >= 2 and (
                (chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])
            ) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    hull = np.array(half(pts)[:-1] + half(pts[::-1])[:-1])
    x, y = hull[:, 0], hull[:, 1]
    return 0.5 * abs(float(x @ np.roll(y, -1) - y @ np.roll(x, -1)))


def _screen_box(cam, prims) -> tuple[tuple, bool, tuple]:
    """(clamped pixel box, whether it leaves the image, depth range) of an entity."""
    uv = project(cam, np.concatenate([_bounds(p) for p in prims]))
    u0, v0 = np.floor(uv[:, :2].min(axis=0))
    u1, v1 = np.ceil(uv[:, :2].max(axis=0))
    box = (max(u0, 0), max(v0, 0), min(u1, cam.width), min(v1, cam.height))
    return box, bool(u0 < 0 or v0 < 0 or u1 > cam.width or v1 > cam.height), (uv[:, 2].min(), uv[:, 2].max())


def _rays(cam, box) -> np.ndarray:
    u0, v0, u1, v1 = box
    us, vs = np.meshgrid(np.arange(u0, u1, STRIDE) + 0.5, np.arange(v0, v1, STRIDE) + 0.5)
    return pixel_rays(cam, us.ravel(), vs.ravel())


def _hits(prims, origin, d, rows=None) -> np.ndarray:
    return np.min([_hit(p, origin, d, rows) for p in prims], axis=0)


def _outline_area(cam, prims, origin) -> float:
    # The hand's two boxes only touch, so their outlines' areas add up.
    return sum(_hull_area(project(cam, _silhouette_points(p, origin))[:, :2]) for p in prims)


class _Layout:
    """What the estimate needs of the objects and camera alone. Samplers try
    many hands on one layout; this keeps the objects' boxes, outlines, rays
    and hits between them (the same numbers, computed once)."""

    def __init__(self, spec: SceneSpec):
        self.objects, self.camera = spec.objects, spec.camera
        self.origin = np.asarray(spec.camera.location)
        self.prims = _object_primitives(spec)
        self.screen = [_screen_box(spec.camera, prims) for prims in self.prims]
        self._areas: dict[int, float] = {}
        self._rays: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._hits: dict[tuple[int, int], np.ndarray] = {}

    def area(self, i: int) -> float:
        if i not in self._areas:
            self._areas[i] = _outline_area(self.camera, self.prims[i], self.origin)
        return self._areas[i]

    def rays(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Object i's rays and its own hit distances along them."""
        if i not in self._rays:
            d = _rays(self.camera, self.screen[i][0])
            self._rays[i] = d, _hits(self.prims[i], self.origin, d)
        return self._rays[i]

    def hits(self, j: int, i: int) -> np.ndarray:
        """Object j's hit distances along object i's rays."""
        if (j, i) not in self._hits:
            self._hits[j, i] = _hits(self.prims[j], self.origin, self.rays(i)[0])
        return self._hits[j, i]


_last_layout: _Layout | None = None


def _layout(spec: SceneSpec) -> _Layout:
    """The layout of spec, reused while the same (frozen) objects and camera
    come back, as they do for every hand tried on one scene. Threads may share
    it: whoever fills an entry fills it with the same numbers."""
    global _last_layout
    last = _last_layout
    if last is None or last.objects is not spec.objects or last.camera is not spec.camera:
        last = _last_layout = _Layout(spec)
    return last


def estimate_visible_pixels(spec: SceneSpec, stop_below: float | None = None) -> list[int]:
    """Estimated visible pixels per object (and last, the hand if any).
    With `stop_below`, stops once one entity falls under it (the rest read 0)."""
    # Once per estimate rather than per primitive: it costs as much as a hit test.
    with np.errstate(divide="ignore", invalid="ignore"):
        return _estimate(spec, stop_below)


def _estimate(spec: SceneSpec, stop_below: float | None) -> list[int]:
    cam = spec.camera
    layout = _layout(spec)
    n = len(spec.objects)
    ents = list(layout.prims)
    screens = list(layout.screen)
    if spec.hand is not None:
        ents.append(_hand_primitives(spec))
        screens.append(_screen_box(cam, ents[n]))
    boxes = [b for b, _, _ in screens]
    origin = layout.origin
    # The hand is modelled by boxes its mesh only partly fills.
    fills = [1.0] * n + [hand_geometry.MESH_FILL] * (spec.hand is not None)
    counts = [0] * len(ents)
    # The hand (last) is the likeliest to be too small: check it first.
    for i in [n] * (spec.hand is not None) + list(range(n)):
        (u0, v0, u1, v1), clipped, (near, far) = screens[i]
        occluders = [
            j for j, (a0, b0, a1, b1) in enumerate(boxes)
            if j != i and a1 > u0 and a0 < u1 and b1 > v0 and b0 < v1 and screens[j][2][0] < far
        ]
        if not occluders and not clipped:
            # Nothing can hide it: the outline's area is the pixel count.
            area = layout.area(i) if i < n else _outline_area(cam, ents[i], origin)
            counts[i] = int(area * fills[i])
            if stop_below is not None and counts[i] < stop_below:
                break
            continue
        if u1 <= u0 or v1 <= v0:
            if stop_below is not None:
                break
            continue
        if i < n:
            d, own = layout.rays(i)
        else:
            d = _rays(cam, boxes[i])
            own = _hits(ents[i], origin, d)
        visible = np.isfinite(own)
        for j in occluders:
            if i < n and j < n:
                visible &= own < layout.hits(j, i)
            else:  # a new hand: test only the rays nothing hides yet
                rows = np.flatnonzero(visible)
                visible[rows] = own[rows] < _hits(ents[j], origin, d, rows)
        counts[i] = int(visible.sum() * STRIDE * STRIDE * fills[i])
        if stop_below is not None and counts[i] < stop_below:
            break
    return counts


def visible_enough(spec: SceneSpec, minimum: int = MIN_VISIBLE_PIXELS, margin: float = ESTIMATE_MARGIN) -> bool:
    need = minimum * margin
    return all(c >= need for c in estimate_visible_pixels(spec, stop_below=need))


def projected_areas(spec: SceneSpec) -> list[float]:
    """Pixels of every object's whole silhouette, as if nothing hid it (its outline's area)."""
    layout = _layout(spec)
    return [layout.area(i) for i in range(len(spec.objects))]
