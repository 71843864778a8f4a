"""`mewl slurm`: the scripts it writes, the shards it picks, and real SLURM arrays.

The e2e tests run a single-node SLURM started by tests/slurm_cluster.py and
render at preview quality on the CPU: one array rendered whole, one with an
array task cancelled before it starts and resubmitted. Both must match, JSON byte for
byte, the same dataset rendered locally without shards.
"""
from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from mewl_gen.store import layout, manifest
from mewl_gen.store.record import write_record
from tests.command import MEWL
from tests.command import mewl_here as mewl
from tests.slurm_cluster import slurm_cluster  # noqa: F401  (the fixture)

TASKS, N, SHARDS = "shape", 2, 2  # two shards of one task: every array feature, at half the images of two tasks
DATASET = ["--task", TASKS, "--n", str(N), "--quality", "preview", "--device", "cpu", "--seed", "7"]
JOB_TIMEOUT = 240  # seconds; each wait is bounded


def slurm_args(out: Path, *extra: str) -> list[str]:
    # The test node has 2 cores: one per array task, not the default 8 of a CPU node.
    return ["slurm", *DATASET, "--out", out, "--array", str(SHARDS), "--gpus-per-task", "0", "--cpus-per-task", "1",
            *extra]


def written_script(stdout: str) -> Path:
    return Path(re.search(r"^wrote (\S+\.sbatch)", stdout, re.M).group(1))


def claimed(out: Path) -> Path:
    """OUT as `mewl render` (or a first `mewl slurm --submit`) leaves it for the default settings."""
    manifest.claim_output(out, {"seed": 0, "quality": "default", "kind": "rendered"})
    return out


def mark_complete(out: Path, task: str, index: int) -> None:
    folder = out / "train" / task / str(index)
    folder.mkdir(parents=True)
    (folder / "info.json").write_text("{}\n")
    write_record(folder)  # complete means: its record of checksums agrees


# -- the script and the choice of shards (no SLURM needed) ---------------------
def test_script_renders_one_shard_per_array_task_with_this_install(tmp_path):
    out, path = tmp_path / "data", tmp_path / "jobs" / "render.sbatch"
    path.parent.mkdir()
    done = mewl(*slurm_args(out, "--max-parallel", "3", "--time", "02:00:00", "--partition", "gpu",
                            "--cpus-per-task", "4", "--mem", "6G", "--sbatch-arg=--account=lab", "--script", path))
    assert done.returncode == 0, done.stderr
    assert written_script(done.stdout) == path and f"submit it with: sbatch {path}" in done.stdout
    script = path.read_text()
    assert "#SBATCH --array=0-1%3\n" in script
    assert "#SBATCH --output=mewl-render-%A_%a.out\n" in script  # where sbatch runs: nothing in OUT
    for line in ("--time=02:00:00", "--partition=gpu", "--cpus-per-task=4", "--mem=6G", "--account=lab"):
        assert f"#SBATCH {line}\n" in script
    assert "gpus-per-task" not in script  # 0 GPUs: nothing requested
    assert script.splitlines()[0] == "#!/bin/bash" and "set -euo pipefail\n" in script
    assert f"exec {MEWL[0]} render --task {TASKS} --n {N} --out {out} --split train --seed 7 --quality preview " \
           f'--device cpu --shard "${{shard}}/{SHARDS}"' in script
    assert not out.exists()  # `mewl render` claims OUT when the array starts


def test_without_submit_or_script_the_script_is_printed_and_nothing_written(tmp_path):
    out = tmp_path / "data"
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", out, "--array", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#!/bin/bash\n") and "#SBATCH --array=0-1\n" in done.stdout
    assert done.stderr.count("\n") == 1 and "2 of 2 shards (0-1), 4 episode(s) missing" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# 1 GB for mewl render, 2 GB per Blender: up to 4 per GPU unless --workers-per-gpu says, one on a CPU node.
@pytest.mark.parametrize("gpus, cpus, mem", [("1", 4, "9G"), ("2", 8, "17G"), ("0", 8, "3G")])
def test_cpus_and_memory_are_requested_by_default(tmp_path, gpus, cpus, mem):
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4", "--gpus-per-task", gpus)
    assert f"#SBATCH --cpus-per-task={cpus}\n#SBATCH --mem={mem}\n" in done.stdout, done.stdout
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4",
                "--sbatch-arg=--mem-per-gpu=8G")
    assert "#SBATCH --mem-per-gpu=8G\n" in done.stdout and "--mem=" not in done.stdout  # sbatch takes one


