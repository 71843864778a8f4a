"""Pure tests of render.ground_truth on synthetic index images (no bpy)."""
import json
import math

import numpy as np
import pytest
from pycocotools import mask as mask_utils

from mewl_gen.render import ground_truth
from mewl_gen.scenes.camera import project
from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.placement import place_scene

PROPS = [("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "small"), ("cylinder", "green", "rubber", "large")]


@pytest.fixture(scope="module")
def spec():
    return place_scene(5, PROPS, pointed=1)


def synthetic_index(spec, half=12):
    """A square of labels around each object's projected centre, the hand last."""
    index = np.zeros((spec.camera.height, spec.camera.width), np.int32)
    centres = [o.center for o in spec.objects] + [(*spec.hand.position, 0.1)]
    for label, (u, v, _) in enumerate(project(spec.camera, centres), start=1):
        u, v = int(u), int(v)
        index[max(v - half, 0): v + half, max(u - half, 0): u + half] = label
    return index


def test_counts_boxes_and_masks_agree(spec):
    index = synthetic_index(spec)
    gt = ground_truth.build(spec, index, image_filename="x.png", device="cpu", blender_version="5.0.1")
    json.dumps(gt)  # serialisable as is
    entries = gt["objects"]  # the universe objects, then the hand
    assert [e["visible_pixels"] for e in entries] == ground_truth.visible_pixels(spec, index)
    for label, e in enumerate(entries, start=1):
        m = index == label
        assert e["index"] == label
        decoded = mask_utils.decode({"size": e["mask"]["size"], "counts": e["mask"]["counts"].encode()})
        assert (decoded.astype(bool) == m).all()
        assert e["visible_pixels"] == m.sum()
        x, y, w, h = e["bbox"]
        assert m[y:y + h, x:x + w].sum() == m.sum()  # contains the mask
        assert m[y, x:x + w].any() and m[y + h - 1, x:x + w].any()  # and is tight
        assert m[y:y + h, x].any() and m[y:y + h, x + w - 1].any()


def test_mewl_fields_in_mewl_form(spec):
    gt = ground_truth.build(spec, synthetic_index(spec), image_filename="x.png", device="cpu", blender_version="5.0.1")
    ImageTruth.model_validate(gt)  # the declared format, JSON Schema included
    o = gt["objects"][0]
    assert o["name"] is None and o["description"] == "large red metal cube"  # words come from the episode
    assert o["3d_coords"] == list(spec.objects[0].center)
    u, v, depth = project(spec.camera, [spec.objects[0].center])[0]
    assert o["pixel_coords"][:2] == [round(u), round(v)] and all(isinstance(c, int) for c in o["pixel_coords"][:2])
    assert o["pixel_coords"][2] == pytest.approx(depth, abs=1e-3)
    assert o["pixel_coords_float"] == pytest.approx([u, v, depth], abs=1e-3)
    assert o["rotation"] == pytest.approx(math.degrees(spec.objects[0].rotation)) and 0 <= o["rotation"] < 360
    assert o["rotation_radians"] == spec.objects[0].rotation
    # MEWL lists the pointing hand as a fourth object: an arrow with no name.
    hand = gt["objects"][3]
    assert len(gt["objects"]) == 4 and hand["shape"] == "arrow" and hand["name"] is None
    assert [hand[k] for k in ("color", "material", "size")] == ["yellow", "rubber", "small"]
    assert hand["rotation"] == pytest.approx(math.degrees(spec.hand.yaw)) and len(hand["fingertip"]) == 3
    assert gt["points_to"] == 1
    # MEWL's relationships are keyed by name (none here); CLEVR's index lists sit beside them.
    assert gt["relationships"] == {"behind": {}, "front": {}, "left": {}, "right": {}}
    assert set(gt["clevr_relationships"]) == {"left", "right", "front", "behind"}
    assert all(len(v) == len(spec.objects) for v in gt["clevr_relationships"].values())
    assert gt["caption"] is None
    assert set(gt["directions"]) >= {"left", "right", "front", "behind", "above", "below"}
    assert gt["spec_hash"] == spec.spec_hash()
    assert len(gt["camera"]["intrinsics"]) == 3 and len(gt["lights"]) == len(spec.lights)
    assert gt["render"]["seed"] == spec.render.seed


def test_too_small_lists_hidden_entities(spec):
    index = synthetic_index(spec, half=5)  # 100 pixels each
    index[index == 2] = 0
    counts = ground_truth.visible_pixels(spec, index)
    assert counts[1] == 0
    assert ground_truth.too_small(counts) == [0, 1, 2, 3]
    assert ground_truth.too_small([500, 199, 200]) == [1]
    assert ground_truth.bbox(np.zeros((4, 4), bool)) == [0, 0, 0, 0]


def test_importing_render_does_not_import_bpy():
    import subprocess
    import sys

    code = "import sys, mewl_gen.render, mewl_gen.render.ground_truth, mewl_gen.bench.render; sys.exit('bpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
