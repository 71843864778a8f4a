"""`mewl slurm` against what a real cluster does (tests/slurm_cluster.py: one
node of this machine's 2 CPUs, so a 2-CPU partition, and a partition whose
MaxTime is 5 minutes): requests no node can run refused before anything is
submitted or written, defaults fitted to the partition, `mewl status` while an
array pends, when a pending reason can never clear and after an array task was
killed, and the completion report written after that failure. No episode is
rendered: a task is requeued and killed before its first image.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.cluster.slurm.test_arrays import mewl
from tests.slurm_cluster import SHORT, SHORT_MAX_TIME, slurm_cluster  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.slurm]
DATASET = ["--task", "shape", "--n", "1", "--array", "1", "--device", "cpu", "--seed", "7"]
TIMEOUT = 180  # seconds; each wait is bounded


def slurm(cluster, out: Path, *extra: str, cwd: Path | None = None):
    return mewl("slurm", *DATASET, "--out", out, "--gpus-per-task", "0", "--submit", *extra, env=cluster.env, cwd=cwd)


def job_ids(stdout: str) -> tuple[str, str]:
    return (re.search(r"submitted array job (\d+)", stdout).group(1),
            re.search(r"submitted completion check job (\d+)", stdout).group(1))


def wait_for(what: str, ready, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"{what}: not after {timeout} s"
        time.sleep(0.2)


def test_requests_no_node_can_run_are_refused_and_defaults_fitted(slurm_cluster, tmp_path):
    out = tmp_path / "data"
    memory = int(slurm_cluster.run("sinfo", "-h", "-N", "-o", "%m").split()[0])
    for extra, message in [
        (["--gpus-per-task", "1", "--device", "auto"], "partition debug has no GPUs: use --gpus-per-task 0 --device cpu"),
        (["--cpus-per-task", "3"], "no node of partition debug has more than 2 CPUs for a job; use --cpus-per-task 2 or less"),
        (["--mem", f"{memory + 1}M"], f"has more than {memory}M for a job; use --mem {memory}M or less"),
        (["--partition", SHORT, "--time", "00:05:01"],
         f"--time 00:05:01 is over the MaxTime of partition {SHORT} ({SHORT_MAX_TIME}); use --time {SHORT_MAX_TIME} or less"),
        (["--partition", "gpu"], "--partition gpu: no such partition; this cluster has debug, short"),
        (["--sbatch-arg=--tmp=100T"], ("no node can run the array as asked: allocation failure: Requested node "
                                        "configuration is not available (sbatch --test-only, so with --sbatch-arg too)")),
        (["--sbatch-arg=--constraint=nosuchfeature"], ("no node can run the array as asked: allocation failure: "
                                                       "Invalid feature specification")),
    ]:
        done = slurm(slurm_cluster, out, "--quality", "preview", *extra)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (extra, done.stderr)
        assert done.stderr.startswith("mewl: error: ") and message in done.stderr, (extra, done.stderr)
        assert not out.exists(), f"{extra}: OUT was written"  # its settings are not fixed by a refusal
        assert slurm_cluster.run("squeue", "-h") == "", f"{extra}: a job was left queued"

    # Corrected, with another quality: accepted; 8 CPUs by default on a CPU node, fitted to the node's 2.
    done = slurm(slurm_cluster, out, "--quality", "default", "--sbatch-arg=--hold")
    assert done.returncode == 0, done.stderr
    assert "mewl slurm: the nodes of partition debug have at most 2 CPUs for a job: asking --cpus-per-task 2 (default 8)" \
        in done.stdout
    array, check = job_ids(done.stdout)
    try:
        assert f"SLURM accepted array job {array}: partition debug, 2 CPU(s), 3G of memory" in done.stdout
        assert slurm_cluster.job_field(array, "NumCPUs") == "2"
        assert json.loads((out / "mewl-dataset.json").read_text())["quality"] == "default"

        status = mewl("status", out, env=slurm_cluster.env)
        assert status.returncode == 1
        assert re.search(r"^  shard 0 PENDING \(JobHeldUser\) +0/1 episodes complete, 1 missing$", status.stdout, re.M)
        assert f"completion job {check}: PENDING" in status.stdout

        # The cluster changes under a queued array (here, an admin asks more CPUs than the node has):
        # SLURM leaves it pending for ever, and `mewl status` says so.
        slurm_cluster.run("scontrol", "update", f"JobId={array}", "NumCPUs=4", check=False)  # done, "not available now"
        assert slurm_cluster.job_field(array, "NumCPUs") == "4"
        slurm_cluster.run("scontrol", "release", array, check=False)  # released, with the same words
        wait_for("PartitionConfig", lambda: slurm_cluster.job_field(array, "Reason") == "PartitionConfig", 30)
        status = mewl("status", out, env=slurm_cluster.env)
        assert re.search(r"^  shard 0 PENDING \(PartitionConfig\) ", status.stdout, re.M), status.stdout
        assert f"shard(s) 0 can never start (PartitionConfig: it asks for more CPUs, memory, GPUs or nodes than its " \
               f"partition allows): scancel {array}, then rerun `mewl slurm`" in status.stdout
    finally:
        slurm_cluster.run("scancel", array, check)


@pytest.mark.render
def test_a_killed_array_task_is_reported_by_status_and_the_completion_job(slurm_cluster, tmp_path):
    """Logs off OUT, and a submit folder the nodes lack; the task is requeued (its log
    goes on), then killed: status and the completion report name it, with its exit code."""
    out, logs, here = tmp_path / "data", tmp_path / "logs", tmp_path / "submitted-from"
    here.mkdir()
    done = slurm(slurm_cluster, out, "--quality", "preview", "--log-dir", logs, cwd=here)
    assert done.returncode == 0, done.stderr
    here.rmdir()  # the jobs start in the checkout, not here
    array, check = job_ids(done.stdout)
    log = logs / f"{array}_0.out"

    def logged(text: str):
        return lambda: log.is_file() and text in log.read_text()

    wait_for("the first attempt's workers", logged("worker(s) on cpu"))
    slurm_cluster.run("scontrol", "requeue", f"{array}_0")

    def requeued() -> bool:  # the first attempt has ended on its node, and the task waits to run again
        return (slurm_cluster.job_states(array) == {f"{array}_0": "PENDING"}
                and set(slurm_cluster.run("sinfo", "-h", "-N", "-o", "%T").split()) == {"idle"})  # once per partition

    wait_for("the requeued task pending", requeued)
    # Not after SLURM's delay of about 2 minutes, but not in the second the first attempt's credential was
    # revoked either (before its node was idle): slurmd refuses a credential made in that second.
    ended = int(time.time())
    wait_for("the next second", lambda: int(time.time()) > ended, 2)
    slurm_cluster.run("scontrol", "update", f"JobId={array}_0", "StartTime=now")
    wait_for("the second attempt", logged("requeued by SLURM (restart 1)"))
    task = slurm_cluster.job_field(f"{array}_0", "JobId")
    for line in slurm_cluster.run("scontrol", "listpids", task).splitlines()[1:]:  # like the OOM killer
        os.kill(int(line.split()[0]), 9)
    assert slurm_cluster.wait(array, TIMEOUT) == {f"{array}_0": "FAILED"}
    assert slurm_cluster.wait(check, TIMEOUT) == {check: "FAILED"}  # it ran (afterany); the dataset is incomplete

    text = log.read_text()
    assert text.count(f"mewl: shard 0/1 of {out} on ") == 2  # both attempts, in one log
    assert "SLURM is requeueing this job (restart 1)" in text and "rerun the same command" not in text
    assert not (out / "slurm" / "logs").exists()
    failed = r"^  shard 0 FAILED on \S+, exit code 0:9 \(killed by signal 9\).*, requeued 1 time\(s\) +0/1 episodes complete"
    report = (logs / f"complete-{check}.out").read_text()
    assert f"mewl: checking {out} after array job {array}" in report
    assert re.search(failed, report, re.M) and "0/1 episodes complete, dataset incomplete" in report, report
    assert f"\n    its log {log} ends: mewl: requeued by SLURM (restart 1)" in report  # killed right after that line
    status = mewl("status", out, env=slurm_cluster.env)
    assert status.returncode == 1 and re.search(failed, status.stdout, re.M), status.stdout
    assert f"completion job {check}: FAILED" in status.stdout and f"report in {logs}/complete-{check}.out" in status.stdout
