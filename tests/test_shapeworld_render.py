"""ShapeWorld end to end: rendered items, re-evaluated from their files alone.

A real draft render of one item per task; the file-only evaluator
(tasks/shapeworld/solver.py) reads item.json and the renderer's image.json
and must reach every stored agreement, and the near miss the other way."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tasks.shapeworld.solver import agrees, check_folder

pytestmark = pytest.mark.render


def test_the_file_only_evaluator_agrees_with_rendered_items(tmp_path):
    r = subprocess.run([sys.executable, "-m", "cli", "render", "--task", "shapeworld", "--n", "1",
                        "--out", tmp_path, "--quality", "draft", "--device", "cpu", "--workers", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    folders = sorted(tmp_path.glob("train/shapeworld-*/0"))
    assert len(folders) == 4
    for folder in folders:
        stored, recomputed = check_folder(folder)
        assert stored == recomputed, folder
        miss = json.loads((folder / "item.json").read_text())["near_miss"]["logical_form"]
        assert agrees(miss, json.loads((folder / "image.json").read_text())) != stored, folder
    index = [json.loads(line) for line in (tmp_path / "train/shapeworld-relational.jsonl").read_text().splitlines()]
    assert [e["path"] for e in index] == ["train/shapeworld-relational/0"] and "caption" in index[0]
