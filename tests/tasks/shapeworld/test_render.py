"""ShapeWorld end to end: rendered items, re-evaluated from their files alone.

A real preview render of one item per task; the file-only evaluator
(tasks/shapeworld/solver.py) reads item.json and the renderer's image.json
and must reach every stored agreement, and the near miss the other way."""
from __future__ import annotations

import json

import pytest

from mewl_gen.tasks.shapeworld.solver import agrees
from tests.conftest import rendered_all, stored_items

pytestmark = pytest.mark.render


def test_the_file_only_evaluator_agrees_with_rendered_items():
    """Item 0 of each task, from the session's one preview render of every task (conftest)."""
    out = rendered_all()
    items = stored_items(out, "shapeworld-")
    assert len(items) == 4
    for stored in items:
        item, image = stored.record(), stored.truth("image")
        assert image is not None and agrees(item["logical_form"], image) == item["agreement"], stored.key
        assert agrees(item["near_miss"]["logical_form"], image) != item["agreement"], stored.key
    index = [json.loads(line) for line in (out / "train/shapeworld-relational.jsonl").read_text().splitlines()]
    assert [e["path"] for e in index] == ["train/shapeworld-relational/0"] and "caption" in index[0]
