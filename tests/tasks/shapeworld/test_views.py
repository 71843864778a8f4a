"""The learned probes of ShapeWorld with the caption or the scene withheld (tasks.shapeworld.views) stay at
1/2 on sampled items, fitted on another seed's, and find a planted marker: a scene whose agreeing
captions get one more object than the others."""
from __future__ import annotations

import pytest

from mewl_gen.tasks.audit.views import halves_probe
from mewl_gen.tasks.shapeworld.views import caption_view, scene_view
from tests.conftest import FEW, episodes, sweep

TASKS = ("shapeworld-existential", "shapeworld-relational", "shapeworld-quantification", "shapeworld-logical")
VIEWS = {"scene": lambda it: scene_view(it["scene"]), "caption": lambda it: caption_view(it["caption"], it["logical_form"])}


def records(task: str, seed: int, n: int = sweep(200, 400)) -> list[dict]:
    return [it.model_dump(mode="json") for it in episodes(task, n, seed=seed)]


def test_the_views_read_one_half_each():
    item = records(TASKS[1], 0, FEW)[0]
    scene, caption = VIEWS["scene"](item), VIEWS["caption"](item)
    assert not any(k.startswith(("words", "form")) for k in scene)
    assert all(k.startswith(("words", "form")) for k in caption)
    assert scene["objects': count"] == len(item["scene"]["objects"])


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("view", VIEWS)
def test_each_probe_is_at_one_half_on_sampled_items(task, view):
    scored, fitted = records(task, 0), records(task, 1)
    found = halves_probe([(it["index"], VIEWS[view](it), it["agreement"]) for it in scored],
                         [(VIEWS[view](it), it["agreement"]) for it in fitted], 0.5)
    assert found.n == len(scored) and not found.leaks, found.cell()


@pytest.mark.slow
def test_the_scene_probe_finds_a_planted_marker():
    """An agreeing item's scene given one object more than drawn (a copy of its first, moved away)."""
    def planted(it: dict) -> dict:
        if it["agreement"]:
            first = it["scene"]["objects"][0]
            it = {**it, "scene": {**it["scene"], "objects": [*it["scene"]["objects"],
                                                             {**first, "position": [9.0, 9.0]}]}}
        return it

    scored, fitted = [planted(it) for it in records(TASKS[0], 0)], [planted(it) for it in records(TASKS[0], 1)]
    found = halves_probe([(it["index"], VIEWS["scene"](it), it["agreement"]) for it in scored],
                         [(VIEWS["scene"](it), it["agreement"]) for it in fitted], 0.5)
    assert found.leaks, found.cell()
