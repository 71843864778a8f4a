"""`mewl render-spec`: one scene spec to an image and its ground truth."""
from __future__ import annotations

import json

import pytest
from PIL import Image

from mewl_gen.scenes.quality import with_quality
from mewl_gen.tasks.catalog import sample_item
from tests.command import mewl_here as mewl


@pytest.mark.render
def test_render_spec_writes_image_and_ground_truth(tmp_path):
    spec = sample_item("pragmatic", 3, "train", 0).query
    path = tmp_path / "query.json"
    path.write_text(spec.model_dump_json())
    r = mewl("render-spec", path, "--out", tmp_path / "out", "--quality", "draft", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    assert Image.open(tmp_path / "out/query.png").size == (320, 240)
    truth = json.loads((tmp_path / "out/query.json").read_text())
    assert truth["points_to"] == spec.hand.target
    assert len(truth["objects"]) == len(spec.objects) + 1 and truth["objects"][-1]["shape"] == "arrow"  # MEWL lists the hand last


def test_render_spec_refuses_bad_files_and_devices_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"objects": []}')
    for args in (["render-spec", bad, "--out", tmp_path], ["render-spec", tmp_path / "none.json", "--out", tmp_path],
                 ["render-spec", bad, "--out", tmp_path, "--device", "vulkan"]):
        r = mewl(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.render
def test_render_spec_renders_one_named_panel_of_an_episode(tmp_path):
    episode = sample_item("shape", 2, "train", 0)  # panel names hold a space and '#'
    path = tmp_path / "episode.json"
    path.write_text(episode.model_dump_json())
    r = mewl("render-spec", path, "--out", tmp_path / "out", "--quality", "draft", "--device", "cpu")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--panel NAME" in r.stderr, r.stderr
    assert all(repr(p.name) in r.stderr for p in episode.context_panels) and "'question'" in r.stderr
    assert not (tmp_path / "out").exists()

    panel = episode.context_panels[4]
    r = mewl("render-spec", path, "--out", tmp_path / "out", "--quality", "draft", "--device", "cpu",
             "--panel", panel.name)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f"{panel.name}.json", f"{panel.name}.png"]
    truth = json.loads((tmp_path / f"out/{panel.name}.json").read_text())
    assert truth["spec_hash"] == with_quality(panel.scene, "draft").spec_hash()  # that panel, no other


def test_render_spec_refuses_a_panel_it_cannot_find(tmp_path):
    episode = sample_item("shape", 2, "train", 0)
    path = tmp_path / "episode.json"
    path.write_text(episode.model_dump_json())
    r = mewl("render-spec", path, "--out", tmp_path / "out", "--panel", "nope")
    assert r.returncode == 2 and "has no panel 'nope'" in r.stderr and r.stderr.count("\n") == 1
    scene = tmp_path / "scene.json"
    scene.write_text(episode.query.model_dump_json())
    r = mewl("render-spec", scene, "--out", tmp_path / "out", "--panel", "question")
    assert r.returncode == 2 and "is a single scene spec" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()
