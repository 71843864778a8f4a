"""`mewl render` and `mewl status` without Blender: options refused before
any work, settings guarded, planning, worker division and status counts.
The real renders are in test_pipeline_e2e.py."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mewl_gen.cluster.pipeline import Settings, at_quality, plan, worker_options
from mewl_gen.store import bookkeeping, layout, manifest
from mewl_gen.store.record import write_record
from mewl_gen.tasks.catalog import sample_item


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def fake_episode(out: Path, split: str, task: str, i: int) -> None:
    """A published episode as far as bookkeeping sees: files and their record."""
    folder = layout.item_dir(out, split, task, i)
    folder.mkdir(parents=True)
    (folder / "info.json").write_text("{}")
    write_record(folder)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--task", "shapes", "--n", "2"], "unknown task 'shapes'"),
        (["--task", "shape", "--n", "0"], "--n must be at least 1"),
        (["--task", "shape", "--n", "2", "--shard", "3/2"], "--shard 3/2"),
        (["--task", "shape", "--n", "2", "--shard", "x"], "--shard must look like I/K"),
        (["--task", "shape", "--n", "2", "--quality", "best"], "unknown quality 'best'"),
        (["--task", "shape", "--n", "2", "--device", "tpu"], "unknown device 'tpu'"),
        (["--task", "shape", "--n", "2", "--gpu-ids", "0,a"], "--gpu-ids must be"),
        (["--task", "shape", "--n", "2", "--workers", "0"], "--workers must be at least 1"),
        (["--task", "shape", "--n", "2", "--bogus", "1"], "unrecognized arguments"),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(tmp_path, mewl, args, message):
    out = tmp_path / "out"
    code, stdout, stderr = mewl("render", *args, "--out", out)
    assert code == 2
    assert stderr.count("\n") == 1 and message in stderr, stderr
    assert not out.exists()


def test_other_settings_are_refused_and_nothing_changes(tmp_path, mewl):
    out = tmp_path / "out"
    manifest.claim_output(out, {"seed": 0, "quality": "draft", "kind": "rendered"})
    fake_episode(out, "train", "shape", 0)
    before = tree_digest(out)
    for args, what in ((["--seed", "1"], "seed=0"), (["--quality", "default"], "quality='draft'")):
        code, _, stderr = mewl("render", "--task", "shape", "--n", 3, "--out", out, "--quality", "draft", *args)
        assert code == 2 and stderr.count("\n") == 1 and what in stderr, stderr
    # a folder of specs (mewl sample) is not a rendered dataset either
    specs = tmp_path / "specs"
    manifest.claim_output(specs, {"seed": 0, "kind": "specs"})
    code, _, stderr = mewl("render", "--task", "shape", "--n", 1, "--out", specs)
    assert code == 2 and "kind='specs'" in stderr
    assert tree_digest(out) == before


def test_a_complete_dataset_has_nothing_to_do(tmp_path, mewl):
    out = tmp_path / "out"
    manifest.claim_output(out, {"seed": 0, "quality": "draft", "kind": "rendered"})
    for i in range(2):
        fake_episode(out, "train", "shape", i)
    code, _, stderr = mewl("render", "--task", "shape", "--n", 2, "--out", out, "--quality", "draft")
    assert code == 0 and "nothing to do" in stderr
    assert bookkeeping.planned(out, "train", "shape") == 2
    # a smaller N after a larger one is allowed; the plan keeps the larger
    bookkeeping.record_plan(out, "train", "shape", 5)
    code, _, stderr = mewl("render", "--task", "shape", "--n", 1, "--out", out, "--quality", "draft")
    assert code == 0 and "nothing to do, 1 episode(s) already complete" in stderr
    assert bookkeeping.planned(out, "train", "shape") == 5


def test_plan_skips_complete_episodes_and_takes_every_kth_for_a_shard(tmp_path):
    s = Settings(out=tmp_path, split="train", seed=0, quality="draft")
    fake_episode(tmp_path, "train", "color", 4)
    todo, complete = plan(s, ["shape", "color"], 10, (1, 3))
    assert complete == 1
    assert todo == [("shape", 1), ("color", 1), ("shape", 4), ("shape", 7), ("color", 7)]
    shards = [plan(s, ["shape"], 10, (i, 3))[0] for i in range(3)]
    assert sorted(i for sh in shards for _, i in sh) == list(range(10))


def test_cpu_cores_are_divided_and_gpus_dealt_one_per_worker(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert [o["threads"] for o in worker_options("cpu", None, 2, cores=8)] == [4, 4]
    assert [o["threads"] for o in worker_options("auto", None, 3, cores=2)] == [1, 1, 1]
    assert len(worker_options("cpu", None, None, cores=2)) == 1
    gpus = worker_options("optix", [2, 5], None)
    assert [o["gpu_ids"] for o in gpus] == [[2], [5]]
    assert [o["gpu_ids"] for o in worker_options("cuda", [0, 1], 4)] == [[0], [1], [0], [1]]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,7")  # what SLURM hands a job
    assert [o["gpu_ids"] for o in worker_options("auto", None, None)] == [[0], [1]]
    # Workers sharing each GPU: dealt out round robin, so each GPU gets its share from the first episodes on.
    assert [o["gpu_ids"] for o in worker_options("optix", [0, 1], None, per_device=3)] == [[0], [1]] * 3
    assert [o["gpu_ids"] for o in worker_options("optix", [4], 2, per_device=3)] == [[4], [4]]  # --workers wins
    assert [o["threads"] for o in worker_options("cpu", None, None, cores=8, per_device=2)] == [4, 4]
    # One episode left: one Blender with every core, not one of two with half of them.
    assert [o["threads"] for o in worker_options("cpu", None, 2, cores=8, at_most=1)] == [8]
    assert len(worker_options("optix", [0, 1], None, per_device=3, at_most=4)) == 4


def test_the_episode_records_the_quality_it_is_rendered_at():
    ep = sample_item("shape", 0, "train", 3)
    draft = at_quality(ep, "draft")
    scenes = [p.scene for p in draft.context_panels] + [draft.query]
    assert {s.render.quality for s in scenes} == {"draft"}
    assert [s.render.seed for s in scenes] == [p.scene.render.seed for p in ep.context_panels] + [ep.query.render.seed]
    assert draft.model_copy(update={"context_panels": ep.context_panels, "query": ep.query}) == ep


def test_status_counts_complete_failed_and_missing(tmp_path, mewl):
    out = tmp_path / "out"
    manifest.claim_output(out, {"seed": 0, "quality": "draft", "kind": "rendered"})
    bookkeeping.record_plan(out, "train", "shape", 4)
    bookkeeping.record_plan(out, "train", "shape", 2)  # a smaller N never shrinks the plan
    fake_episode(out, "train", "shape", 0)
    fake_episode(out, "train", "shape", 2)
    bookkeeping.record_failure(out, "train", "shape", 3, ["retry 0: too small", "gave up after 5 redraws"])
    code, stdout, _ = mewl("status", out)
    assert code == 1
    assert "train      shape             4         2       1        1        0        0" in stdout
    assert "failed: 3" in stdout and "missing: 1" in stdout
    assert "\n      3: gave up after 5 redraws\n" in stdout  # why, as the SLURM completion report shows it too
    code, stdout, _ = mewl("status", out, "--json")
    (row,) = json.loads(stdout)
    assert (row["complete"], row["failed"], row["missing"], row["done"]) == (2, [3], [1], False)
    # MEWL's loaders glob with pathlib, which matches hidden names: no bookkeeping there
    assert sorted(str(p.relative_to(out)) for p in out.glob("train/*/*")) == ["train/shape/0", "train/shape/2"]
    # a smaller N is checked when given, never only by editing .mewl/plan
    code, stdout, _ = mewl("status", out, "--n", 1)
    assert code == 0 and "against the N given" in stdout and "1/1 episodes complete" in stdout
    fake_episode(out, "train", "shape", 1)
    fake_episode(out, "train", "shape", 3)
    code, stdout, _ = mewl("status", out)
    assert code == 0 and "4/4 episodes complete" in stdout and "against the largest N requested" in stdout


def test_status_of_a_folder_that_is_no_dataset_is_one_line(tmp_path, mewl):
    code, _, stderr = mewl("status", tmp_path)
    assert code == 2 and stderr.count("\n") == 1 and "not a dataset" in stderr


def test_progress_moves_per_image_and_never_back_on_a_redraw():
    import io

    from mewl_gen.cluster.item_job import Outcome
    from mewl_gen.cluster.progress import Progress

    p = Progress([("shape", 0), ("shape", 1)], 0, {"shape": 7}, stream=io.StringIO(), interval=0)
    p.image("shape", 0)
    assert p.position == 1 and p.line().startswith("render: 1/14 images, 0/2 episodes")
    for _ in range(9):  # six panels, then a redraw starts the episode again
        p.image("shape", 0)
    assert p.position == 6
    p.update(Outcome("shape", 0, True, 7, 13))
    p.image("shape", 1)
    assert p.position == 8 and p.line().startswith("render: 8/14 images, 1/2 episodes")
    p.update(Outcome("shape", 1, True, 0, 0, by_other=True))
    assert p.position == 14 and "1 by another writer" in p.summary()


def test_an_interrupted_runs_summary_counts_the_images_the_progress_line_counted_and_says_which_were_dropped():
    """Ctrl-C with an episode in flight: its images were on the progress line, so the summary counts them and
    says they were dropped with it; one a worker published after the Ctrl-C counts as done."""
    import io

    from mewl_gen.cluster.item_job import Outcome
    from mewl_gen.cluster.progress import Progress

    p = Progress([("shape", i) for i in range(4)], 0, {"shape": 7}, stream=io.StringIO(), interval=0)
    p.update(Outcome("shape", 0, True, 7, 7))
    for _ in range(6):
        p.image("shape", 1)
    assert p.line().startswith("render: 13/28 images, 1/4 episodes")
    summary = p.summary(interrupted=True)
    assert "done 1, " in summary and ", 13 images (6 of them of 1 unfinished episode, dropped), " in summary
    for _ in range(7):  # all its images, then published after the Ctrl-C, before its outcome reached the parent
        p.image("shape", 2)
    p.image("shape", 3)
    summary = p.summary(interrupted=True, published=lambda task, index: index == 2)
    assert "done 2, " in summary and ", 21 images (7 of them of 2 unfinished episodes, dropped), " in summary
    assert ", 7 images, " in p.summary()  # a run that finished has nothing in flight to drop


def test_progress_counts_each_task_s_own_images():
    """A one-image task beside MEWL's seven: the bar's total is the sum, an item counts its own."""
    import io

    from mewl_gen.cluster.item_job import Outcome
    from mewl_gen.cluster.progress import Progress

    p = Progress([("shape", 0), ("single", 0), ("single", 1)], 0, {"shape": 7, "single": 1}, stream=io.StringIO(), interval=0)
    p.update(Outcome("single", 0, True, 1, 1))
    assert p.line().startswith("render: 1/9 images, 1/3 items")  # MEWL alone says episodes (above)
    p.image("single", 1)  # an item in flight counts at most all its images but one: none here
    assert p.position == 1
    p.update(Outcome("shape", 0, True, 7, 7))
    assert p.position == 8


def test_status_and_progress_call_items_beyond_mewl_items():
    from mewl_gen.store.status import TaskStatus, report

    mewl = report([TaskStatus("train", "shape", 2, 2, [], [], [], [])])
    other = report([TaskStatus("train", "shape", 2, 2, [], [], [], []),
                    TaskStatus("train", "malevic-pos", 2, 1, [], [1], [], [])])
    assert mewl.startswith("episodes 0..N-1") and "2/2 episodes complete" in mewl
    assert other.startswith("items 0..N-1") and "3/4 items complete, dataset incomplete" in other