def test_workers_per_gpu_reach_the_render_command_and_size_the_memory(tmp_path):
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4", "--gpus-per-task", "2",
                "--workers-per-gpu", "3")
    assert done.returncode == 0, done.stderr
    assert "#SBATCH --mem=13G\n" in done.stdout and "--workers-per-gpu 3 --shard" in done.stdout, done.stdout
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4")
    assert "--workers-per-gpu" not in done.stdout.split("exec ", 1)[1]  # each node uses its measurement


def test_gpus_are_requested_per_array_task(tmp_path):
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4", "--gpus-per-task", "2")
    assert "#SBATCH --ntasks=1\n#SBATCH --gpus-per-task=2\n" in done.stdout and "--device auto" in done.stdout


@pytest.mark.parametrize("form, directive", [("gpus-per-task", "--gpus-per-task=2"), ("gres", "--gres=gpu:2"),
                                             ("gres:a100", "--gres=gpu:a100:2")])
def test_the_gpus_are_asked_for_in_the_form_the_cluster_takes(tmp_path, form, directive):
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4", "--gpus-per-task", "2",
                "--gpu-request", form)
    assert done.returncode == 0, done.stderr
    asked = [line for line in done.stdout.splitlines() if re.match(r"#SBATCH --(gres|gpus)", line)]
    assert asked == [f"#SBATCH {directive}"]  # one form, never both: a GRES-only cluster refuses --gpus-per-task
    done = mewl("slurm", "--task", "shape", "--n", "4", "--out", tmp_path / "d", "--array", "4", "--gpus-per-task", "0",
                "--device", "cpu", "--gpu-request", form)
    assert not re.search(r"--(gres|gpus)", done.stdout.split("exec ", 1)[0])  # CPU nodes: no GPU asked in any form


def test_rerun_writes_only_shards_with_missing_episodes(tmp_path):
    out = claimed(tmp_path / "data")
    args = ["slurm", "--task", "shape", "--n", "8", "--out", out, "--array", "4", "--max-parallel", "2"]
    assert "#SBATCH --array=0-3%2\n" in mewl(*args).stdout
    for i in (0, 4, 2, 6):  # shards 0 and 2 done; shard 1 half done
        mark_complete(out, "shape", i)
    mark_complete(out, "shape", 1)
    done = mewl(*args)
    assert "2 of 4 shards (1,3), 3 episode(s) missing" in done.stderr
    assert "#SBATCH --array=1,3%2\n" in done.stdout
    for i in (5, 3, 7):
        mark_complete(out, "shape", i)
    done = mewl(*args)
    assert done.returncode == 0 and done.stdout.startswith("nothing missing")
    assert not (out / "slurm").exists()


def test_a_folder_with_other_settings_is_refused(tmp_path):
    out = claimed(tmp_path / "data")
    before = sorted(out.rglob("*"))
    done = mewl("slurm", "--task", "shape", "--n", "2", "--out", out, "--array", "2", "--seed", "1")
    assert done.returncode == 2 and "holds a different dataset: seed=0 (asked 1)" in done.stderr
    assert sorted(out.rglob("*")) == before


@pytest.mark.parametrize("bad, message", [
    (["--array", "0"], "--array must be at least 1"),
    (["--array", "3"], "--array 3 is more than --n 2"),
    (["--array", "2", "--time", "1:00"], "--time must be a positive HH:MM:SS"),
    (["--array", "2", "--time", "00:00:00"], "--time must be a positive HH:MM:SS"),
    (["--array", "2", "--max-parallel", "0"], "--max-parallel must be at least 1"),
    (["--array", "2", "--gpus-per-task", "-1"], "--gpus-per-task must be at least 0"),
    (["--array", "2", "--partition", "a b"], "--partition must be a partition name"),
    (["--array", "2", "--sbatch-arg=--array=0-9"], "mewl slurm sets --array itself"),
    (["--array", "2", "--sbatch-arg=--mem=4G"], "mewl slurm sets --mem itself"),
    (["--array", "2", "--sbatch-arg=-c2"], "mewl slurm sets -c2 itself"),
    (["--array", "2", "--mem", "lots"], "--mem must be a size as sbatch takes it"),
    (["--array", "2", "--mem", "0"], "--mem must be a size as sbatch takes it"),
    # a line break would end the script's #SBATCH line, and a pattern's `$` matches before a last one
    (["--array", "2", "--time", "1:00:00\n"], "--time must be a positive HH:MM:SS"),
    (["--array", "2", "--partition", "gpu\n"], "--partition must be a partition name"),
    (["--array", "2", "--mem", "4G\n"], "--mem must be a size as sbatch takes it"),
    (["--array", "2", "--cpus-per-task", "0"], "--cpus-per-task must be at least 1"),
    (["--array", "2", "--workers-per-gpu", "0"], "--workers-per-gpu must be at least 1"),
    (["--array", "2", "--gpus-per-task", "0", "--workers-per-gpu", "2"], "--workers-per-gpu needs GPUs"),
    (["--array", "2", "--script", "/tmp"], "--script /tmp: is a folder"),
    (["--array", "2", "--script", "x.sbatch", "--submit"], "with --submit the scripts are kept under OUT/slurm"),
    (["--array", "2", "--quality", "best"], "unknown quality 'best'"),
    (["--array", "2", "--gpu-request", "gpus"], "--gpu-request must be gpus-per-task, gres or gres:TYPE"),
    (["--array", "2", "--gpu-request", "gres:a 100"], "--gpu-request must be gpus-per-task, gres or gres:TYPE"),
    (["--array", "2", "--submit"], "--submit needs sbatch, which is not on PATH"),
])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, bad, message):
    out = tmp_path / "data"
    done = mewl("slurm", "--task", "shape", "--n", "2", "--out", out, *bad, env={**os.environ, "PATH": "/nonexistent"})
    assert done.returncode == 2
    assert done.stderr.startswith("mewl: error: ") and message in done.stderr and done.stderr.count("\n") == 1
    assert not out.exists()


