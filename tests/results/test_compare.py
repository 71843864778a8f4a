"""`mewl inspect A B --html DIR`: two renders of a scene side by side, with the spec fields that differ named
and the changed pixels counted inside each object's mask. Really: an item of the session's render, one
object's colour edited by the commands its inspector page gives and re-rendered with `mewl render-spec`.
Then on renders drawn here without Blender (their ground truth built from an object-index image, as the
renderer builds it): what differs, escaping, and hostile folders refused in one line."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.render import ground_truth
from mewl_gen.results import compare, inspector
from mewl_gen.scenes.universe import COLOR_RGB, COLORS
from mewl_gen.tasks import catalog
from tests.conftest import rendered_all

TASK = "malevic-pos"  # one image, several objects: one scene to re-render


def rows(page: str) -> dict[str, int]:
    """The side-by-side page's table: object index (or 'outside') -> its changed pixels."""
    found = re.findall(r'<tr data-index="(\w+)"[^>]*><td>[^<]*</td><td>([\d,]+)</td>', page)
    return {k: int(n.replace(",", "")) for k, n in found}


def mask_of(truth: dict, k: int) -> np.ndarray:
    m = truth["objects"][k]["mask"]
    return mask_utils.decode({"size": m["size"], "counts": m["counts"].encode()}).astype(bool)


def other_color(color: str) -> str:
    return next(c for c in ("blue", "red", "yellow") if c != color)


@pytest.mark.render
def test_an_object_recoloured_by_the_page_s_commands_is_named_and_its_pixels_lie_in_its_mask(tmp_path, mewl):
    item_folder = rendered_all() / "train" / TASK / "0"
    assert mewl("inspect", item_folder, "--html", tmp_path / "page")[0] == 0
    page = (tmp_path / "page" / "index.html").read_text()
    commands = html.unescape(re.search(r'<details class="rerender">.*?<code>(.*?)</code>', page, re.S).group(1))
    copy, note, render, inspect = commands.splitlines()
    assert note.startswith("#") and render.startswith("mewl render-spec edited.json --panel image ")

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(copy, shell=True, check=True, cwd=tmp_path, env=env)
    edited = json.loads((tmp_path / "edited.json").read_text())
    truth = json.loads((item_folder / "image.json").read_text())
    k = max(range(len(edited["scene"]["objects"])), key=lambda j: truth["objects"][j]["visible_pixels"])
    was = edited["scene"]["objects"][k]["color"]
    edited["scene"]["objects"][k]["color"] = now = other_color(was)
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    for line in (render, inspect):  # as the page gives them, in the folder the user copied the file to
        r = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, (line, r.stderr)

    side = (tmp_path / "compared" / "index.html").read_text()
    assert f"<code>objects[{k}].color</code>: {was} → {now}</li>" in side
    assert side.count("<li data-field=") == 1  # that field, no other
    changed = rows(side)
    assert changed[str(k)] == max(changed.values()) and changed[str(k)] > 0.8 * truth["objects"][k]["visible_pixels"]
    assert changed[str(k)] > 3 * sum(n for j, n in changed.items() if j != str(k))  # the rest: light it casts
    magenta = np.all(np.asarray(Image.open(tmp_path / "compared" / "diff0.png").convert("RGB")) == (255, 0, 255), axis=2)
    assert (magenta & mask_of(truth, k)).sum() == changed[str(k)]
    assert sorted(p.name for p in (tmp_path / "compared").iterdir()) == ["a0.png", "b0.png", "diff0.png", "index.html",
                                                                         "style.css"]


# -- renders drawn without Blender ----------------------------------------------------------------------
def drawn(folder: Path, stem: str, spec) -> None:
    """A render of `spec` as `mewl render-spec` writes one: object k a band of rows in its colour, its ground
    truth built from that object-index image by the renderer's own code."""
    w, h = spec.camera.width, spec.camera.height
    index = np.zeros((h, w), np.int32)
    pixels = np.full((h, w, 3), 90, np.uint8)
    for k, o in enumerate(spec.objects):
        index[8 * k + 2: 8 * k + 8, 10:70] = k + 1
        pixels[index == k + 1] = COLOR_RGB[o.color]
    folder.mkdir(parents=True, exist_ok=True)
    truth = ground_truth.build(spec, index, image_filename=f"{stem}.png", device="cpu", blender_version="drawn")
    (folder / f"{stem}.json").write_text(json.dumps(truth))
    Image.fromarray(pixels).save(folder / f"{stem}.png")


