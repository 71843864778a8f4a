"""Pure tests of render.ground_truth on synthetic index images (no bpy)."""
import json

import numpy as np
import pytest
from pycocotools import mask as mask_utils

from render import ground_truth
from scenes.camera import project
from scenes.placement import place_scene

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
    entries = gt["objects"] + [gt["hand"]]
    assert [e["visible_pixels"] for e in entries] == ground_truth.visible_pixels(spec, index)
    for label, e in enumerate(entries, start=1):
        m = index == label
        decoded = mask_utils.decode({"size": e["mask"]["size"], "counts": e["mask"]["counts"].encode()})
        assert (decoded.astype(bool) == m).all()
        assert e["visible_pixels"] == m.sum()
        x, y, w, h = e["bbox"]
        assert m[y:y + h, x:x + w].sum() == m.sum()  # contains the mask
        assert m[y, x:x + w].any() and m[y + h - 1, x:x + w].any()  # and is tight
        assert m[y:y + h, x].any() and m[y:y + h, x + w - 1].any()


def test_mewl_fields(spec):
    gt = ground_truth.build(spec, synthetic_index(spec), image_filename="x.png", device="cpu", blender_version="5.0.1")
    o = gt["objects"][0]
    assert o["name"] == "large red metal cube"
    assert o["3d_coords"] == list(spec.objects[0].center)
    assert o["pixel_coords"] == pytest.approx(list(project(spec.camera, [spec.objects[0].center])[0]), abs=1e-3)
    assert gt["points_to"] == 1 and gt["hand"]["points_to"] == 1
    assert set(gt["relationships"]) == {"left", "right", "front", "behind"}
    assert all(len(v) == len(spec.objects) for v in gt["relationships"].values())
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

    code = "import sys, render, render.ground_truth, render.bench; sys.exit('bpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
