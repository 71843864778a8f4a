"""Analytic estimate of each object's visible pixels, by ray casting.

Objects are exact spheres, boxes and cylinders (no bevels); the hand is its
two boxes (scenes.primitives). Rays are cast on a grid of every `STRIDE`-th
pixel, only inside the screen boxes of entities, and counts are scaled back
to full resolution. It lets samplers reject scenes before rendering; the
renderer still checks the real render.

Samplers ask only whether a scene is visible enough (visible_enough), for
many hands on one layout: what the objects and camera alone decide is kept
between those calls (_Layout), and the verdict stops counting as soon as a
bound decides it. The counts themselves (estimate_visible_pixels) are exact.
"""
from __future__ import annotations

import numpy as np

from . import hand as hand_geometry
from .camera import focal_px, rotation_matrix
from .primitives import bounds, hand_primitives, hits, hull_area, object_primitives, silhouette_points
from .spec import HandSpec, SceneSpec

STRIDE = 2
MIN_VISIBLE_PIXELS = 200
# Estimates must clear the minimum by this factor: bevels, shading and
# anti-aliasing make the real count differ.
ESTIMATE_MARGIN = 1.5


class _View:
    """One camera's projection and pixel rays, with its rotation and focal length read once
    (the same arithmetic as camera.project and camera.pixel_rays)."""

    def __init__(self, cam):
        self.width, self.height = cam.width, cam.height
        self.location = np.asarray(cam.location)
        self.rotation = rotation_matrix(cam.rotation)
        self.focal = focal_px(cam)

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World points (N, 3) -> u right, v down (pixels) and depth."""
        local = (points - self.location) @ self.rotation
        depth = -local[:, 2]
        u = self.width / 2 + self.focal * local[:, 0] / depth
        v = self.height / 2 - self.focal * local[:, 1] / depth
        return u, v, depth

    def screen_box(self, prims) -> tuple[tuple, bool, tuple]:
        """(clamped pixel box, whether it leaves the image, depth range) of an entity."""
        uvd = np.array(self.project(np.concatenate([bounds(p) for p in prims])))
        # Minima and maxima are exact: u, v and depth reduced together, two calls instead of six.
        low, high = uvd.min(axis=1), uvd.max(axis=1)
        (u0, v0), (u1, v1) = np.floor(low[:2]), np.ceil(high[:2])
        box = (max(u0, 0), max(v0, 0), min(u1, self.width), min(v1, self.height))
        clipped = bool(u0 < 0 or v0 < 0 or u1 > self.width or v1 > self.height)
        return box, clipped, (low[2], high[2])

    def rays(self, box) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit world directions through the pixel grid of a box, row by row, and the grid's
        columns (u) and rows (v)."""
        u0, v0, u1, v1 = box
        us, vs = np.arange(u0, u1, STRIDE) + 0.5, np.arange(v0, v1, STRIDE) + 0.5
        d = np.empty((len(vs), len(us), 3))
        d[..., 0] = (us - self.width / 2) / self.focal
        d[..., 1] = (-(vs - self.height / 2) / self.focal)[:, None]
        d[..., 2] = -1.0
        d = d.reshape(-1, 3) @ self.rotation.T
        # The sum of three squares, added left to right as numpy's sum over the last axis adds them.
        x, y, z = d[:, 0], d[:, 1], d[:, 2]
        return d / np.sqrt(x * x + y * y + z * z)[:, None], us, vs

    def outline_area(self, prims) -> float:
        # The hand's two boxes only touch, so their outlines' areas add up.
        total = 0
        for p in prims:
            u, v, _ = self.project(silhouette_points(p, self.location))
            total += hull_area(u, v)
        return total


def _count(visible: np.ndarray, fill: float) -> int:
    return int(np.count_nonzero(visible) * STRIDE * STRIDE * fill)


