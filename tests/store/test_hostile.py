"""A dataset from elsewhere is data, never a key: links out of OUT, FIFOs and devices where files should
be, size bombs, deep and mistyped JSON. Every reading command runs on them as its own process that may
grow by at most 2 GB and run for at most 60 s: it ends with its exit code and a short line, no traceback,
and a folder outside OUT keeps its listing and every byte."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from mewl_gen.store.layout import MANIFEST

from .hostile import RENDERED_TASK, mewl, one_line, png_claiming, rerecord, rle_claiming


@pytest.mark.slow
def test_a_linked_damage_folder_makes_verify_stop_before_deleting_anything_outside(sampled):
    w = sampled
    w.link(w.out / ".mewl" / "damaged" / "train" / w.task, w.outside)
    (w.item(0) / "episode.json").write_text("{}")  # damaged: verify would note it, and clear the notes of the others
    w.freeze()
    line = one_line(mewl("verify", w.out))
    assert "symbolic link" in line and ".mewl/damaged/train" in line
    one_line(mewl("render", "--task", w.task, "--n", 3, "--seed", 3, "--out", w.out, "--repair", "--quality", "draft",
                  "--device", "cpu", "--workers", 1))
    w.untouched()


@pytest.mark.parametrize("command", ["verify", "status", "audit"])
@pytest.mark.slow
def test_a_linked_bookkeeping_folder_is_neither_read_nor_written(sampled, command):
    w = sampled
    w.link(w.out / ".mewl", w.outside)
    w.freeze()
    r = mewl(command, w.out)
    assert r.returncode in (1, 2) and len(r.stderr.splitlines()) <= 3, r.stderr
    w.untouched()


@pytest.mark.slow
def test_a_linked_split_folder_stops_index_and_verify(rendered):
    w = rendered
    (w.outside / "train").mkdir()
    w.link(w.out / "train", w.outside / "train")
    w.freeze()
    for command in ("index", "verify"):
        assert "symbolic link" in one_line(mewl(command, w.out))
    w.untouched()


@pytest.mark.slow
def test_a_split_folder_named_with_a_trailing_line_break_is_no_split(rendered, tmp_path):
    """A pattern's `$` matches before a final line break: `train\\n` (a copy of train) must be no split,
    neither read, counted nor printed, and no command takes it as a split's name."""
    w = rendered
    shutil.copytree(w.out / "train", w.out / "train\n")
    r = mewl("verify", w.out)
    assert r.returncode == 0 and "3 item(s) checked, 0 damaged" in r.stdout, r.stdout + r.stderr
    for command in ("status", "index", "text"):  # text: this task has none, one line says so
        r = mewl(command, w.out)
        assert r.returncode == (2 if command == "text" else 0) and "train\n" not in r.stdout + r.stderr, r
    r = mewl("export", w.out, "--to", "hf", tmp_path / "exported")
    assert r.returncode == 0 and "train\n" not in r.stdout + r.stderr, r.stderr
    for command in (("sample", "--task", "shape", "--n", 1, "--out", tmp_path / "new"), ("index", w.out)):
        assert "split must be lowercase letters" in one_line(mewl(*command, "--split", "train\n"))


@pytest.mark.slow
def test_a_linked_item_folder_is_damaged_never_read_exported_or_linked(rendered):
    w = rendered
    import shutil
    shutil.copytree(w.item(1), w.outside / "item")
    w.link(w.item(1), w.outside / "item")
    w.freeze()
    r = mewl("verify", w.out)
    assert r.returncode == 1 and "train/malevic-pos1/1: " in r.stdout and "symbolic link" in r.stdout
    for to in ("hf", "webdataset"):
        r = mewl("export", w.out, "--to", to, w.root / to)
        assert r.returncode == 0 and "exported 2 items" in r.stdout, r.stderr
    r = mewl("gallery", w.out, "--out", w.root / "gallery")
    assert r.returncode == 0, r.stderr
    assert not (w.root / "gallery" / "train" / RENDERED_TASK / "1").exists()
    w.untouched()


