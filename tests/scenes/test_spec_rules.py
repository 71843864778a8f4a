"""Specs that cannot render are refused by `mewl validate` and `mewl render-spec`
in one line naming the field, before Blender starts; every sampled spec passes
the same rules with its JSON unchanged."""
from __future__ import annotations

import copy
import json

import pytest

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.mewl.item import TASKS, Episode


@pytest.fixture(scope="module")
def episode() -> dict:
    return json.loads(sample_item("pragmatic", 0, "train", 1).model_dump_json())


def broken(data: dict, change) -> dict:
    data = copy.deepcopy(data)
    change(data)
    return data


def set_path(data, path: str, value) -> None:
    *head, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    for key in head:
        data = data[key]
    data[last] = value


def overlap(scene: dict) -> None:
    scene["objects"][1]["position"] = [scene["objects"][0]["position"][0] + 0.1, scene["objects"][0]["position"][1]]


# (what is broken, the field the message must name, words of the reason)
EPISODE_CASES = [
    ("query.objects.0.position.0", float("nan"), "query.objects.0.position.0", "finite number"),
    ("context_panels.2.scene.lights.1.energy", float("inf"), "context_panels.2.scene.lights.1.energy", "finite number"),
    ("query.camera.location.2", float("-inf"), "query.camera.location.2", "finite number"),
    ("query.objects.1.position.1", -3.2, "query.objects.1.position.1", "greater than or equal to -3"),
    ("context_panels.0.scene.objects.0.position.0", 7.0, "context_panels.0.scene.objects.0.position.0", "less than or equal to 3"),
    ("query.hand.position.0", 9.0, "query.hand.position.0", "less than or equal to 3.5"),
    ("query.hand.target", 3, "query.hand.target", "not the index of one of the 3 objects"),
    ("query.camera.width", 100_000, "query.camera.width", "less than or equal to 8192"),
    ("query.camera.height", 4, "query.camera.height", "greater than or equal to 16"),
    ("query.render.samples", 1_000_000, "query.render.samples", "less than or equal to 8192"),
    ("query.render.max_bounces", 5000, "query.render.max_bounces", "less than or equal to 1024"),
    ("split", "../x", "split", "should match pattern"),
    ("split", "/abs", "split", "should match pattern"),
    ("context_panels.1.name", "question", "context_panels.1.name", "a release file's name"),
]


@pytest.mark.parametrize("path, value, field, reason", EPISODE_CASES, ids=[c[0] + "=" + str(c[1]) for c in EPISODE_CASES])
def test_validate_and_render_spec_name_the_broken_field(tmp_path, mewl, episode, path, value, field, reason):
    bad = tmp_path / "episode.json"
    bad.write_text(json.dumps(broken(episode, lambda d: set_path(d, path, value))))
    code, _, err = mewl("validate", bad)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"invalid Episode: {field}: " in err and reason in err, err
    # render-spec reads the same rules, so it stops before starting Blender
    code, _, err = mewl("render-spec", bad, "--out", tmp_path / "out", "--panel", "question", "--device", "cpu")
    assert code == 2 and f"{field}: " in err and reason in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_overlapping_objects_and_a_hand_on_an_object_are_refused(tmp_path, mewl, episode):
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(broken(episode["query"], overlap)))
    code, _, err = mewl("validate", scene)
    assert code == 2 and "invalid SceneSpec: objects.1: footprint overlaps objects.0 (" in err, err
    code, _, err = mewl("render-spec", scene, "--out", tmp_path / "out", "--device", "cpu")
    assert code == 2 and "objects.1: footprint overlaps objects.0" in err and not (tmp_path / "out").exists()

    def hand_on_object(d):
        d["hand"]["position"] = d["objects"][0]["position"]
    scene.write_text(json.dumps(broken(episode["query"], hand_on_object)))
    code, _, err = mewl("validate", scene)
    assert code == 2 and "invalid SceneSpec: hand.position: the hand overlaps objects.0" in err, err


def test_an_overlap_inside_an_episode_names_the_panel(tmp_path, mewl, episode):
    bad = tmp_path / "episode.json"
    bad.write_text(json.dumps(broken(episode, lambda d: overlap(d["context_panels"][3]["scene"]))))
    code, _, err = mewl("validate", bad)
    assert code == 2 and "context_panels.3.scene.objects.1: footprint overlaps objects.0" in err, err


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.slow
def test_sampled_episodes_pass_every_rule_with_their_json_unchanged(task):
    for index in range(12):
        ep = sample_item(task, 3, "train", index)
        text = ep.model_dump_json()
        assert Episode.model_validate_json(text).model_dump_json() == text
        for panel in ep.context_panels:
            assert SceneSpec.model_validate(json.loads(panel.scene.model_dump_json())) == panel.scene
