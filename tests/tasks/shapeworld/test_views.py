"""The learned probes of ShapeWorld with the caption or the scene withheld (tasks.shapeworld.views) stay at
1/2 on sampled items, fitted on another seed's, and find a planted marker: a scene whose agreeing
captions get one more object than the others. The marker scan of the caption's referents flags referents
made larger than the distractors, and the sampler's own bias towards the caption's descriptions, which
a sampler without it does not show."""
from __future__ import annotations

import importlib

import pytest

from mewl_gen.scenes.universe import TUPLE_ORDER
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit.markers import object_statistics, scan
from mewl_gen.tasks.audit.views import halves_probe
from mewl_gen.tasks.shapeworld.logic import phrases
from mewl_gen.tasks.shapeworld.views import STATEMENT, caption_view, referent_and_distractor, scene_view
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


# -- the marker scan of the caption's referents ------------------------------------------------------------

SCANNED = 300  # items per task, seed 0


def referents_scan(items: list[dict]):
    pairs = [p for p in map(referent_and_distractor, items) if p is not None]
    return scan([r for r, _ in pairs], [d for _, d in pairs])


def item(form: dict, objects: list[tuple[str, str, str, str]]) -> dict:
    return {"index": 7, "logical_form": form, "scene": {"objects": [dict(zip(TUPLE_ORDER, o)) for o in objects]}}


def test_a_referent_matches_a_stated_description_and_a_distractor_none():
    objects = [("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "small"), ("sphere", "red", "rubber", "small")]
    rows = object_statistics([dict(zip(TUPLE_ORDER, o)) for o in objects], TUPLE_ORDER)
    referent, distractor = referent_and_distractor(item({"kind": "exists", "subject": {"shape": "cube", "color": "red"}},
                                                        objects))
    assert referent == rows[0] and distractor in rows[1:]
    # 'most objects are red': the restrictor states nothing and names no object; its scope names the red ones.
    most = {"kind": "quantifier", "quantifier": "most", "restrictor": {}, "scope": {"color": "red"}}
    referent, distractor = referent_and_distractor(item(most, objects))
    assert referent in (rows[0], rows[2]) and distractor == rows[1]
    assert referent_and_distractor(item(most, objects[::2])) is None  # every object a referent


def larger_referents(it: dict) -> dict:
    """Every referent large and every distractor small, where the caption states no size (so the edit
    changes no object's match)."""
    stated = [d.stated for d in phrases(STATEMENT.validate_python(it["logical_form"])) if d.stated]
    if any("size" in d for d in stated):
        return it
    objects = [{**o, "size": "large" if any(all(o[a] == v for a, v in d.items()) for d in stated) else "small"}
               for o in it["scene"]["objects"]]
    return {**it, "scene": {**it["scene"], "objects": objects}}


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_the_scan_flags_referents_made_larger_than_the_distractors(task):
    found = referents_scan([larger_referents(it) for it in records(task, 0, SCANNED)])
    assert "size" in found.flagged, found.cell()


# The sampler draws each object from a description the caption pair mentions with chance sample.MENTIONED
# (0.6), so its referents share their color and size with another object more often than the distractors:
# flagged on quantification at 300 items of seed 0 (p 2.2e-06), on existential and logical at 1,000 of
# another seed (docs/audit.md). Not fixed here: the fix moves every ShapeWorld pin.
@pytest.mark.slow
@pytest.mark.parametrize("task", [pytest.param(t, marks=pytest.mark.xfail(
    strict=True, reason="referents drawn from the caption's descriptions (MENTIONED)"))
    if t == "shapeworld-quantification" else t for t in TASKS])
def test_the_samplers_referents_pass(task):
    found = referents_scan(records(task, 0, SCANNED))
    assert found.n[0] > SCANNED / 3 and not found.flagged, found.cell()


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_a_sampler_that_draws_no_object_from_the_captions_passes(task, monkeypatch):
    """The same sampler, every object drawn uniformly: what is left of the referents (they decide the
    caption, which keeps or redraws their counts) is no marker."""
    monkeypatch.setattr(importlib.import_module("mewl_gen.tasks.shapeworld.sample"), "MENTIONED", 0.0)
    found = referents_scan([catalog.sample_item(task, 0, "train", i).model_dump(mode="json") for i in range(SCANNED)])
    assert found.n[0] > SCANNED / 3 and not found.flagged, found.cell()
