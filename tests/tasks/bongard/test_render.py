"""Bongard end to end: one rendered problem per family (pos_0..neg_5, test_a, test_b), checked from its
files alone.

The file-only checker (tasks/bongard/solver.py) rebuilds all fourteen
panels from the renderer's `<name>.json` and must find the problem fair and
every image on its side; a solver reading only the images' ground truth
answers both test images right; and the pixels show every object the ground
truth lists where its mask says (not the flat floor)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.tasks.bongard.audit import rendered_truths
from mewl_gen.tasks.bongard.solver import NAMES, answer, check
from tests.conftest import rendered_all, stored_items

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def rendered():
    """Problem 0 of each family, from the session's one preview render of every task (conftest)."""
    return sorted(rendered_all().glob("train/bongard-*/0"))


def test_the_files_alone_prove_each_rendered_problem_fair(rendered):
    assert [f.parent.name for f in rendered] == ["bongard-abstract", "bongard-basic", "bongard-freeform"]
    stored = stored_items(rendered_all(), "bongard-")
    assert [s.folder for s in stored] == rendered
    for problem in stored:
        item, images = problem.record(), rendered_truths(problem)
        assert images is not None and check(item, images) == [], problem.key
        assert answer(item, images) == item["test_positive"]


def test_the_pixels_show_every_object_where_the_truth_says(rendered):
    for folder in rendered:
        for name in NAMES:
            truth = json.loads((folder / f"{name}.json").read_text())
            image = np.asarray(Image.open(folder / f"{name}.png").convert("RGB"))
            for o in truth["objects"]:
                mask = mask_utils.decode({"size": o["mask"]["size"], "counts": o["mask"]["counts"].encode()})
                ys, xs = np.nonzero(mask)
                assert len(ys) == o["visible_pixels"] > 0, (folder, name, o["description"])
                assert image[ys, xs].std() > 0  # an object, not the flat floor


def test_the_audit_reads_rendered_problems_and_their_pixels(rendered, mewl):
    # --no-card: the render is the session's shared one, whose card other tests pin
    code, printed, err = mewl("audit", "bongard", rendered[0].parents[2], "--markdown", "--no-card")
    assert code == 0, err
    rows = [line for line in printed.splitlines() if line.startswith("| train")]
    assert len(rows) == 3 and all("| 1.000 | 1.000 |" in r and "| pixels |" in r and r.endswith("| ok |")
                                  for r in rows), rows
