"""A dataset from elsewhere whose items look sound to their records of checksums, yet are not what they
claim: images of another size than their scenes are rendered at, truths of the wrong types. Every reading
command names them in one line (no traceback), and leaves the folder outside OUT as it was."""
from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from .hostile import mewl, one_line, rerecord


@pytest.mark.slow
def test_an_image_of_another_size_than_its_scene_is_damaged_and_not_exported(rendered):
    """A valid PNG, well under every size limit, but 321x240 where its scene is rendered at 320x240."""
    w = rendered
    spec = json.loads((w.item(0) / "item.json").read_text())["scene"]["camera"]
    assert Image.open(w.item(0) / "image.png").size == (spec["width"], spec["height"])  # a genuine item
    Image.new("RGB", (spec["width"] + 1, spec["height"])).save(w.item(0) / "image.png")
    rerecord(w.item(0))  # the record agrees with it: only its size gives it away
    w.freeze()
    r = mewl("verify", w.out)
    lines = [line for line in r.stdout.splitlines() if "malevic-pos1/0" in line]
    assert r.returncode == 1 and len(lines) == 1, r.stdout + r.stderr
    assert f"image.png: is {spec['width'] + 1}x{spec['height']} pixels" in lines[0]
    assert f"rendered at {spec['width']}x{spec['height']}" in lines[0]
    for to in ("hf", "webdataset"):
        r = mewl("export", w.out, "--to", to, w.root / to)
        assert r.returncode == 0 and "exported 2 items" in r.stdout and "train/malevic-pos1/0" in r.stderr, r.stderr
    r = mewl("gallery", w.out, w.root / "gallery")
    assert r.returncode == 0 and "train/malevic-pos1/0" in r.stderr, r.stderr
    assert not (w.root / "gallery" / "train" / w.task / "0").exists()
    w.untouched()


def nan_mask(truth: dict) -> None:
    truth["objects"][1]["mask"]["size"] = [float("nan"), 320]


# (how a truth is spoiled, the field the one line names: an object's by its index, then its shape)
MISTYPED = {
    "a box that is text": (lambda t: t["objects"][0].update(bbox="x"), r"objects\.0\.\w+\.bbox: "),
    "no box": (lambda t: t["objects"][0].pop("bbox"), r"objects\.0\.\w+\.bbox: Field required"),
    "a mask's size of NaN": (nan_mask, r"objects\.1\.\w+\.mask\.size\.0: "),
    "a count that is text": (lambda t: t["objects"][0].update(visible_pixels="120"), r"objects\.0\.\w+\.visible_pixels: "),
    "objects that are no list": (lambda t: t.update(objects={"0": 1}), r"\(objects: "),
}


@pytest.mark.parametrize("spoil", MISTYPED, ids=list(MISTYPED))
@pytest.mark.slow
def test_a_mistyped_truth_is_one_line_naming_its_file_and_field_in_the_gallery(rendered, spoil):
    w = rendered
    how, field = MISTYPED[spoil]
    truth = json.loads((w.item(0) / "image.json").read_text())
    how(truth)
    (w.item(0) / "image.json").write_text(json.dumps(truth))
    rerecord(w.item(0))
    w.freeze()
    line = one_line(mewl("gallery", w.out, w.root / "gallery"))
    assert "train/malevic-pos1/0/image.json: not an image's ground truth" in line and re.search(field, line), line
    assert not (w.root / "gallery").exists()
    w.untouched()


@pytest.mark.slow
def test_a_truth_nested_a_hundred_thousand_deep_is_left_out_of_the_gallery(rendered):
    w = rendered
    (w.item(0) / "image.json").write_text("[" * 100_000 + "]" * 100_000)
    rerecord(w.item(0))
    r = mewl("gallery", w.out, w.root / "gallery")
    assert r.returncode == 0 and "train/malevic-pos1/0: image.json: nests JSON deeper than 64" in r.stderr
