"""Per-image ground truth from a spec and the object-index pass (no bpy).

The index image holds 0 for the background, i + 1 for object i and
len(objects) + 1 for the hand, read from the same render as the PNG.
"""
from __future__ import annotations

import math

import numpy as np
from pycocotools import mask as mask_utils

from mewl_gen.assets.hand import FINGERTIP_HEIGHT
from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.camera import directions, intrinsics, project, rotation_matrix
from mewl_gen.scenes.image_truth import CameraPose, HandObject, ImageObject, ImageTruth
from mewl_gen.scenes.relations import named_relationships, relationships
from mewl_gen.scenes.spec import GENERATOR_VERSION, SceneSpec
from mewl_gen.scenes.universe import HAND_TUPLE, describe
from mewl_gen.scenes.visibility import MIN_VISIBLE_PIXELS


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


def camera_pose(spec: SceneSpec) -> CameraPose:
    cam = spec.camera
    world = np.eye(4)
    world[:3, :3] = rotation_matrix(cam.rotation)
    world[:3, 3] = cam.location
    return CameraPose(
        location=cam.location, rotation_euler_xyz=cam.rotation, matrix_world=[_rounded(row) for row in world],
        intrinsics=intrinsics(cam), lens_mm=cam.lens_mm, sensor_width_mm=cam.sensor_width_mm,
        width=cam.width, height=cam.height,
    )


def _placed(cam, centre, yaw: float, index: np.ndarray, label: int) -> dict:
    """The fields of a universe object and the hand alike: CLEVR's rounded
    pixel coordinates and degrees beside the exact values."""
    u, v, depth = (float(x) for x in project(cam, [centre])[0])
    return {
        "3d_coords": tuple(centre),
        "rotation": math.degrees(yaw) % 360.0, "rotation_radians": yaw,  # yaw < 2 pi can round to 360
        "pixel_coords": (int(round(u)), int(round(v)), round(depth, 4)),
        "pixel_coords_float": tuple(_rounded([u, v, depth], 4)),
        "index": label,
        **_visible(index, label),
    }


def build(spec: SceneSpec, index: np.ndarray, *, image_filename: str, device: str, blender_version: str) -> dict:
    """Every CLEVR field plus masks, boxes, counts, camera, lights and
    settings. Words are not known here: names stay null and the caption empty
    until the item labels them (tasks.item.Item.label_image)."""
    cam = spec.camera
    entities: list[ImageObject | HandObject] = [
        ImageObject(name=None, shape=o.shape, size=o.size, material=o.material, color=o.color,
                    description=describe(o.properties), **_placed(cam, o.center, o.rotation, index, i + 1))
        for i, o in enumerate(spec.objects)
    ]
    if spec.hand is not None:
        h = spec.hand
        centre = (h.position[0], h.position[1], hand_geometry.PALM[0][2])
        tip = (*hand_geometry.fingertip(h), FINGERTIP_HEIGHT)
        shape, color, material, size = HAND_TUPLE
        entities.append(HandObject(
            name=None, shape=shape, size=size, material=material, color=color,
            description="yellow rubber pointing hand",
            fingertip=tuple(_rounded(tip)), fingertip_pixel_coords=tuple(_rounded(project(cam, [tip])[0], 4)),
            **_placed(cam, centre, h.yaw, index, len(spec.objects) + 1),
        ))
    return ImageTruth(
        image_filename=image_filename,
        objects=entities,
        directions=directions(cam),
        relationships=named_relationships(spec, [None] * len(spec.objects)),
        clevr_relationships=relationships(cam, spec.objects),
        points_to=None if spec.hand is None else spec.hand.target,
        caption=None,
        camera=camera_pose(spec),
        lights=list(spec.lights),
        render=spec.render,
        device=device,
        blender_version=blender_version,
        generator=GENERATOR_VERSION,
        spec_hash=spec.spec_hash(),
        seed=spec.seed,
        attempt=spec.attempt,
    ).as_json()
