"""The public surface a user imports (mewl_gen's __init__, docs/api.md): one import name, cheap to
import, and a dataset opened, read and scored through it."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import setuptools

import mewl_gen
from mewl_gen.errors import UserError
from tests.conftest import run_mewl

ROOT = Path(__file__).resolve().parents[1]


def test_the_project_installs_one_import_name():
    """What `pip install .` puts at the top of site-packages: the packages found under src/, all in mewl_gen."""
    found = setuptools.find_packages(where=str(ROOT / "src"))
    assert {p.split(".")[0] for p in found} == {"mewl_gen"}
    assert sorted(p.name for p in (ROOT / "src").iterdir() if not p.name.endswith(".egg-info")) == ["mewl_gen"]


def test_importing_mewl_gen_loads_none_of_its_rooms():
    code = "import mewl_gen, sys; print(sorted(m for m in sys.modules if m.startswith('mewl_gen.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_python_dash_m_mewl_gen_is_the_command():
    done = subprocess.run([sys.executable, "-m", "mewl_gen", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith(mewl_gen.version()), done.stderr


@pytest.fixture(scope="module")
def sampled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("api") / "data"
    assert run_mewl("sample", "--task", "shape,malevic-pos", "--n", 3, "--out", out, "--workers", 1) == 0
    return out


def test_a_dataset_is_opened_read_and_scored(sampled, tmp_path):
    data = mewl_gen.open_dataset(sampled)
    assert data.splits == ["train"] and data.tasks == ["shape", "malevic-pos"] and len(data) == 6
    assert data.damaged == []
    stored = list(data.items(task="shape"))
    assert [s.index for s in stored] == [0, 1, 2]
    item = stored[0].item()
    assert isinstance(item, mewl_gen.item_model("shape"))
    assert mewl_gen.read_item(stored[0].folder) == item
    assert stored[0].image("question") is None  # sampled, not rendered
    assert "pragmatic" in mewl_gen.task_names()

    lines = [{"split": s.split, "task": s.task, "index": s.index, "answer": s.item().solution()}
             for s in data.items()]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scores, problems = mewl_gen.score(sampled, predictions)
    assert [(s.task, s.n, s.accuracy) for s in scores] == [("shape", 3, 1.0), ("malevic-pos", 3, 1.0)]
    assert problems.lines() == []


def test_a_damaged_item_is_left_out_and_named(sampled, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(sampled, copy)
    record = copy / "train" / "shape" / "1" / "episode.json"
    data = bytearray(record.read_bytes())
    data[-3] ^= 1  # one byte, same size
    record.write_bytes(bytes(data))
    opened = mewl_gen.open_dataset(copy)
    assert [s.index for s in opened.items(task="shape")] == [0, 2]
    assert len(opened.damaged) == 1 and opened.damaged[0].startswith("train/shape/1: ")


def test_a_folder_that_is_no_dataset_is_one_error(tmp_path):
    with pytest.raises(UserError, match="is not a folder"):
        mewl_gen.open_dataset(tmp_path / "nothing")


@pytest.mark.render  # reads the session's render
def test_the_api_pages_code_runs_as_written_on_a_rendered_dataset(tmp_path, monkeypatch, mewl):
    """docs/api.md's blocks, in order and in one namespace, in a folder holding `data` (the session's render
    of every task) and `predictions.jsonl` (one valid line per task, as `mewl eval data --example` prints)."""
    from tests.blocks import blocks
    from tests.conftest import rendered_all

    shutil.copytree(rendered_all(), tmp_path / "data")
    code, printed, err = mewl("eval", tmp_path / "data", "--example")
    assert code == 0, err
    (tmp_path / "predictions.jsonl").write_text(printed)
    monkeypatch.chdir(tmp_path)
    found, namespace = blocks((ROOT / "docs" / "api.md").read_text(), "python"), {}
    assert len(found) == 3
    for code in found:
        exec(compile(code, "docs/api.md", "exec"), namespace)
    assert namespace["item"].task == "pragmatic" and namespace["png"] is not None
    assert namespace["scores"] and all(s.accuracy == 1.0 for s in namespace["scores"])
