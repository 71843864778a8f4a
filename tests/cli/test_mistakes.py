"""What a user types wrong, as a process: one line, exit 2, before any
work starts, and nothing already written is touched."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.command import mewl_here as mewl

ROOT = Path(__file__).resolve().parents[2]


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


def refused(r, *words) -> bool:
    return (r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
            and all(w in r.stderr for w in words))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mistakes") / "data"
    r = mewl("sample", "--task", "shape", "--n", 1, "--out", out, "--workers", 1)
    assert r.returncode == 0, r.stderr
    return out


def test_files_written_for_the_user_never_replace_a_datasets_files(data, tmp_path):
    before = digest(data)
    episode = data / "train/shape/0"
    for args in (["slurm", "--task", "shape", "--n", 2, "--array", 1, "--out", tmp_path / "new",
                  "--script", episode / "episode.json", "--force"],
                 ["inspect", episode, "--overlay", episode / "question.png", "--force"],
                 ["render-spec", episode / "episode.json", "--panel", "question", "--out", episode, "--force"],
                 ["render-spec", episode / "episode.json", "--panel", "question", "--out", episode / "sub"]):
        r = mewl(*args)
        assert refused(r, "inside the dataset"), (args, r.stderr)
    r = mewl("slurm", "--task", "shape", "--n", 2, "--array", 1, "--out", tmp_path / "new",
             "--script", tmp_path / "new" / "render.sbatch")
    assert refused(r, "inside --out") and not (tmp_path / "new").exists()
    assert digest(data) == before


def test_outputs_named_inside_a_dataset_are_refused_before_any_work(data, tmp_path):
    """Every output a user names (export's and gallery's DIR, study's --out and --key, study score's --to,
    eval's --plot) lies outside OUT and outside any other dataset, an item's folder included: study's --key
    and score's --to inside an item folder were written there, and the item was damaged."""
    import shutil

    other = shutil.copytree(data, tmp_path / "other")
    before = digest(data), digest(other)
    episode, theirs = data / "train/shape/0", other / "train/shape/0"
    (tmp_path / "predictions.jsonl").write_text("")
    for args in (["study", data, "--out", tmp_path / "study", "--key", episode / "key.json"],
                 ["study", data, "--out", tmp_path / "study", "--key", theirs / "key.json"],
                 ["study", "score", tmp_path / "study", tmp_path / "results.json", "--to", episode / "scores"],
                 ["export", data, "--to", "hf", episode / "hf"], ["export", data, "--to", "webdataset", other / "wds"],
                 ["gallery", data, theirs / "gallery"], ["study", data, "--out", other / "study"],
                 ["eval", data, tmp_path / "predictions.jsonl", "--plot", theirs / "acc.png"]):
        r = mewl(*args)
        assert refused(r, "lies inside"), (args, r.stderr)
    assert (digest(data), digest(other)) == before and not (tmp_path / "study").exists()


def test_an_existing_file_is_replaced_only_with_force(data, tmp_path):
    mine = tmp_path / "mine.sbatch"
    mine.write_text("my own script\n")
    args = ["slurm", "--task", "shape", "--n", 2, "--array", 1, "--out", tmp_path / "new", "--script", mine]
    assert refused(mewl(*args), "exists", "--force") and mine.read_text() == "my own script\n"
    assert mewl(*args, "--force").returncode == 0 and "#SBATCH" in mine.read_text()

    picture = tmp_path / "holiday.png"
    picture.write_bytes(b"not an overlay")
    r = mewl("inspect", data / "train/shape/0", "--overlay", picture)
    assert refused(r, "exists", "--force") and picture.read_bytes() == b"not an overlay"
    assert r.stdout == ""  # refused before the inspection is printed

    (tmp_path / "scene").mkdir()
    (tmp_path / "scene" / "question.json").write_text("{}")
    r = mewl("render-spec", data / "train/shape/0/episode.json", "--panel", "question", "--out", tmp_path / "scene")
    assert refused(r, "question.json exists") and (tmp_path / "scene" / "question.json").read_text() == "{}"


@pytest.mark.parametrize("args, words", [
    (["render", "--task", "shape", "--n", 1, "--out", ""], ["--out is empty"]),
    (["sample", "--task", "shape", "--n", 1, "--out", " "], ["--out is empty"]),
    (["render", "--task", "shape", "--n", 1, "--out", "x", "--split", ""], ["split must be"]),
    (["render", "--task", "shape", "--n", 1, "--out", "x", "--shard", ""], ["--shard must look like"]),
    (["render", "--task", "shape", "--n", 1, "--out", "x", "--gpu-ids", ""], ["--gpu-ids"]),
    (["render", "--task", "shape", "--n", 1, "--out", "x", "--device", "cpu", "--gpu-ids", "0,1"], ["--device cpu"]),
    (["slurm", "--task", "shape", "--n", 1, "--array", 1, "--out", "x", "--gpus-per-task", 0, "--device", "optix"],
     ["needs GPUs"]),
    (["slurm", "--task", "shape", "--n", 1, "--array", 1, "--out", "x", "--device", "cpu"], ["--gpus-per-task 0"]),
    (["slurm", "--task", "shape", "--n", 1, "--array", 1, "--out", "x", "--gpus-per-task", 0, "--device", "gpu"],
     ["unknown device 'gpu'"]),
    (["slurm", "--task", "shape", "--n", 1, "--array", 1, "--out", "x", "--script", ""], ["--script is empty"]),
    (["inspect", "x.json", "--overlay", ""], ["--overlay is empty"]),
    (["render", "--task", "shape", "--n", 99999999999999, "--out", "x", "--dry-run"], ["at most"]),
    (["sample", "--task", "shape", "--n", 10_000_001, "--out", "x"], ["at most"]),
    (["slurm", "--task", "shape", "--n", 99999999999999, "--array", 2, "--out", "x"], ["at most"]),
    (["render", "--task", "shape", "--n", 1, "--out", "x", "--dry-run", "--seed", -3], ["seed must be"]),
])
def test_empty_contradictory_or_huge_values_are_refused(tmp_path, args, words):
    r = mewl(*args, cwd=tmp_path)
    assert refused(r, *words), r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_mewl_fsync_other_than_0_or_1_is_refused(tmp_path):
    env = {**os.environ, "MEWL_FSYNC": "off"}
    for command in ("render", "sample"):
        r = mewl(command, "--task", "shape", "--n", 1, "--out", tmp_path / "x", env=env)
        assert refused(r, "MEWL_FSYNC must be 0 (no fsync) or 1"), r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_dry_run_checks_the_folder_like_the_render(data, tmp_path):
    r = mewl("render", "--task", "shape", "--n", 1, "--out", data, "--dry-run", "--seed", 5)
    assert refused(r, "holds a different dataset", "seed=0 (asked 5)")
    r = mewl("status", data, "--n", 99999999999999)
    assert refused(r, "at most")


def test_a_folder_holding_another_dataset_is_refused_by_the_option_the_user_typed(data, tmp_path):
    """--out, OUT as the argument, or make render's OUT=: the refusal says which to change."""
    asked = ["render", "--task", "shape", "--n", 1, "--device", "cpu"]
    for typed, option in ((["--out", data], "--out"), ([data], "OUT")):
        r = mewl(*asked, *typed)
        assert refused(r, "holds a different dataset", "kind='specs' (asked 'rendered')"), r.stderr
        assert r.stderr.endswith(f"; choose another {option}\n"), r.stderr
    r = mewl(*asked, "--out", "", env={**os.environ, "MEWL_OUT_OPTION": "OUT="})
    assert refused(r, "OUT= is empty; name a folder"), r.stderr
    if Path(sys.executable).parents[1].resolve() != (ROOT / ".venv").resolve():
        pytest.skip("not run from this checkout's .venv: its Makefile would make that venv first")
    before = digest(data)
    done = subprocess.run(["make", "-s", "-C", str(ROOT), "render", f"OUT={data}", "TASK=shape", "N=1", "DEVICE=cpu"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("mewl: error:")]
    assert "holds a different dataset" in line and line.endswith("; choose another OUT="), done.stderr
    assert digest(data) == before


def test_a_broken_link_as_out_is_named(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    for args in (["sample", "--task", "shape", "--n", 1, "--out", tmp_path / "link"],
                 ["render", "--task", "shape", "--n", 1, "--out", tmp_path / "link"],
                 ["slurm", "--task", "shape", "--n", 1, "--array", 1, "--out", tmp_path / "link"],
                 ["render-spec", "x.json", "--out", tmp_path / "link"],
                 ["status", tmp_path / "link"]):
        r = mewl(*args)
        assert refused(r, "broken link"), (args, r.stderr)
    assert not (tmp_path / "gone").exists()


def test_index_of_something_that_is_not_there(data, tmp_path):
    before = digest(data)
    assert refused(mewl("index", data, "--split", "bogus"), "no split 'bogus'", "train")
    (tmp_path / "notes.txt").write_text("mine")
    assert refused(mewl("index", tmp_path), "not a dataset")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"] and digest(data) == before


def test_inspect_names_the_path_the_user_gave(data, tmp_path):
    assert refused(mewl("inspect", tmp_path / "nonexist.png"), "nonexist.png: no such file")
    lone = tmp_path / "lone.png"
    lone.write_bytes(b"png")
    assert refused(mewl("inspect", lone), "lone.png: no ground truth lone.json")
    r = mewl("inspect", data / "train/shape/0", "--overlay", tmp_path / "o.png")
    assert refused(r, "not rendered") and r.stdout == "" and not (tmp_path / "o.png").exists()


@pytest.mark.slow
def test_a_damaged_plan_is_named_by_status_and_rewritten_by_the_next_run(tmp_path):
    out = tmp_path / "data"
    assert mewl("sample", "--task", "shape", "--n", 2, "--out", out, "--workers", 1).returncode == 0
    plan = out / ".mewl" / "plan" / "train" / "shape.json"
    plan.write_text('{"split": "train", "ta')
    r = mewl("status", out)
    assert refused(r, str(plan), "damaged"), r.stderr
    assert mewl("status", out, "--n", 2).returncode == 0
    assert mewl("sample", "--task", "shape", "--n", 2, "--out", out, "--workers", 1).returncode == 0
    r = mewl("status", out)
    assert r.returncode == 0 and "2/2" in r.stdout.replace(" ", ""), r.stdout
