"""Per-image ground truth from a spec and the object-index pass (no bpy).

The index image holds 0 for the background, i + 1 for object i and
len(objects) + 1 for the hand, read from the same render as the PNG.
"""
from __future__ import annotations


import numpy as np
from pycocotools import mask as mask_utils

from assets.hand import FINGERTIP_HEIGHT

from scenes import hand as hand_geometry
from scenes.camera import directions, intrinsics, project, rotation_matrix
from scenes.relations import relationships
from scenes.spec import GENERATOR_VERSION, SceneSpec
from scenes.universe import HAND_TUPLE, describe
from scenes.visibility import MIN_VISIBLE_PIXELS


def entity_count(spec: SceneSpec) -> int:
    return len(spec.objects) + (spec.hand is not None)


def visible_pixels(spec: SceneSpec, index: np.ndarray) -> list[int]:
    """Pixels per object, then the hand if any."""
    counts = np.bincount(index.ravel(), minlength=entity_count(spec) + 1)
    return [int(c) for c in counts[1 : entity_count(spec) + 1]]


def too_small(counts: list[int], minimum: int = MIN_VISIBLE_PIXELS) -> list[int]:
    return [i for i, c in enumerate(counts) if c < minimum]


def bbox(mask: np.ndarray) -> list[int]:
    """Tight [x, y, w, h] of a boolean mask; zeros if empty."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return [0, 0, 0, 0]
    return [int(cols[0]), int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)]


def rle(mask: np.ndarray) -> dict:
    enc = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(s) for s in enc["size"]], "counts": enc["counts"].decode("ascii")}


def _visible(index: np.ndarray, label: int) -> dict:
    mask = index == label
    return {"bbox": bbox(mask), "visible_pixels": int(mask.sum()), "mask": rle(mask)}


def _rounded(values, ndigits: int = 6) -> list[float]:
    return [round(float(v), ndigits) for v in values]


def camera_pose(spec: SceneSpec) -> dict:
    cam = spec.camera
    world = np.eye(4)
    world[:3, :3] = rotation_matrix(cam.rotation)
    world[:3, 3] = cam.location
    return {
        "location": list(cam.location),
        "rotation_euler_xyz": list(cam.rotation),
        "matrix_world": [_rounded(row) for row in world],
        "intrinsics": intrinsics(cam),
        "lens_mm": cam.lens_mm,
        "sensor_width_mm": cam.sensor_width_mm,
        "width": cam.width,
        "height": cam.height,
    }


def build(spec: SceneSpec, index: np.ndarray, *, image_filename: str, device: str, blender_version: str) -> dict:
    """Every MEWL/CLEVR field plus masks, boxes, counts, camera, lights and settings."""
    cam = spec.camera
    objects = []
    for i, o in enumerate(spec.objects):
        u, v, depth = project(cam, [o.center])[0]
        objects.append({
            "name": describe(o.properties),
            "shape": o.shape, "size": o.size, "material": o.material, "color": o.color,
            "3d_coords": list(o.center),
            "rotation": o.rotation,
            "pixel_coords": _rounded([u, v, depth], 4),
            "index": i + 1,
            **_visible(index, i + 1),
        })
    hand = None
    if spec.hand is not None:
        h = spec.hand
        centre = (h.position[0], h.position[1], hand_geometry.PALM[0][2])
        tip = (*hand_geometry.fingertip(h), FINGERTIP_HEIGHT)
        shape, color, material, size = HAND_TUPLE
        hand = {
            "name": "yellow rubber pointing hand",
            "shape": shape, "size": size, "material": material, "color": color,
            "3d_coords": list(centre),
            "rotation": h.yaw,
            "pixel_coords": _rounded(project(cam, [centre])[0], 4),
            "fingertip": _rounded(tip),
            "fingertip_pixel_coords": _rounded(project(cam, [tip])[0], 4),
            "points_to": h.target,
            "index": len(spec.objects) + 1,
            **_visible(index, len(spec.objects) + 1),
        }
    return {
        "image_filename": image_filename,
        "objects": objects,
        "directions": directions(cam),
        "relationships": relationships(cam, spec.objects),
        "points_to": None if spec.hand is None else spec.hand.target,
        "hand": hand,
        "camera": camera_pose(spec),
        "lights": [l.model_dump() for l in spec.lights],
        "render": spec.render.model_dump(),
        "device": device,
        "blender_version": blender_version,
        "generator": GENERATOR_VERSION,
        "spec_hash": spec.spec_hash(),
        "seed": spec.seed,
        "attempt": spec.attempt,
    }
