"""Benchmarks beside MEWL as a user meets them: `mewl tasks`, task and
benchmark names, split schemes, the index, and the mistakes a user makes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mewl_gen.tasks import catalog
from mewl_gen.tasks.seeds import item_rng
from tests.command import mewl_here as mewl


def test_mewl_tasks_lists_every_task_once_with_its_benchmark():
    r = mewl("tasks")
    assert r.returncode == 0
    for bench in catalog.BENCHMARKS:
        assert f"{bench.name}: " in r.stdout
        for t in bench.tasks:
            assert sum(line.split()[0] == t.name for line in r.stdout.splitlines() if line.startswith("  ")) == 1


def test_task_names_resolve_as_documented():
    mewl_nine = ["shape", "color", "material", "object", "composite", "relation", "bootstrap", "number", "pragmatic"]
    assert catalog.resolve("mewl") == mewl_nine
    assert catalog.resolve("malevic") == [t.name for t in catalog.benchmarks()["malevic"].tasks]
    assert catalog.resolve("all") == list(catalog.tasks()) and set(mewl_nine) < set(catalog.tasks())
    assert catalog.resolve("pragmatic,malevic-pos,pragmatic") == ["pragmatic", "malevic-pos"]
    assert all(t in mewl_nine or t.startswith(f"{catalog.task(t).benchmark}-") for t in catalog.tasks())


def test_a_new_task_never_moves_another_task_s_seeds():
    """MEWL's nine keep their index in the seed; others are coded by name."""
    assert [catalog.task(t).code for t in catalog.resolve("mewl")] == list(range(9))
    codes = {t.code for t in catalog.tasks().values()}
    assert len(codes) == len(tuple(catalog.tasks()))
    pos, pos1 = catalog.task("malevic-pos").code, catalog.task("malevic-pos1").code
    assert item_rng(1, "train", pos, 3).integers(2**62) != item_rng(1, "train", pos1, 3).integers(2**62)


@pytest.mark.parametrize("args, message", [
    (("--task", "malevic-big"), "unknown task 'malevic-big'; `mewl tasks` lists them"),
    (("--task", "malevic", "--split-scheme", "zero-shot"), "unknown --split-scheme 'zero-shot'"),
    (("--task", "pragmatic,malevic-pos", "--split-scheme", "malevic-unseen"),
     "--split-scheme malevic-unseen is not a scheme of pragmatic"),
    (("--task", "malevic", "--split-scheme", "malevic-unseen", "--split", "dev"),
     "--split-scheme malevic-unseen knows the splits train, val, test, not 'dev'"),
    (("--task", "icy-naming", "--grammar", "zigzag"), "--grammar zigzag: grammar: Input should be 'concat'"),
    (("--task", "icy", "--grammar", "rot:vocab_size"), "expected key=value after the grammar"),
    (("--task", "shape", "--grammar", "rot"), "--grammar configures icy, and none of the chosen tasks is one of its"),
    (("--task", "shapeworld", "--distribution", "missing.json"), "distribution file: cannot read missing.json"),
])
@pytest.mark.parametrize("command", ["sample", "render", "slurm"])
def test_a_wrong_task_or_scheme_is_one_line_before_any_work(tmp_path, command, args, message):
    out = tmp_path / "d"
    extra = ["--array", "1"] if command == "slurm" else []
    r = mewl(command, "--n", 2, "--out", out, *extra, *args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not out.exists()


@pytest.mark.slow
def test_a_scheme_is_pinned_in_the_manifest_and_another_is_refused(tmp_path):
    out = tmp_path / "d"
    r = mewl("sample", "--task", "malevic-pos", "--n", 4, "--out", out, "--split", "test", "--split-scheme", "malevic-unseen")
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "mewl-dataset.json").read_text())["split_scheme"] == "malevic-unseen"
    held_out = {("big", "cylinder"), ("small", "cube")}
    for line in (out / "test" / "malevic-pos.jsonl").read_text().splitlines():
        item = json.loads(line)
        shape = item["sentence"].split()[2]
        assert (item["adjective"], shape) in held_out
    before = (out / "test" / "malevic-pos.jsonl").read_bytes()
    r = mewl("sample", "--task", "malevic-pos", "--n", 4, "--out", out, "--split", "test")
    assert r.returncode == 2 and "split_scheme=" in r.stderr and r.stderr.count("\n") == 1
    assert (out / "test" / "malevic-pos.jsonl").read_bytes() == before


@pytest.mark.slow
def test_sample_writes_the_index_and_a_resume_rebuilds_it_whole(tmp_path):
    out = tmp_path / "d"
    assert mewl("sample", "--task", "malevic-sup1", "--n", 3, "--out", out).returncode == 0
    index = out / "train" / "malevic-sup1.jsonl"
    assert [json.loads(line)["path"] for line in index.read_text().splitlines()] == [f"train/malevic-sup1/{i}" for i in range(3)]
    index.write_text("damaged\n")
    assert mewl("sample", "--task", "malevic-sup1", "--n", 5, "--out", out).returncode == 0
    lines = [json.loads(line) for line in index.read_text().splitlines()]
    assert [line["index"] for line in lines] == list(range(5))
    assert all(json.loads((out / line["path"] / "item.json").read_text())["label"] == line["label"] for line in lines)


DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.slow
def test_a_distribution_is_pinned_by_content_and_another_is_refused(tmp_path):
    out = tmp_path / "d"
    relations = DOCS / "shapeworld-heldout-relations.json"
    r = mewl("sample", "--task", "shapeworld-relational", "--n", 4, "--split", "test", "--out", out, "--distribution", relations)
    assert r.returncode == 0, r.stderr
    pinned = json.loads((out / "mewl-dataset.json").read_text())["config"]["shapeworld"]
    assert pinned["content"] == json.loads(relations.read_text()) and len(pinned["sha256"]) == 64
    for line in (out / "test" / "shapeworld-relational.jsonl").read_text().splitlines():
        assert json.loads(line)["held_out_used"], "every test item uses a held-out combination"
    for other in (["--distribution", DOCS / "shapeworld-heldout-attributes.json"], []):
        r = mewl("sample", "--task", "shapeworld-relational", "--n", 4, "--split", "test", "--out", out, *other)
        assert r.returncode == 2 and "config of shapeworld=" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_language_goes_whole_into_the_manifest_and_slurm_passes_options_on(tmp_path):
    out = tmp_path / "d"
    assert mewl("sample", "--task", "icy-naming", "--n", 2, "--out", out, "--grammar", "perm:vocab_size=5").returncode == 0
    icy = json.loads((out / "mewl-dataset.json").read_text())["config"]["icy"]
    assert icy["spec"]["grammar"] == "perm" and len(icy["language"]["objects"]) == 144
    r = mewl("icy-metrics", out / "mewl-dataset.json")
    assert r.returncode == 0 and "grammar perm" in r.stdout
    r = mewl("slurm", "--task", "shapeworld", "--n", 4, "--array", 2, "--out", tmp_path / "s",
             "--distribution", Path("docs") / "shapeworld-heldout-relations.json")
    assert r.returncode == 0, r.stderr
    assert f"--distribution {DOCS / 'shapeworld-heldout-relations.json'}" in r.stdout  # absolute, for the nodes


@pytest.mark.slow
def test_a_dataset_grows_by_other_benchmarks_and_each_config_binds_only_its_own(tmp_path):
    """`--task all` then more MEWL episodes; MEWL then ICY; a config new to
    OUT is added to the manifest, a pinned one still refuses another."""
    out = tmp_path / "d"
    assert mewl("sample", "--task", "icy-naming", "--n", 2, "--out", out).returncode == 0
    r = mewl("sample", "--task", "shape", "--n", 2, "--out", out)  # MEWL beside ICY: the grammar is not its business
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "mewl-dataset.json").read_text())
    assert list(manifest["config"]) == ["icy"]
    r = mewl("sample", "--task", "icy-naming", "--n", 3, "--out", out, "--grammar", "perm")
    assert r.returncode == 2 and "config of icy=" in r.stderr and r.stderr.count("\n") == 1
    assert json.loads((out / "mewl-dataset.json").read_text()) == manifest

    mewl_first = tmp_path / "m"
    assert mewl("sample", "--task", "color", "--n", 2, "--out", mewl_first).returncode == 0
    before = (mewl_first / "mewl-dataset.json").read_text()
    assert "config" not in json.loads(before)
    r = mewl("sample", "--task", "icy-naming", "--n", 2, "--out", mewl_first, "--grammar", "rot")
    assert r.returncode == 0, r.stderr
    after = json.loads((mewl_first / "mewl-dataset.json").read_text())
    assert after["config"]["icy"]["spec"]["grammar"] == "rot" and {**after, "config": None} == {**json.loads(before), "config": None}
    assert mewl("status", mewl_first).returncode == 0
    r = mewl("sample", "--task", "icy-naming", "--n", 2, "--out", mewl_first)  # the default grammar is another one
    assert r.returncode == 2 and "config of icy=" in r.stderr


@pytest.mark.slow
def test_a_config_is_not_added_where_items_were_made_without_it(tmp_path):
    out = tmp_path / "d"
    assert mewl("sample", "--task", "shapeworld-existential", "--n", 2, "--out", out).returncode == 0
    before = (out / "mewl-dataset.json").read_text()
    r = mewl("sample", "--task", "shapeworld-existential", "--n", 3, "--out", out,
             "--distribution", DOCS / "shapeworld-heldout-attributes.json")
    assert r.returncode == 2 and "config of shapeworld=None" in r.stderr
    assert (out / "mewl-dataset.json").read_text() == before
