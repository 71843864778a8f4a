"""A dataset from elsewhere whose items look sound to their records of checksums, yet are not what they
claim: images of another size than their scenes are rendered at, truths of the wrong types. Every reading
command names them in one line (no traceback), and leaves the folder outside OUT as it was."""
from __future__ import annotations

import json

import pytest
from PIL import Image

from .hostile import mewl, rerecord


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
