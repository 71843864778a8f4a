"""`mewl sample`, `validate` and `schema` as a user runs them."""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from mewl_gen.store import layout, manifest
from tests.command import MEWL
from tests.command import mewl_here as mewl


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_sample_writes_mewl_layout_and_is_byte_identical_twice(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        r = mewl("sample", "--task", "shape,material", "--n", 3, "--out", out, "--seed", 5, "--workers", 2)
        assert r.returncode == 0, r.stderr
    assert tree_digest(a) == tree_digest(b)
    info = json.loads((a / "train/shape/2/info.json").read_text())
    episode = json.loads((a / "train/shape/2/episode.json").read_text())
    question = info["question"]
    assert question["choices"] == episode["choices"] and question["choices"].count(question["answer"]) == 1
    assert question["answer"] == episode["answer"] and len(set(question["choices"])) == 5
    assert [p["name"] for p in info["context_panels"]] == [p["name"] for p in episode["context_panels"]]
    assert all(p["objects"] for p in info["context_panels"])
    assert episode["index"] == 2 and episode["root_seed"] == 5
    assert not layout.partial_items(a)
    assert sorted(p.name for p in (a / "train/shape").glob("*")) == ["0", "1", "2"]


@pytest.mark.parametrize("slices_here", [0, 1, None])
def test_a_run_sampled_here_or_in_a_pool_is_the_same_bytes(tmp_path, monkeypatch, mewl, slices_here):
    """A run's first items are sampled in the command's process, a few at a time, and a pool of workers takes
    what is left after IN_PROCESS seconds of its CPU (nothing, for a small run): the files are those of one worker
    whether the pool takes every item, all but the first few, or none."""
    import types

    import joblib

    from mewl_gen.cluster import sample

    argv = ("sample", "--task", "shape,color", "--n", 7, "--seed", 5)
    assert mewl(*argv, "--out", tmp_path / "one", "--workers", 1)[0] == 0
    if slices_here is None:
        def no_pool(*args, **kwargs):
            raise AssertionError("a pool was started for a run this process had sampled")
        monkeypatch.setattr(joblib, "Parallel", no_pool)  # where sample.py takes it from, when a pool starts
        monkeypatch.setattr(sample, "IN_PROCESS", 600.0)  # however loaded the machine, the run fits in it
    else:  # a clock that reads the deadline as passed after `slices_here` looks
        looks = iter(range(10 ** 6))

        def clock() -> float:  # the first look sets the deadline
            return 0.0 if next(looks) <= slices_here else 10.0 ** 6

        monkeypatch.setattr(sample, "time", types.SimpleNamespace(process_time=clock, sleep=sample.time.sleep))
    assert mewl(*argv, "--out", tmp_path / "two", "--workers", 2)[0] == 0
    assert tree_digest(tmp_path / "one") == tree_digest(tmp_path / "two")


@pytest.mark.slow
def test_splits_and_seeds_give_different_episodes(tmp_path):
    mewl("sample", "--task", "color", "--n", 2, "--out", tmp_path / "x", "--split", "train")
    mewl("sample", "--task", "color", "--n", 2, "--out", tmp_path / "x", "--split", "test")
    train = (tmp_path / "x/train/color/0/episode.json").read_text()
    test = (tmp_path / "x/test/color/0/episode.json").read_text()
    assert json.loads(train)["lexicon"] != json.loads(test)["lexicon"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--task", "shapes", "--n", "2"], "unknown task 'shapes'"),
        (["--task", "shape", "--n", "0"], "--n must be at least 1"),
        (["--task", "shape", "--n", "x"], "--n must be a whole number"),
        (["--task", "shape", "--n", "2", "--seed", "-1"], "seed must be between"),
        (["--task", "shape", "--n", "2", "--split", "Train!"], "split must be"),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(tmp_path, args, message):
    out = tmp_path / "out"
    r = mewl("sample", *args, "--out", out)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_out_is_named_as_every_command_names_it_or_as_an_option(tmp_path, mewl):
    """render, sample and slurm take OUT where every other command does (positional), or as --out OUT."""
    assert mewl("sample", tmp_path / "a", "--task", "color", "--n", 1)[0] == 0
    assert mewl("sample", "--task", "color", "--n", 1, "--out", tmp_path / "b")[0] == 0
    assert mewl("sample", tmp_path / "c", "--task", "color", "--n", 1, "--out", tmp_path / "c")[0] == 0
    same = [(tmp_path / d / "train/color/0/episode.json").read_bytes() for d in "abc"]
    assert same[0] == same[1] == same[2]
    for argv, message in (([], "name the dataset folder: OUT, or --out OUT"),
                          ([tmp_path / "d", "--out", tmp_path / "e"], "two dataset folders")):
        code, _, err = mewl("sample", "--task", "color", "--n", 1, *argv)
        assert code == 2 and message in err and err.count("\n") == 1
        assert not (tmp_path / "d").exists() and not (tmp_path / "e").exists()
    for command in ("render", "slurm"):
        code, _, err = mewl(command, "--task", "color", "--n", 1, *([] if command == "render" else ["--array", 1]))
        assert code == 2 and "name the dataset folder" in err and err.count("\n") == 1


@pytest.mark.slow
def test_a_folder_of_another_dataset_is_refused_untouched(tmp_path):
    out = tmp_path / "out"
    assert mewl("sample", "--task", "shape", "--n", 2, "--out", out, "--seed", 1).returncode == 0
    before = tree_digest(out)
    r = mewl("sample", "--task", "shape", "--n", 3, "--out", out, "--seed", 2)
    assert r.returncode == 2 and "holds a different dataset" in r.stderr and r.stderr.count("\n") == 1
    assert tree_digest(out) == before
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    r = mewl("sample", "--task", "shape", "--n", 1, "--out", foreign)
    assert r.returncode == 2 and "not empty" in r.stderr
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


@pytest.mark.slow
def test_validate_accepts_good_and_rejects_broken_specs(tmp_path):
    out = tmp_path / "out"
    mewl("sample", "--task", "shape", "--n", 1, "--out", out)
    good = out / "train/shape/0/episode.json"
    assert mewl("validate", good).returncode == 0
    data = json.loads(good.read_text())
    data["context_panels"][0]["scene"]["objects"][0]["color"] = "pink"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    r = mewl("validate", bad)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "color" in r.stderr
    data = json.loads(good.read_text())
    data["answer"] = next(c for c in data["choices"] if c != data["answer"])
    bad.write_text(json.dumps(data))
    r = mewl("validate", bad)
    assert r.returncode == 2 and "breaks the shape rules" in r.stderr
    (tmp_path / "junk.json").write_text("{nope")
    assert mewl("validate", tmp_path / "junk.json").returncode == 2


def test_schema_is_json_schema_of_episodes():
    r = mewl("schema")
    schema = json.loads(r.stdout)
    assert schema["title"] == "Episode" and "SceneSpec" in schema["$defs"]


@pytest.mark.slow
def test_samplers_started_at_once_on_a_new_folder_with_other_seeds_do_not_mix(tmp_path):
    """The first to create the manifest owns OUT; the others are refused in
    one line and no episode of another seed lands in it."""
    out = tmp_path / "out"
    procs = [subprocess.Popen([*MEWL, "sample", "--task", "shape", "--n", "3", "--out", str(out), "--seed", str(seed),
                               "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed in (1, 2, 3, 4)]
    results = [(p.wait(), p.stderr.read()) for p in procs]
    assert sorted(rc for rc, _ in results) == [0, 2, 2, 2], results
    assert all("holds a different dataset" in err and err.count("\n") == 1 for rc, err in results if rc == 2)
    seed = json.loads((out / layout.MANIFEST).read_text())["seed"]
    seeds = {json.loads(p.read_text())["root_seed"] for p in out.glob("train/shape/*/episode.json")}
    assert seeds == {seed} and len(list(out.glob("train/shape/*/episode.json"))) == 3


def test_claiming_a_new_folder_is_exclusive_under_threads(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from mewl_gen.errors import UserError

    out = tmp_path / "out"

    def claim(seed):
        try:
            manifest.claim_output(out, {"seed": seed, "kind": "specs"})
            return seed
        except UserError as err:
            assert "holds a different dataset" in str(err)
            return None

    for _ in range(5):
        with ThreadPoolExecutor(8) as pool:
            won = [s for s in pool.map(claim, range(8)) if s is not None]
        assert len(won) == 1 and json.loads((out / layout.MANIFEST).read_text())["seed"] == won[0]
        assert not list(out.glob(".*.tmp"))
        for p in sorted(out.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()


@pytest.mark.parametrize("text", ["[1]", "{nope", '{"seed": 1}', "null"])
@pytest.mark.slow
def test_a_damaged_manifest_is_one_line_everywhere(tmp_path, text):
    out = tmp_path / "out"
    assert mewl("sample", "--task", "shape", "--n", 1, "--out", out).returncode == 0
    (out / layout.MANIFEST).write_text(text)
    before = tree_digest(out)
    for args in (["sample", "--task", "shape", "--n", 2, "--out", out], ["status", out], ["verify", out]):
        r = mewl(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert layout.MANIFEST in r.stderr, r.stderr
    assert tree_digest(out) == before


@pytest.mark.parametrize("where, value, message", [
    (("camera", "width"), "320", "camera.width: Input should be a valid integer"),
    (("camera", "width"), True, "camera.width: Input should be a valid integer"),
    (("render", "samples"), 64.0, "render.samples: Input should be a valid integer"),
    (("render", "quality"), "ultra", "render.quality: Input should be 'preview'"),
    (("render", "seed"), "7", "render.seed"),
])
@pytest.mark.slow
def test_validate_takes_no_value_of_the_wrong_type(tmp_path, where, value, message):
    out = tmp_path / "out"
    assert mewl("sample", "--task", "shape", "--n", 1, "--out", out).returncode == 0
    scene = json.loads((out / "train/shape/0/episode.json").read_text())["query"]
    scene[where[0]][where[1]] = value
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    r = mewl("validate", path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    scene[where[0]][where[1]] = json.loads((out / "train/shape/0/episode.json").read_text())["query"][where[0]][where[1]]
    path.write_text(json.dumps(scene))
    assert mewl("validate", path).returncode == 0  # the same file with the value as written is valid