def _inside(us: np.ndarray, vs: np.ndarray, box) -> np.ndarray:
    """Which rays of a grid pass through a screen box: no other ray can meet what the box holds."""
    u0, v0, u1, v1 = box
    return np.outer((vs >= v0) & (vs <= v1), (us >= u0) & (us <= u1)).ravel()


class _Layout:
    """What the estimate needs of the objects and camera alone. Samplers try
    many hands on one layout; this keeps the objects' boxes, outlines, rays
    and hits between them (the same numbers, computed once)."""

    def __init__(self, spec: SceneSpec):
        self.objects, self.camera = spec.objects, spec.camera
        self.view = _View(spec.camera)
        self.origin = self.view.location
        self.prims = object_primitives(spec)
        self.screen = [self.view.screen_box(prims) for prims in self.prims]
        self._areas: dict[int, float] = {}
        self._rays: dict[int, tuple] = {}
        self._hits: dict[tuple[int, int], np.ndarray] = {}
        self._inside: dict[tuple[int, int], np.ndarray] = {}
        self._unhidden: dict[tuple[int, int], np.ndarray] = {}
        self._counts: dict[tuple[int, float | None, bool], int | None] = {}

    def area(self, i: int) -> float:
        if i not in self._areas:
            self._areas[i] = self.view.outline_area(self.prims[i])
        return self._areas[i]

    def rays(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Object i's rays, its own hit distances along them, and the rays' grid (us, vs)."""
        if i not in self._rays:
            d, us, vs = self.view.rays(self.screen[i][0])
            self._rays[i] = d, hits(self.prims[i], self.origin, d), us, vs
        return self._rays[i]

    def hits(self, j: int, i: int) -> np.ndarray:
        """Object j's hit distances along object i's rays."""
        if (j, i) not in self._hits:
            self._hits[j, i] = hits(self.prims[j], self.origin, self.rays(i)[0])
        return self._hits[j, i]

    def inside(self, i: int, j: int) -> np.ndarray:
        """Which of object i's rays pass through object j's screen box."""
        if (i, j) not in self._inside:
            _, _, us, vs = self.rays(i)
            self._inside[i, j] = _inside(us, vs, self.screen[j][0])
        return self._inside[i, j]

    def unhidden(self, i: int, objs: list[int], k: int) -> np.ndarray:
        """Object i's rays that meet it and that none of the first k of `objs` (the objects that may
        hide it, in order: the layout fixes them) hides; shared, never to be written to."""
        if (i, k) not in self._unhidden:
            own = self.rays(i)[1]
            if k == 0:
                self._unhidden[i, k] = np.isfinite(own)
            else:
                self._unhidden[i, k] = self.unhidden(i, objs, k - 1) & (own < self.hits(objs[k - 1], i))
        return self._unhidden[i, k]

    def count(self, i: int, stop_below: float | None, decide: bool, compute) -> int | None:
        """Object i's count by `compute`, kept for the next hand that leaves object i alone."""
        key = (i, stop_below, decide)
        if key not in self._counts:
            self._counts[key] = compute()
        return self._counts[key]


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
        return _estimate(spec, spec.hand, stop_below)


def visible_enough(spec: SceneSpec, minimum: int = MIN_VISIBLE_PIXELS, margin: float = ESTIMATE_MARGIN) -> bool:
    """Whether every object and the hand clear `minimum` times `margin` estimated pixels: the same
    verdict as estimate_visible_pixels gives, decided by bounds where they suffice."""
    return visible_enough_with(spec, spec.hand, minimum, margin)


def visible_enough_with(spec: SceneSpec, hand: HandSpec | None, minimum: int = MIN_VISIBLE_PIXELS,
                        margin: float = ESTIMATE_MARGIN) -> bool:
    """visible_enough of spec with `hand` for its own, the spec not copied (samplers try many hands)."""
    need = minimum * margin
    with np.errstate(divide="ignore", invalid="ignore"):
        return all(c >= need for c in _estimate(spec, hand, need, decide=True))


