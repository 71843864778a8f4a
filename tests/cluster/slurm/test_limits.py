"""A request fitted to partitions as SLURM describes them (no SLURM needed:
partitions and nodes built as cluster.slurm.arrays.limits reads them), what SLURM's
answers mean, and the scripts' lines for requeues and failures."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from mewl_gen.cluster.slurm.jobs import TaskState, never_clears
from mewl_gen.cluster.slurm.limits import Node, Partition, fit
from mewl_gen.cluster.slurm.query import array_indices, gpus, megabytes, seconds
from mewl_gen.cluster.slurm.script import Request, complete_script, render_script
from mewl_gen.errors import UserError
from tests.cluster.slurm.test_arrays import mewl

REQ = Request(mewl=Path("/co/.venv/bin/mewl"), tasks=["shape"], n=4, out=Path("/data"), split="train", seed=0,
              quality="draft", device="auto", shards=2, max_parallel=None, partition=None, gpus_per_task=1,
              cpus_per_task=4, mem="9G", time=None, sbatch_args=[], submit_dir=Path("/tmp"))
CPU_REQ = dataclasses.replace(REQ, device="cpu", gpus_per_task=0, cpus_per_task=8, mem="3G")


def part(name="p", nodes=((2, 24000, 0),), max_time=None, max_cpus=None, max_mem=None, mem_per_cpu=None) -> Partition:
    return Partition(name, max_time, max_cpus, max_mem, mem_per_cpu,
                     tuple(Node(f"n{i}", c, m, g) for i, (c, m, g) in enumerate(nodes)))


def refused(req: Request, parts: list[Partition], given=frozenset()) -> str:
    with pytest.raises(UserError) as err:
        fit(req, parts, set(given))
    return str(err.value)


def test_defaults_are_fitted_to_the_partition_and_said():
    req, notes = fit(CPU_REQ, [part()], set())
    assert (req.cpus_per_task, req.mem) == (2, "3G")
    assert notes == ["the nodes of partition p have at most 2 CPUs for a job: asking --cpus-per-task 2 (default 8)"]
    req, notes = fit(REQ, [part(nodes=((64, 6000, 4),))], set())  # 9G for four workers on one GPU: 6000M fits fewer
    assert (req.cpus_per_task, req.mem) == (4, "6000M") and "asking --mem 6000M (default 9G)" in notes[0]
    req, _ = fit(CPU_REQ, [part("a"), part("b", nodes=((16, 24000, 0),))], set())  # a comma list: the most any offers
    assert req.cpus_per_task == 8
    req, notes = fit(dataclasses.replace(REQ, sbatch_args=["--mem-per-gpu=4G"]), [part(nodes=((8, 1000, 1),))], set())
    assert notes == [] and req.mem == "9G"  # memory asked per GPU: not --mem, SLURM checks it


@pytest.mark.parametrize("req, parts, given, message", [
    (REQ, [part()], (), "partition p has no GPUs: use --gpus-per-task 0 --device cpu, or a partition with GPUs"),
    (dataclasses.replace(REQ, gpus_per_task=4), [part(nodes=((8, 64000, 2),))], (),
     "--gpus-per-task 4: the nodes of partition p have at most 2 GPU(s); use --gpus-per-task 2 or less"),
    (dataclasses.replace(CPU_REQ, cpus_per_task=3), [part()], {"cpus"},
     "--cpus-per-task 3: no node of partition p has more than 2 CPUs for a job; use --cpus-per-task 2 or less"),
    (CPU_REQ, [part(nodes=((32, 64000, 0),), max_cpus=4)], {"cpus"},
     "--cpus-per-task 8: no node of partition p has more than 4 CPUs for a job; use --cpus-per-task 4 or less"),
    (dataclasses.replace(CPU_REQ, mem="30G"), [part(), part("q", max_mem=8000)], {"mem"},
     "--mem 30G: no node of partitions p,q with 2 CPUs has more than 24000M for a job; use --mem 24000M or less"),
    (CPU_REQ, [part(nodes=((2, 2000, 0),))], (),
     "no node of partition p with 2 CPUs has more than 2000M for a job, less than one Blender worker needs (3072M)"),
    (dataclasses.replace(REQ, workers_per_gpu=4), [part(nodes=((8, 6000, 1),))], (),
     ("--workers-per-gpu 4 needs --mem 9G: no node of partition p with 4 CPUs and 1 GPU(s) has more than 6000M for a "
      "job; use --workers-per-gpu 2 or less")),
    # More memory per CPU than MaxMemPerCPU makes SLURM add CPUs: 2 CPUs x 1000M is all a 2-CPU node gives.
    (dataclasses.replace(CPU_REQ, cpus_per_task=2, mem="4G"), [part(mem_per_cpu=1000)], {"cpus", "mem"},
     "has more than 2000M for a job; use --mem 2000M or less"),
    (dataclasses.replace(CPU_REQ, time="1-00:00:01"), [part(max_time=86400)], (),
     "--time 1-00:00:01 is over the MaxTime of partition p (1-00:00:00); use --time 1-00:00:00 or less"),
])
def test_a_request_no_node_can_run_is_one_line_naming_the_value_to_use(req, parts, given, message):
    assert message in refused(req, parts, given)


def test_slurm_numbers_and_states_read():
    assert [seconds(t) for t in ("5", "5:30", "1:00:00", "2-3", "2-03:04", "1-00:00:01", "UNLIMITED")] == \
        [300, 330, 3600, 183600, 183840, 86401, None]
    assert [megabytes(m) for m in ("8G", "8000", "512K", "1T", "UNLIMITED")] == [8192, 8000, 0, 1048576, None]
    assert array_indices("0-3,7%2") == [0, 1, 2, 3, 7] and gpus("gpu:a100:4(S:0-1),gpu:2,mps:100") == 6
    assert gpus("(null)") == 0
    assert TaskState("FAILED", "JobLaunchFailure", "0:9", "n1").describe() == \
        "FAILED on n1, exit code 0:9 (killed by signal 9), reason JobLaunchFailure"
    assert TaskState("PENDING", "Priority").describe() == "PENDING (Priority)" and not never_clears(TaskState("PENDING", "Priority"))
    assert never_clears(TaskState("PENDING", "PartitionTimeLimit")).startswith("PartitionTimeLimit: its --time is over")
    assert never_clears(TaskState("RUNNING", "PartitionConfig")) is None


def test_tasks_append_their_logs_say_a_requeue_and_start_in_the_checkout():
    script = render_script(REQ, [0, 1], log_dir=Path("/logs"))
    assert "#SBATCH --output=/logs/%A_%a.out\n#SBATCH --open-mode=append\n#SBATCH --chdir=/co\n" in script
    assert 'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then\n  echo "mewl: requeued by SLURM' in script
    assert "\ncd " not in script
    by_hand = render_script(REQ, [0, 1], log_dir=None)  # logs where sbatch runs, which it must stay in
    assert "--chdir" not in by_hand and "#SBATCH --output=mewl-render-%A_%a.out\n" in by_hand
    check = complete_script(REQ, "42")
    assert "whatever became of its tasks" in check and "set -e" not in check  # the report is written in any case


@pytest.mark.slow
def test_status_says_when_slurm_cannot_be_asked(tmp_path):
    out = tmp_path / "data"
    mewl("sample", "--task", "shape", "--n", "1", "--out", out)
    (out / "slurm").mkdir()
    (out / "slurm" / "submissions.jsonl").write_text('{"array_job": "42", "shards": [0], "of": 1}\n')
    done = mewl("status", out, env={**os.environ, "PATH": "/nonexistent"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(f"slurm: array job(s) 42 recorded in {out}/slurm/submissions.jsonl; "
                                                   "SLURM cannot be asked from here (scontrol failed: ")


def test_log_dir_is_made_for_a_script_and_checked(tmp_path):
    out, logs, script = tmp_path / "data", tmp_path / "logs", tmp_path / "render.sbatch"
    done = mewl("slurm", "--task", "shape", "--n", "2", "--out", out, "--array", "2", "--log-dir", logs, "--script", script)
    assert done.returncode == 0 and logs.is_dir() and not out.exists(), done.stderr  # SLURM would not make it
    assert f"#SBATCH --output={logs}/%A_%a.out\n#SBATCH --open-mode=append\n#SBATCH --chdir=" in script.read_text()
    (tmp_path / "file").write_text("")
    for log_dir, message in [(tmp_path / "file" / "logs", f"--log-dir: cannot create {tmp_path}/file/logs: "),
                             (out / "logs", "is inside --out")]:
        done = mewl("slurm", "--task", "shape", "--n", "2", "--out", out, "--array", "2", "--log-dir", log_dir)
        assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
