"""Camera maths with numpy, in Blender's conventions.

The camera looks down its local -z with +y up; Euler XYZ means
R = Rz @ Ry @ Rx; the sensor fits the wider image side (sensor_fit AUTO).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .spec import CameraSpec


@lru_cache(maxsize=256)
def _rotation(euler_xyz: tuple[float, float, float]) -> np.ndarray:
    x, y, z = euler_xyz
    cx, sx, cy, sy, cz, sz = np.cos(x), np.sin(x), np.cos(y), np.sin(y), np.cos(z), np.sin(z)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    r = rz @ ry @ rx
    r.setflags(write=False)
    return r


def _key(euler_xyz) -> tuple[float, float, float]:
    """A camera rotation as a hashable cache key."""
    return tuple(float(a) for a in euler_xyz)


def rotation_matrix(euler_xyz) -> np.ndarray:
    """World-from-camera rotation (cached: samplers project a lot)."""
    return _rotation(_key(euler_xyz))


def focal_px(cam: CameraSpec) -> float:
    fit = max(cam.width, cam.height)
    return cam.lens_mm / cam.sensor_width_mm * fit


def intrinsics(cam: CameraSpec) -> list[list[float]]:
    """3x3 K with pixel (0, 0) at the top-left corner of the image."""
    f = focal_px(cam)
    return [[f, 0.0, cam.width / 2], [0.0, f, cam.height / 2], [0.0, 0.0, 1.0]]


def project(cam: CameraSpec, points) -> np.ndarray:
    """World points (N, 3) -> (N, 3) of (u, v, depth): u right, v down, in pixels."""
    return np.stack(project_uv(cam, np.atleast_2d(np.asarray(points, dtype=float))), axis=1)


def project_uv(cam: CameraSpec, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """project's u, v and depth, apart, of float points (N, 3) (samplers project a lot)."""
    r = rotation_matrix(cam.rotation)
    local = (p - np.asarray(cam.location)) @ r  # = R^T (p - t)
    depth = -local[:, 2]
    f = focal_px(cam)
    u = cam.width / 2 + f * local[:, 0] / depth
    v = cam.height / 2 - f * local[:, 1] / depth
    return u, v, depth


def pixel_rays(cam: CameraSpec, us, vs) -> np.ndarray:
    """World-space unit directions through pixel positions (u, v)."""
    f = focal_px(cam)
    us, vs = np.asarray(us, dtype=float), np.asarray(vs, dtype=float)
    d = np.empty(us.shape + (3,))
    d[..., 0] = (us - cam.width / 2) / f
    d[..., 1] = -(vs - cam.height / 2) / f
    d[..., 2] = -1.0
    d = d @ rotation_matrix(cam.rotation).T
    return d / np.sqrt((d * d).sum(axis=-1, keepdims=True))


def directions(cam: CameraSpec) -> dict[str, tuple[float, float, float]]:
    """CLEVR's six unit directions: camera axes projected onto the ground."""
    return dict(_directions(_key(cam.rotation)))


@lru_cache(maxsize=256)
def _directions(euler_xyz: tuple[float, float, float]) -> dict[str, tuple[float, float, float]]:
    # Cached like the rotation: relation tables and concept programs ask for it per object pair.
    r = _rotation(euler_xyz)
    behind = r @ np.array([0.0, 0.0, -1.0])
    left = r @ np.array([-1.0, 0.0, 0.0])
    behind[2] = 0.0
    left[2] = 0.0
    behind /= np.linalg.norm(behind)
    left /= np.linalg.norm(left)
    vecs = {
        "behind": behind, "front": -behind,
        "left": left, "right": -left,
        "above": np.array([0.0, 0.0, 1.0]), "below": np.array([0.0, 0.0, -1.0]),
    }
    return {k: tuple(float(x) for x in v) for k, v in vecs.items()}