# -- real SLURM -----------------------------------------------------------------
def rendered_locally(folder: Path, dataset: list[str]) -> Path:
    """The dataset rendered locally, without shards."""
    out = folder / "data"
    done = mewl("render", *dataset, "--out", out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    return rendered_locally(tmp_path_factory.mktemp("local"), DATASET)


def submit(cluster, out: Path, cwd: Path, dataset: list[str] = DATASET, *extra: str) -> tuple[str, str, str]:
    """`mewl slurm --submit`; returns (array job, completion job, stdout)."""
    args = ["slurm", *dataset, "--out", out, "--array", str(SHARDS), "--gpus-per-task", "0", "--cpus-per-task", "1",
            "--max-parallel", "2", "--time", "00:10:00", "--submit", *extra]
    done = mewl(*args, env=cluster.env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    array_job = re.search(r"submitted array job (\d+)", done.stdout).group(1)
    check_job = re.search(r"submitted completion check job (\d+)", done.stdout).group(1)
    return array_job, check_job, done.stdout


def assert_same_dataset(out: Path, reference: Path, tasks: list[str]) -> None:
    for task in tasks:
        theirs, ours = reference / "train" / task, out / "train" / task
        assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in theirs.iterdir())
        for episode in sorted(p for p in theirs.iterdir() if not p.name.startswith(".")):
            names = sorted(p.name for p in episode.iterdir())
            assert sorted(p.name for p in (ours / episode.name).iterdir()) == names
            jsons = [n for n in names if n.endswith(".json")]
            match, mismatch, errors = filecmp.cmpfiles(episode, ours / episode.name, jsons, shallow=False)
            assert (mismatch, errors) == ([], []), f"{task}/{episode.name} differs from the local render"


def assert_complete(cluster, out: Path, check_job: str, episodes: int) -> None:
    states = cluster.wait(check_job, JOB_TIMEOUT)
    log = (out / "slurm" / "logs" / f"complete-{check_job}.out").read_text()
    assert states == {check_job: "COMPLETED"}, log
    assert f"{episodes}/{episodes} episodes complete" in log
    assert mewl("status", out).returncode == 0


@pytest.mark.render
@pytest.mark.slurm
@pytest.mark.e2e
def test_array_renders_the_dataset_like_a_local_run(slurm_cluster, reference, tmp_path):
    out = tmp_path / "data"
    array_job, check_job, _ = submit(slurm_cluster, out, tmp_path)
    states = slurm_cluster.wait(array_job, JOB_TIMEOUT)
    logs = {p.name: p.read_text() for p in (out / "slurm" / "logs").glob(f"{array_job}_*.out")}
    assert states == {f"{array_job}_{i}": "COMPLETED" for i in range(SHARDS)}, logs
    assert sorted(logs) == [f"{array_job}_{i}.out" for i in range(SHARDS)]
    for i in range(SHARDS):
        assert f"mewl: shard {i}/{SHARDS} of {out} on " in logs[f"{array_job}_{i}.out"]
    assert_complete(slurm_cluster, out, check_job, len(TASKS.split(",")) * N)
    assert_same_dataset(out, reference, TASKS.split(","))


@pytest.mark.render
@pytest.mark.slurm
@pytest.mark.e2e
def test_a_script_submitted_by_hand_renders_the_dataset_like_a_local_run(slurm_cluster, reference, tmp_path):
    """Without --submit nothing goes into OUT; the array tasks claim the new OUT themselves, side by side."""
    out, script, jobs = tmp_path / "data", tmp_path / "render.sbatch", tmp_path / "jobs"
    done = mewl(*slurm_args(out, "--script", script))
    assert done.returncode == 0 and not out.exists(), done.stderr
    jobs.mkdir()
    sbatch = subprocess.run(["sbatch", "--parsable", str(script)], cwd=jobs, env=slurm_cluster.env,
                            capture_output=True, text=True, timeout=60)
    assert sbatch.returncode == 0, sbatch.stderr
    array_job = sbatch.stdout.strip().split(";")[0]
    states = slurm_cluster.wait(array_job, JOB_TIMEOUT)
    logs = {p.name: p.read_text() for p in jobs.glob("mewl-render-*.out")}
    assert states == {f"{array_job}_{i}": "COMPLETED" for i in range(SHARDS)}, logs
    assert sorted(logs) == [f"mewl-render-{array_job}_{i}.out" for i in range(SHARDS)]
    assert mewl("status", out).returncode == 0
    assert_same_dataset(out, reference, TASKS.split(","))


@pytest.mark.render
@pytest.mark.slurm
@pytest.mark.e2e
def test_resubmission_renders_only_the_cancelled_shard(slurm_cluster, reference, tmp_path):
    """Shard 1 is cancelled as soon as SLURM says it runs: the event the test waits on comes before its `mewl` has
    even started Python, let alone Blender, so a preview episode cannot finish first. (Cancelled while pending, a
    task would leave SLURM's records without a state to report.) A shard stopped midway through its images is
    tests/cluster/test_pipeline_e2e.py's (SIGTERM and kill -9: only complete episodes kept)."""
    out, dataset = tmp_path / "data", DATASET
    # Held until the second submission has been refused: two preview episodes can finish before it starts.
    array_job, check_job, _ = submit(slurm_cluster, out, tmp_path, dataset, "--sbatch-arg=--hold")
    twice = mewl("slurm", *dataset, "--out", out, "--array", str(SHARDS), "--gpus-per-task", "0", "--submit",
                 env=slurm_cluster.env)
    assert twice.returncode == 2 and f"array job {array_job} for {out} still has shards queued or running" in twice.stderr
    slurm_cluster.run("scontrol", "release", array_job, check_job)
    shard = f"{array_job}_1"  # a record of its own once it leaves the pending array
    started = slurm_cluster.wait(array_job, JOB_TIMEOUT, done=lambda states: states.get(shard, "PENDING") != "PENDING")
    assert started[shard] == "RUNNING", started
    slurm_cluster.run("scancel", shard)
    states = slurm_cluster.wait(array_job, JOB_TIMEOUT)
    assert states == {f"{array_job}_0": "COMPLETED", f"{array_job}_1": "CANCELLED"}
    # The completion job runs all the same (afterany): it reports the cancelled shard and fails, OUT being incomplete.
    assert slurm_cluster.wait(check_job, JOB_TIMEOUT) == {check_job: "FAILED"}
    report = (out / "slurm" / "logs" / f"complete-{check_job}.out").read_text()
    assert re.search(r"^  shard 1 CANCELLED\b.* 0/1 episodes complete", report, re.M), report
    assert "1/2 episodes complete, dataset incomplete" in report
    assert mewl("status", out).returncode == 1

    again, check_again, stdout = submit(slurm_cluster, out, tmp_path, dataset)
    assert "1 of 2 shards (1), 1 episode(s) missing" in stdout
    assert "#SBATCH --array=1%2\n" in written_script(stdout).read_text()
    assert slurm_cluster.wait(again, JOB_TIMEOUT) == {f"{again}_1": "COMPLETED"}
    assert_complete(slurm_cluster, out, check_again, N)
    assert layout.partial_items(out) == [], "a partial episode folder was left behind"
    assert_same_dataset(out, reference, ["shape"])

    done = mewl("slurm", *dataset, "--out", out, "--array", str(SHARDS), "--gpus-per-task", "0", "--submit",
                env=slurm_cluster.env)
    assert done.returncode == 0 and done.stdout.startswith("nothing missing"), done.stderr
    records = [json.loads(line) for line in (out / "slurm" / "submissions.jsonl").open()]
    assert [r["array_job"] for r in records if "array_job" in r] == [array_job, again]