@pytest.mark.slow
def test_a_linked_card_never_carries_a_file_from_elsewhere_into_an_export(rendered):
    w = rendered
    w.link(w.out / "README.md", w.outside / "secret.txt")
    w.freeze()
    line = one_line(mewl("export", w.out, "--to", "hf", w.root / "hf"))
    assert "README.md" in line and "symbolic link" in line
    assert not (w.root / "hf").exists()
    w.no_secret_in(w.root)
    w.untouched()


@pytest.mark.parametrize("what", ["record", "plan", "manifest", "truth"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.slow
def test_a_fifo_or_a_device_in_a_files_place_is_refused_without_waiting_or_swelling(rendered, what, kind):
    w = rendered
    at = {"record": w.item(0) / "_checksums.json", "plan": w.out / ".mewl/plan/train" / f"{w.task}.json",
          "manifest": w.out / MANIFEST, "truth": w.item(0) / "image.json"}[what]
    at.unlink()
    if kind == "fifo":
        os.mkfifo(at)
    else:
        at.symlink_to("/dev/zero")
    w.freeze()
    for command in (["verify", w.out], ["status", w.out], ["export", w.out, "--to", "webdataset", w.root / "wds"],
                    ["gallery", w.out, "--out", w.root / "gallery"]):
        r = mewl(*command)
        assert r.returncode in (0, 1, 2, 3) and len(r.stderr) < 2000, r.stderr
        if what == "manifest" or (what == "plan" and command[0] in ("verify", "status")):
            assert r.returncode == 2
    w.untouched()


@pytest.mark.slow
def test_a_plan_asking_a_billion_items_is_damaged_not_a_hang(sampled):
    w = sampled
    (w.out / ".mewl/plan/train" / f"{w.task}.json").write_text(json.dumps({"split": "train", "task": w.task, "n": 10**9}))
    for command in ("status", "verify"):
        assert "damaged" in one_line(mewl(command, w.out))


@pytest.mark.slow
def test_a_manifest_of_200_mb_is_refused_at_once(rendered):
    w = rendered
    os.truncate(w.out / MANIFEST, 200 << 20)
    for command in (["status", w.out], ["verify", w.out], ["export", w.out, "--to", "hf", w.root / "hf"]):
        assert "bytes" in one_line(mewl(*command))


@pytest.mark.parametrize("where", ["manifest", "plan", "record"])
@pytest.mark.slow
def test_deeply_nested_json_is_one_line(sampled, where):
    w = sampled
    deep = "[" * 100_000 + "]" * 100_000
    path = {"manifest": w.out / MANIFEST, "plan": w.out / ".mewl/plan/train" / f"{w.task}.json",
            "record": w.item(0) / "_checksums.json"}[where]
    path.write_text(deep)
    r = mewl("verify", w.out)
    if where == "record":
        assert r.returncode == 1 and "train/shape/0: no readable _checksums.json" in r.stdout
    else:
        one_line(r)


@pytest.mark.slow
def test_a_mistyped_manifest_names_its_field(sampled):
    w = sampled
    manifest = json.loads((w.out / MANIFEST).read_text())
    (w.out / MANIFEST).write_text(json.dumps({**manifest, "passes": 5}))
    assert "passes" in one_line(mewl("status", w.out))


@pytest.mark.slow
def test_a_manifest_of_a_newer_generator_or_with_unknown_fields_says_who_wrote_it(sampled):
    w = sampled
    manifest = json.loads((w.out / MANIFEST).read_text())
    (w.out / MANIFEST).write_text(json.dumps({**manifest, "generator": "mewl-gen 9.0.0"}))
    assert "mewl-gen 9.0.0" in one_line(mewl("verify", w.out))
    (w.out / MANIFEST).write_text(json.dumps({**manifest, "colour_space": "acescg"}))
    line = one_line(mewl("verify", w.out))
    assert "colour_space" in line and manifest["generator"] in line


@pytest.mark.slow
def test_an_item_damaged_at_the_same_size_stops_index_in_one_line(rendered):
    w = rendered
    path = w.item(0) / "item.json"
    text = path.read_text()
    path.write_text("[" + text[1:])  # same size: the record's sizes agree, its sha256 does not
    assert "item.json" in one_line(mewl("index", w.out))


@pytest.mark.slow
def test_an_image_claiming_12000_pixels_a_side_is_damaged_before_it_is_decoded(rendered):
    w = rendered
    png_claiming(w.item(0) / "image.png", 12000, 12000)
    rerecord(w.item(0))
    r = mewl("verify", w.out)
    assert r.returncode == 1 and "12000x12000" in r.stdout
    r = mewl("gallery", w.out, "--out", w.root / "gallery")
    assert r.returncode == 0 and "damaged" in r.stderr


@pytest.mark.slow
def test_a_mask_claiming_50000_pixels_a_side_is_not_drawn(rendered):
    w = rendered
    truth = json.loads((w.item(0) / "image.json").read_text())
    truth["objects"][0]["mask"] = rle_claiming(50000, 50000)
    (w.item(0) / "image.json").write_text(json.dumps(truth))
    rerecord(w.item(0))
    r = mewl("gallery", w.out, "--out", w.root / "gallery")
    assert r.returncode == 0, r.stderr
    truth["objects"][1]["mask"] = {"size": [float("nan"), 320], "counts": "0"}
    (w.item(0) / "image.json").write_text(json.dumps(truth))
    rerecord(w.item(0))
    r = mewl("inspect", w.item(0))
    assert r.returncode == 2 and "size" in one_line(r)


@pytest.mark.slow
def test_a_truth_without_a_box_is_one_line_in_inspect(rendered):
    w = rendered
    truth = json.loads((w.item(0) / "image.json").read_text())
    del truth["objects"][0]["bbox"]
    (w.item(0) / "image.json").write_text(json.dumps(truth))
    rerecord(w.item(0))
    assert "bbox" in one_line(mewl("inspect", w.item(0) / "image.json"))


@pytest.mark.slow
def test_an_item_whose_files_agree_with_its_record_yet_are_mistyped_is_left_out_of_text(sampled):
    w = sampled
    info = json.loads((w.item(0) / "info.json").read_text())
    info["question"] = 5
    (w.item(0) / "info.json").write_text(json.dumps(info))
    rerecord(w.item(0))
    line = one_line(mewl("text", w.out), code=1)
    assert "train/shape/0" in line and "left out" in line


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.slow
def test_a_manifest_lock_that_is_a_link_or_a_fifo_is_refused_without_writing_outside_or_waiting(sampled, kind):
    """A run that pins a benchmark's config new to OUT (render, --repair included, and sample) takes the
    manifest's lock: a link in its place made a file outside OUT, and a FIFO hung the run."""
    w = sampled
    lock = w.out / ".mewl" / "manifest.lock"
    if kind == "link":
        w.link(lock, w.outside / "made-by-the-lock")
    else:
        os.mkfifo(lock)
    w.freeze()
    line = one_line(mewl("sample", "--task", "icy-naming", "--n", 1, "--seed", 3, "--out", w.out, "--workers", 1))
    assert "manifest.lock" in line and ("symbolic link" if kind == "link" else "not a regular file") in line
    w.untouched()


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.slow
def test_inspect_and_validate_read_an_item_folder_without_a_record_through_the_door(rendered, kind):
    """Without a record of checksums nothing vouches for an item's files: a link in the place of its own
    file or of an image's truth beside it is refused, never followed to print a file from elsewhere."""
    w = rendered
    shutil.copy(w.item(1) / "item.json", w.outside / "item.json")
    shutil.copy(w.item(1) / "image.json", w.outside / "image.json")
    (w.item(0) / "_checksums.json").unlink()
    for name in ("item.json", "image.json"):
        if kind == "link":
            w.link(w.item(0) / name, w.outside / name)
        else:
            (w.item(0) / name).unlink()
            os.mkfifo(w.item(0) / name)
    w.freeze()
    for command in (["inspect", w.item(0)], ["validate", w.item(0)], ["inspect", w.item(0) / "image.png"]):
        r = mewl(*command)
        line = one_line(r)
        assert ("symbolic link" if kind == "link" else "not a regular file") in line and "item 1" not in r.stdout
    w.untouched()
