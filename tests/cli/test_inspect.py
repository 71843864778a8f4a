"""`mewl inspect`: episodes, scene specs and ground truth made readable, and
overlays drawn from the renderer's ground truth (built here from a painted
object-index image, so no Blender is needed)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from PIL import Image

from mewl_gen.cli.overlay import POINTED, SCALE, place_labels
from mewl_gen.render import ground_truth
from mewl_gen.scenes.universe import describe
from mewl_gen.store.record import write_record
from mewl_gen.tasks import catalog
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.mewl.item import info_json
from tests.conftest import rendered_all


@pytest.fixture(scope="module")
def pragmatic():
    return sample_item("pragmatic", 0, "train", 4)


def test_an_episode_reads_as_panels_objects_pointing_and_choices(tmp_path, mewl, pragmatic):
    (tmp_path / "episode.json").write_text(pragmatic.model_dump_json(indent=2))
    (tmp_path / "info.json").write_text(json.dumps(info_json(pragmatic)))
    write_record(tmp_path)  # a published episode; one without its record is refused as damaged
    code, out, _ = mewl("inspect", tmp_path)
    assert code == 0
    assert out.startswith(f"pragmatic episode 4 (split train, root seed 0, retry {pragmatic.retry})")
    for panel in pragmatic.context_panels:
        assert f"{panel.name!r}: utterance {panel.utterance!r}" in out
        for o in panel.scene.objects:
            assert describe(o.properties) in out
    hand = pragmatic.query.hand
    if hand is not None:
        assert f"points to #{hand.target} ({describe(pragmatic.query.objects[hand.target].properties)})" in out
    assert f"[{pragmatic.answer}]" in out and f"index {pragmatic.answer_index}" in out
    # info.json or episode.json name the same episode
    assert mewl("inspect", tmp_path / "info.json")[1] == out


ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\r\nforged line"
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # C0 but the lines' own breaks, DEL, C1


def test_an_items_words_reach_the_terminal_escaped(tmp_path, mewl, pragmatic):
    """Choices and lexicon words that hold terminal escapes (a window title, a cleared screen) and line breaks
    print as their escapes, on the lines they belong to."""
    data = json.loads(pragmatic.model_dump_json())
    data["choices"] = [c if c == pragmatic.answer else c + ESCAPES for c in data["choices"]]
    data["lexicon"] = {**data["lexicon"], "word" + ESCAPES: "red"}
    (tmp_path / "episode.json").write_text(json.dumps(data))
    (tmp_path / "info.json").write_text(json.dumps(info_json(pragmatic)))
    write_record(tmp_path)
    code, out, _ = mewl("inspect", tmp_path)
    assert code == 0 and not CONTROL.search(out), repr(out)
    assert out.count("\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\r\\nforged line") == 5  # four choices, one word
    assert not any(line.startswith("forged line") for line in out.splitlines())


def test_a_scene_spec_lists_objects_and_relations(tmp_path, mewl, pragmatic):
    scene = pragmatic.context_panels[0].scene
    path = tmp_path / "scene.json"
    path.write_text(scene.model_dump_json())
    code, out, _ = mewl("inspect", path)
    assert code == 0 and f"{len(scene.objects)} objects" in out
    assert out.count("has to its left") == len(scene.objects)
    code, _, err = mewl("inspect", path, "--overlay", tmp_path / "x.png")
    assert code == 2 and "not a render" in err and not (tmp_path / "x.png").exists()


def painted_truth(tmp_path, scene, corners=None):
    """Ground truth as the renderer builds it, from boxes painted in an index image
    (by default side by side; `corners` puts box i's top-left corner elsewhere)."""
    h, w = scene.camera.height, scene.camera.width
    index = np.zeros((h, w), dtype=np.int32)
    boxes = {}
    for i in range(len(scene.objects) + (scene.hand is not None)):
        x, y = corners[i] if corners else (10 + 40 * i, 20 + 10 * i)
        index[y : y + 30, x : x + 25] = i + 1
        boxes[i] = [x, y, 25, 30]
    truth = ground_truth.build(scene, index, image_filename="dax.png", device="cpu", blender_version="test")
    Image.new("RGB", (w, h), (128, 128, 128)).save(tmp_path / "dax.png")
    (tmp_path / "dax.json").write_text(json.dumps(truth))
    return boxes


def test_overlay_draws_every_box_and_marks_the_pointed_object(tmp_path, mewl, pragmatic):
    scene = next(p.scene for p in pragmatic.context_panels if p.scene.hand is not None)
    boxes = painted_truth(tmp_path, scene)
    target = scene.hand.target
    code, out, _ = mewl("inspect", tmp_path / "dax.png", "--overlay", tmp_path / "overlay.png")
    assert code == 0
    assert f"bbox {boxes[target]}" in out and f"points to #{target}" in out
    with Image.open(tmp_path / "overlay.png") as im:
        assert im.size == (scene.camera.width * SCALE, scene.camera.height * SCALE)
        x, y, w, h = boxes[target]
        # the right edge of the pointed box (its label sits above the top edge)
        assert im.getpixel(((x + w) * SCALE - 1, (y + h // 2) * SCALE)) == POINTED
        other = next(i for i in range(len(scene.objects)) if i != target)
        ox, oy, ow, oh = boxes[other]
        assert im.getpixel(((ox + ow) * SCALE - 1, (oy + oh // 2) * SCALE)) == (255, 255, 255)


def test_missing_or_broken_paths_are_one_line(tmp_path, mewl):
    code, _, err = mewl("inspect", tmp_path / "nothing.json")
    assert code == 2 and err.count("\n") == 1 and "no such file" in err
    (tmp_path / "bad.json").write_text("{not json")
    code, _, err = mewl("inspect", tmp_path / "bad.json")
    assert code == 2 and err.count("\n") == 1 and "not a JSON file" in err
    code, _, err = mewl("inspect", tmp_path)
    assert code == 2 and "no episode.json" in err


def test_labels_of_crowded_boxes_never_overlap_nor_leave_the_image():
    """Seven boxes piled up, some against the image's edges: each label finds its own spot."""
    size = (640, 480)
    boxes = [(300 + 6 * k, 200 + 4 * k, 350 + 6 * k, 260 + 4 * k) for k in range(4)]
    boxes += [(0, 0, 40, 40), (600, 440, 639, 479), (620, 0, 639, 30)]
    labels = [(221, 12), (180, 12), (200, 12), (160, 12), (190, 12), (170, 12), (31, 10)]
    corners = place_labels(size, boxes, labels)
    rects = [(x, y, x + w, y + h) for (x, y), (w, h) in zip(corners, labels)]
    for k, (x0, y0, x1, y1) in enumerate(rects):
        assert 0 <= x0 and 0 <= y0 and x1 <= size[0] and y1 <= size[1], f"label {k} leaves the image"
        for m, (a0, b0, a1, b1) in enumerate(rects[:k]):
            assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0, f"labels {m} and {k} overlap"
    # a label sits next to its own box: just above it where that is free
    assert rects[0][:2] == (300, 200 - 12)
    assert all(abs(r[1] - b[1]) < 80 for r, b in zip(rects, boxes))


def test_a_label_that_finds_no_room_goes_below_the_image():
    corners = place_labels((100, 30), [(0, 0, 10, 10), (50, 0, 60, 10)], [(90, 20), (90, 20)])
    assert corners[0] is not None and corners[1] is None


def test_overlay_of_objects_close_together(tmp_path, mewl, pragmatic):
    scene = next(p.scene for p in pragmatic.context_panels if p.scene.hand is not None)
    painted_truth(tmp_path, scene, corners=[(100 + 8 * i, 100 + 6 * i) for i in range(4)])
    code, _, err = mewl("inspect", tmp_path / "dax.json", "--overlay", tmp_path / "crowded.jpg")
    assert code == 0, err
    with Image.open(tmp_path / "crowded.jpg") as im:
        assert im.format == "JPEG" and im.size == (scene.camera.width * SCALE, scene.camera.height * SCALE)


def test_an_unknown_overlay_type_is_one_line_before_any_work(tmp_path, mewl, pragmatic):
    painted_truth(tmp_path, pragmatic.context_panels[0].scene)
    code, out, err = mewl("inspect", tmp_path / "dax.png", "--overlay", tmp_path / "boxes.bmp")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown image type '.bmp'; name it .png or .jpg or .jpeg" in err
    code, _, err = mewl("inspect", tmp_path / "dax.png", "--overlay", tmp_path / "no/such/folder/x.png")
    assert code == 2 and err.count("\n") == 1 and "cannot write --overlay" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dax.json", "dax.png"]


# What each benchmark's overlay says under its picture: its label or answer, in the item's own words.
SAYS = {"mewl": "answer", "malevic": ": true", "shapeworld": "agrees", "icy": "named", "bongard": "positive"}


@pytest.mark.render  # reads the session's render
@pytest.mark.parametrize("benchmark", sorted(catalog.benchmarks()))
def test_an_items_overlay_shows_its_pictures_its_words_and_what_it_is_about(benchmark, tmp_path, mewl):
    """The first task of every benchmark, as rendered: the sheet holds the item's pictures only (a one-image
    item is one picture wide, not four), each caption gives what the item says of it with its answer, and
    the objects the item is about (MALeViC's target, ShapeWorld's referents) are boxed in red."""
    task = catalog.benchmarks()[benchmark].tasks[0].name
    folder = rendered_all() / "train" / task / "0"
    item = catalog.read_item(folder)
    code, _, err = mewl("inspect", folder, "--overlay", tmp_path / "overlay.png")
    assert code == 0, err
    scenes = item.scenes()
    width = max(s.camera.width for s in scenes.values()) * SCALE
    with Image.open(tmp_path / "overlay.png") as im:
        assert im.width == min(4, len(scenes)) * width
        pixels = np.asarray(im.convert("RGB"))
    captions = item.overlay_captions()
    assert list(captions) == list(scenes)
    assert SAYS.get(benchmark, "") in " ".join(captions.values()), captions
    for name, marked in item.overlay_marked().items():
        truth = json.loads((folder / f"{name}.json").read_text())
        for i in marked:
            x, y, w, h = truth["objects"][i]["bbox"]
            if not (w and h):
                continue  # hidden: no box to draw
            k = list(scenes).index(name)  # its tile: row k // 4, column k % 4, under an 18-pixel caption bar
            top, left = (k // 4) * (scenes[name].camera.height * SCALE + 18) + 18, (k % 4) * width
            edge = pixels[top + y * SCALE, left + x * SCALE:left + (x + w) * SCALE]
            assert (edge == POINTED).all(axis=1).any(), f"{name} object {i} not boxed in red"