def recoloured(spec, k: int):
    objects = list(spec.objects)
    objects[k] = objects[k].model_copy(update={"color": other_color(objects[k].color)})
    return spec.model_copy(update={"objects": tuple(objects)})


def test_what_differs_is_the_field_and_the_pixels_of_the_object_changed(tmp_path, mewl):
    spec = catalog.sample_item(TASK, 0, "train", 0).scene
    drawn(tmp_path / "a", "image", spec)
    drawn(tmp_path / "b", "image", recoloured(spec, 1))
    assert mewl("inspect", tmp_path / "a", tmp_path / "b", "--html", tmp_path / "page")[0] == 0
    page = (tmp_path / "page" / "index.html").read_text()
    assert re.findall(r'<li data-field="([^"]+)"', page) == ["objects[1].color"]
    assert rows(page) == {**{str(k): 0 for k in range(len(spec.objects))}, "1": 6 * 60, "outside": 0}
    a, b = compare.side(tmp_path / "a"), compare.side(tmp_path / "b")
    assert compare.spec_changes(a.renders["image"].truth, a.renders["image"].truth) == []


def test_two_renders_of_other_sizes_are_compared_by_their_fields_alone(tmp_path, mewl):
    spec = catalog.sample_item(TASK, 0, "train", 0).scene
    drawn(tmp_path / "a", "image", spec)
    drawn(tmp_path / "b", "other", spec.model_copy(update={"camera": spec.camera.model_copy(update={"width": 400})}))
    assert mewl("inspect", tmp_path / "a", tmp_path / "b", "--html", tmp_path / "page")[0] == 0
    page = (tmp_path / "page" / "index.html").read_text()
    assert "<h2>image and other</h2>" in page and '<li data-field="camera.width">' in page
    assert "their pixels are not compared" in page and not (tmp_path / "page" / "diff0.png").exists()


def test_every_text_is_escaped(tmp_path, mewl):
    spec = catalog.sample_item(TASK, 0, "train", 0).scene
    evil = '<script>alert("x")<script>&\'q\''  # a file name: no '/'
    drawn(tmp_path / evil, evil, spec)
    drawn(tmp_path / "b", evil, recoloured(spec, 0))
    assert mewl("inspect", tmp_path / evil, tmp_path / "b", "--html", tmp_path / "page")[0] == 0
    page = (tmp_path / "page" / "index.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;script&gt;&amp;&#x27;q&#x27;" in page
    assert "://" not in page and "data:" not in page and page.count('loading="lazy"') == 3


@pytest.mark.parametrize("spoil", ["garbage truth", "garbage image", "linked truth", "no render", "missing folder",
                                   "a file", "wrong size", "deep truth"])
def test_a_hostile_folder_is_one_line(tmp_path, spoil, mewl):
    spec = catalog.sample_item(TASK, 0, "train", 0).scene
    drawn(tmp_path / "a", "image", spec)
    b = tmp_path / "b"
    drawn(b, "image", spec)
    if spoil == "garbage truth":
        (b / "image.json").write_text('{"objects": [')
    elif spoil == "garbage image":
        (b / "image.png").write_bytes(b"\x89PNG not one")
    elif spoil == "linked truth":
        (b / "image.json").unlink()
        (b / "image.json").symlink_to(tmp_path / "a" / "image.json")
    elif spoil == "no render":
        shutil.rmtree(b)
        b.mkdir()
        (b / "notes.txt").write_text("x")
    elif spoil == "missing folder":
        b = tmp_path / "none"
    elif spoil == "a file":
        b = b / "image.png"
    elif spoil == "wrong size":
        Image.new("RGB", (10, 10)).save(b / "image.png")
    elif spoil == "deep truth":
        (b / "image.json").write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = mewl("inspect", tmp_path / "a", b, "--html", tmp_path / "page")
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0] and not (tmp_path / "page").exists(), err


def test_two_folders_without_html_is_one_line(tmp_path, mewl):
    code, _, err = mewl("inspect", tmp_path, tmp_path)
    assert code == 2 and "--html DIR" in err


def test_the_page_gives_the_commands_quoted_for_a_shell(tmp_path):
    item = catalog.sample_item("shape", 2, "train", 0)  # panel names hold a space and '#'
    stored = type("Stored", (), {"folder": tmp_path / "it's here" / "0", "model": type(item)})
    name = item.context_panels[4].name
    text = inspector.rerender(stored, name, "cpu")
    words = [line.split() for line in text.splitlines() if not line.startswith("#")]
    assert f"--panel '{name}'" in text and "'" + str(tmp_path / "it'\"'\"'s here" / "0") in text
    assert [w[0] for w in words] == ["cp", "mewl", "mewl"]