def _estimate(spec: SceneSpec, hand: HandSpec | None, stop_below: float | None, decide: bool = False) -> list[int]:
    """The counts, with `hand` for the spec's; with `decide` (and `stop_below`) an entity's count
    is only a bound on the side of `stop_below` where its exact count lies, enough for a verdict."""
    layout = _layout(spec)
    view, origin = layout.view, layout.origin
    n = len(spec.objects)
    ents = list(layout.prims)
    screens = list(layout.screen)
    if hand is not None:
        ents.append(hand_primitives(hand))
        screens.append(view.screen_box(ents[n]))
    boxes = [b for b, _, _ in screens]
    # The hand is modelled by boxes its mesh only partly fills.
    fills = [1.0] * n + [hand_geometry.MESH_FILL] * (hand is not None)
    counts = [0] * len(ents)
    decide = decide and stop_below is not None
    # The hand (last) is the likeliest to be too small: check it first.
    for i in [n] * (hand is not None) + list(range(n)):
        (u0, v0, u1, v1), _, (_, far) = screens[i]
        occluders = [
            j for j, (a0, b0, a1, b1) in enumerate(boxes)
            if j != i and a1 > u0 and a0 < u1 and b1 > v0 and b0 < v1 and screens[j][2][0] < far
        ]
        if i < n and n not in occluders:  # the objects and camera alone decide it: once per layout
            count = layout.count(i, stop_below, decide, lambda: _count_entity(
                layout, ents, screens, fills, i, occluders, stop_below, decide))
        else:
            count = _count_entity(layout, ents, screens, fills, i, occluders, stop_below, decide)
        if count is None:  # its box holds no pixel
            if stop_below is not None:
                break
            continue
        counts[i] = count
        if stop_below is not None and count < stop_below:
            break
    return counts


def _count_entity(layout: _Layout, ents: list, screens: list, fills: list[float], i: int, occluders: list[int],
                  stop_below: float | None, decide: bool) -> int | None:
    """Entity i's count (a bound with `decide`, as _estimate says), None where its box holds no pixel."""
    view, origin, n = layout.view, layout.origin, len(layout.prims)
    boxes = [b for b, _, _ in screens]
    (u0, v0, u1, v1), clipped, _ = screens[i]
    if not occluders and not clipped:
        # Nothing can hide it: the outline's area is the pixel count.
        area = layout.area(i) if i < n else view.outline_area(ents[i])
        return int(area * fills[i])
    if u1 <= u0 or v1 <= v0:
        return None
    # An object's occluders are the objects (the layout's, kept there) and last the hand.
    objs = [j for j in occluders if j < n] if i < n else []
    if i < n:
        d, own, us, vs = layout.rays(i)
        visible = layout.unhidden(i, objs, 0)
    else:
        d, us, vs = view.rays(boxes[i])
        own = hits(ents[i], origin, d)
        visible = np.isfinite(own)
    if decide and all(screens[j][2][0] > 0 for j in occluders):  # boxes of points before the camera
        hidden = np.logical_or.reduce(
            [layout.inside(i, j) if j in objs else _inside(us, vs, boxes[j]) for j in occluders])
        count = _count(visible & ~hidden, fills[i])
        if count >= stop_below:  # enough that no occluder can hide
            return count
    for k, j in enumerate(occluders):
        if decide and _count(visible, fills[i]) < stop_below:  # occluders only take rays away
            break
        if j in objs:
            visible = layout.unhidden(i, objs, k + 1)
        else:  # a new hand: test only the rays nothing hides yet
            rows = np.flatnonzero(visible)
            visible = visible.copy() if i < n else visible
            visible[rows] = own[rows] < hits(ents[j], origin, d, rows)
    return _count(visible, fills[i])


def projected_areas(spec: SceneSpec) -> list[float]:
    """Pixels of every object's whole silhouette, as if nothing hid it (its outline's area)."""
    layout = _layout(spec)
    return [layout.area(i) for i in range(len(spec.objects))]
