"""`mewl render-spec`: one scene spec to an image and its ground truth."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from PIL import Image

from tasks import sample_episode

pytestmark = pytest.mark.render


def mewl(*args):
    return subprocess.run([sys.executable, "-m", "cluster.cli", *map(str, args)], capture_output=True, text=True)


def test_render_spec_writes_image_and_ground_truth(tmp_path):
    spec = sample_episode("pragmatic", 3, "train", 0).query
    path = tmp_path / "query.json"
    path.write_text(spec.model_dump_json())
    r = mewl("render-spec", path, "--out", tmp_path / "out", "--quality", "draft", "--device", "cpu")
    assert r.returncode == 0, r.stderr
    assert Image.open(tmp_path / "out/query.png").size == (320, 240)
    truth = json.loads((tmp_path / "out/query.json").read_text())
    assert truth["points_to"] == spec.hand.target and len(truth["objects"]) == 3


def test_render_spec_refuses_bad_files_and_devices_in_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"objects": []}')
    for args in (["render-spec", bad, "--out", tmp_path], ["render-spec", tmp_path / "none.json", "--out", tmp_path],
                 ["render-spec", bad, "--out", tmp_path, "--device", "vulkan"]):
        r = mewl(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert not list(tmp_path.glob("*.png"))
