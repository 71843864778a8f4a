"""`mewl render --task malevic` end to end at preview quality (the session's render of every task, whose
MALeViC items are one of each task), checked from the files alone: every label recomputed from the sizes in image.json, every
sentence's target unique, the index complete, the pixels where the ground
truth says, and every object mostly visible as item.json claims."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.tasks.malevic import solver
from tests.command import mewl_here as mewl
from tests.conftest import rendered_all

pytestmark = [pytest.mark.e2e, pytest.mark.render]

TASKS = ("malevic-sup1", "malevic-pos1", "malevic-pos", "malevic-setpos", "malevic-pos-hard", "malevic-setpos-hard")
N = 1


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """A copy of the session's render (these tests rewrite its index files)."""
    out = tmp_path_factory.mktemp("malevic") / "d"
    shutil.copytree(rendered_all(), out)
    return out


def test_every_task_renders_and_the_files_alone_give_every_label(rendered):
    for task in TASKS:
        for i in range(N):
            folder = rendered / "train" / task / str(i)
            assert sorted(p.name for p in folder.iterdir()) == ["_checksums.json", "image.json", "image.png", "item.json"]
            item, truth = json.loads((folder / "item.json").read_text()), json.loads((folder / "image.json").read_text())
            target, reference = solver.described(item["sentence"], truth)  # raises unless exactly one object fits
            assert (target, reference) == (item["target"], item["reference"])
            assert solver.solve(item, truth) == item["label"], f"{folder}: the sizes say otherwise"
            assert [o["3d_coords"][2] for o in truth["objects"]] == pytest.approx(item["sizes"])


def test_the_pixels_show_each_object_mostly_unoccluded_where_the_truth_says(rendered):
    for task in TASKS:
        folder = rendered / "train" / task / "0"
        item, truth = json.loads((folder / "item.json").read_text()), json.loads((folder / "image.json").read_text())
        image = np.asarray(Image.open(folder / "image.png").convert("RGB"))
        assert image.shape[:2] == (360, 480)
        for k, o in enumerate(truth["objects"]):
            mask = mask_utils.decode({"size": o["mask"]["size"], "counts": o["mask"]["counts"].encode()}).astype(bool)
            assert mask.sum() == o["visible_pixels"] > 0
            # Cycles' anti-aliased edges and the cubes' bevels: the real count is near the analytic estimate.
            claimed = item["visible_fraction"][k] * item["projected_area"][k]
            assert 0.8 * claimed <= o["visible_pixels"] <= 1.2 * item["projected_area"][k]
            ys, xs = np.nonzero(mask)
            assert image[ys, xs].std() > 0  # an object, not the flat floor


def test_the_index_lists_every_complete_item_and_rebuilds_to_the_same_bytes(rendered):
    for task in TASKS:
        index = rendered / "train" / f"{task}.jsonl"
        lines = [json.loads(line) for line in index.read_text().splitlines()]
        assert [line["path"] for line in lines] == [f"train/{task}/{i}" for i in range(N)]
        for line in lines:
            item = json.loads((rendered / line["path"] / "item.json").read_text())
            assert (line["sentence"], line["label"], line["target"]) == (item["sentence"], item["label"], item["target"])
    before = {p: p.read_bytes() for p in (rendered / "train").glob("*.jsonl")}
    for p in before:
        p.unlink()
    r = mewl("index", rendered)
    assert r.returncode == 0 and sum(f"{t}.jsonl" in line for t in TASKS for line in r.stdout.splitlines()) == len(TASKS)
    assert {p: p.read_bytes() for p in before} == before


def test_validate_verify_and_status_read_malevic_items(rendered):
    r = mewl("validate", str(rendered / "train" / "malevic-setpos" / "0"))
    assert r.returncode == 0 and "valid malevic-setpos item 0" in r.stdout
    assert mewl("verify", str(rendered)).returncode == 0
    r = mewl("status", str(rendered))
    assert r.returncode == 0 and all(t in r.stdout for t in TASKS)
    card = (rendered / "README.md").read_text()
    assert "MALeViC" in card and "jsonl" in card


def test_the_malevic_audit_reads_the_rendered_files(rendered):
    r = mewl("audit", "malevic", rendered, "--markdown")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line.split(" | ") for line in r.stdout.splitlines()[2:]]
    assert sorted(row[1] for row in rows) == sorted(TASKS) and {row[0].strip("| ") for row in rows} == {"train"}
    assert all(row[3] == "1.000" and row[-1].strip(" |") == "ok" for row in rows)  # the oracle gets every label
