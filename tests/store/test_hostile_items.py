"""A dataset from elsewhere whose items look sound to their records of checksums, yet are not what they
claim: images of another size than their scenes are rendered at, truths of the wrong types. Every reading
command names them in one line (no traceback), and leaves the folder outside OUT as it was."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from mewl_gen.store.writers import WRITER_FILE

from .hostile import (RENDERED_TASK, SAMPLED_TASK, copy, fake_render, mewl, one_line, outside_folder, rerecord,
                      snapshot)


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


@pytest.fixture(scope="module")
def one_rendered(tmp_path_factory) -> Path:
    """A real preview render of one item of one image, the smallest dataset `render --repair` works on."""
    out = tmp_path_factory.mktemp("repair") / "rendered"
    r = mewl(*render(1), out, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


def render(n: int) -> tuple:
    return ("render", "--task", RENDERED_TASK, "--n", n, "--seed", 3, "--quality", "preview", "--device", "cpu",
            "--workers", 1, "--out")


@pytest.mark.render
@pytest.mark.slow
def test_render_repair_renders_a_damaged_item_again_among_hostile_entries_it_never_follows(one_rendered, tmp_path):
    """One damaged item, and around it what a hostile author leaves: the next item's folder a link out
    of OUT, a FIFO in its claim's place, a damage note that is a link out, a dead writer's staging folder
    holding a FIFO and a link out, a set-aside folder that is a link out, a FIFO in an item's place. The
    repair renders the damaged item again, the same bytes as before; names the linked item damaged in
    one line, sets the link aside and renders that item anew; and reaches nothing outside OUT."""
    out, outside = copy(one_rendered, tmp_path / "out"), outside_folder(tmp_path)
    task = out / "train" / RENDERED_TASK
    genuine = {p.name: p.read_bytes() for p in (task / "0").iterdir()}
    shutil.copytree(task / "0", outside / "item")
    damaged = bytearray(genuine["image.png"])
    damaged[len(damaged) // 2] ^= 0xFF  # same size: only its checksum tells
    (task / "0" / "image.png").write_bytes(damaged)

    (task / "1").symlink_to(outside / "item")  # an item folder that leaves OUT
    os.mkfifo(task / "3")  # a FIFO where an item folder would be
    for folder in ("damaged", "claims"):
        (out / ".mewl" / folder / "train" / RENDERED_TASK).mkdir(parents=True, exist_ok=True)
    (out / ".mewl/damaged/train" / RENDERED_TASK / "7.json").symlink_to(outside / "0.json")  # a note that leaves OUT
    os.mkfifo(out / ".mewl/claims/train" / RENDERED_TASK / "1.json")  # a claim nobody writes to
    dead = out / ".staging" / "dead-writer"
    dead.mkdir(parents=True, exist_ok=True)
    os.mkfifo(dead / WRITER_FILE)
    (dead / "mine").symlink_to(outside / "secret.txt")
    (out / ".damaged" / "train" / RENDERED_TASK).mkdir(parents=True, exist_ok=True)
    (out / ".damaged" / "train" / RENDERED_TASK / "0-20250101T000000-abcd").symlink_to(outside)
    before = snapshot(outside)

    r = mewl(*render(2), out, "--repair", timeout=300)
    said = r.stdout + r.stderr
    assert r.returncode == 0, said
    assert "--repair found 2 damaged" in said, said
    assert "train/malevic-pos1/0: image.png: sha256 differs" in said
    assert [line for line in said.splitlines() if "train/malevic-pos1/1: " in line and "symbolic link" in line], said
    assert {p.name: p.read_bytes() for p in (task / "0").iterdir()} == genuine  # rendered again, byte for byte
    assert not (task / "1").is_symlink() and (task / "1" / "image.png").is_file()  # rendered anew, inside OUT
    assert any(p.is_symlink() for p in (out / ".damaged" / "train" / RENDERED_TASK).iterdir())  # the link, set aside
    assert snapshot(outside) == before
    assert all(os.stat(p).st_nlink == 1 for p in outside.rglob("*") if p.is_file() and not p.is_symlink())
    r = mewl("verify", out)
    assert r.returncode == 0 and "0 damaged" in r.stdout, r.stdout + r.stderr


@pytest.mark.render
@pytest.mark.slow
def test_render_repair_stops_before_rendering_when_the_set_aside_folder_leaves_out(one_rendered, tmp_path):
    out, outside = copy(one_rendered, tmp_path / "out"), outside_folder(tmp_path)
    image = out / "train" / RENDERED_TASK / "0" / "image.png"
    image.write_bytes(image.read_bytes()[:-1] + b"\0")
    (out / ".damaged").symlink_to(outside)  # where the damaged item would be moved
    before = snapshot(outside)
    r = mewl(*render(1), out, "--repair")
    line = [line for line in r.stderr.splitlines() if line.startswith("mewl: error")]
    assert r.returncode == 2 and len(line) == 1 and ".damaged: is a symbolic link" in line[0], r.stdout + r.stderr
    assert "worker(s)" not in r.stdout + r.stderr  # refused before any rendering started
    assert snapshot(outside) == before and image.exists()


@pytest.mark.slow
def test_a_foreign_item_is_damaged_in_every_command_alike(rendered):
    """An item whose record holds another folder's item (a copy under another index or split), and a folder
    whose name is no index as this tool writes one, are damaged for every reader alike, by one rule in the
    store's reader: named in one line and left out, and the rest verified, exported, shown, studied and
    scored; an audit, which reads sound items only, refuses the folder in one line."""
    w = rendered
    shutil.copytree(w.item(0), w.item(7))
    shutil.copytree(w.item(1), w.out / "train" / w.task / "007")
    shutil.copytree(w.item(2), w.out / "test" / w.task / "2")
    w.freeze()
    r = mewl("verify", w.out)
    assert r.returncode == 1 and "6 item(s) checked, 3 damaged" in r.stderr, r.stdout + r.stderr
    for key in ("train/malevic-pos1/7: item.json holds", "train/malevic-pos1/007: ", "test/malevic-pos1/2: item.json holds"):
        assert f"damaged: {key}" in r.stdout, r.stdout
    for to in ("hf", "webdataset"):
        r = mewl("export", w.out, "--to", to, w.root / to)
        assert r.returncode == 0 and "exported 3 items" in r.stdout and "left out 3 damaged" in r.stderr, r.stderr
    r = mewl("gallery", w.out, "--out", w.root / "gallery")
    assert r.returncode == 0 and "left out 3 damaged" in r.stderr, r.stderr
    assert not (w.root / "gallery" / "train" / w.task / "7.html").exists() and not (w.root / "gallery" / "test").exists()
    r = mewl("study", w.out, "--out", w.root / "study", "--task", w.task, "--split", "train", "--items", 3,
             "--practice", 0, "--catch", 0, "--pilot")
    assert r.returncode == 0 and "3 item(s)" in r.stdout and "left out 2 damaged" in r.stderr, r.stdout + r.stderr
    predictions = w.root / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"split": s, "task": w.task, "index": i, "answer": True}) + "\n"
                                   for s, i in [("train", 0), ("train", 1), ("train", 2), ("train", 7), ("test", 2)]))
    r = mewl("eval", w.out, predictions)
    assert r.returncode == 1 and "over 3 items; 3 damaged item(s) not scored" in r.stdout, r.stdout + r.stderr
    assert "train/malevic-pos1/000007 (item.json holds" in r.stderr and "test/malevic-pos1/000002 (" in r.stderr
    assert "damaged" in one_line(mewl("audit", w.out))
    w.untouched()


@pytest.mark.slow
def test_text_leaves_out_a_copy_under_another_index(sampled_source, tmp_path):
    """MEWL's text inputs read rendered episodes: a copy of episode 0 as episode 7 wrote a fourth line."""
    out = copy(sampled_source, tmp_path / "out")
    fake_render(out, SAMPLED_TASK)
    shutil.copytree(out / "train" / SAMPLED_TASK / "0", out / "train" / SAMPLED_TASK / "7")
    line = one_line(mewl("text", out), code=1)
    assert "left out 1 damaged" in line and "train/shape/7: episode.json holds the item train/shape/0" in line
    assert len((out / "train" / f"{SAMPLED_TASK}.text.jsonl").read_text().splitlines()) == 3
