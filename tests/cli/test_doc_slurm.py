"""docs/slurm.md's and reference.md's `--submit` blocks on the suite's own SLURM cluster: submit an array, monitor
it, and (reference.md) submit it again (tests/cli/docs_blocks.py says how a block is rewritten and run)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.docs_blocks import complete, run, scaled
from tests.slurm_cluster import slurm_cluster  # noqa: F401  (the fixture)

JOB_TIMEOUT = 300  # seconds; each wait on a job is bounded


def commands(code: str) -> list[str]:
    """The block's commands, one a line: continued lines joined, comments and blank lines left out."""
    lines = re.sub(r"\\\n\s*", "", code).splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def submitted(cluster, code: str, here: Path) -> tuple[str, str]:
    """Runs the submit line: SLURM accepted the array and the completion check job is submitted; their ids."""
    done = run(code, here, cluster.env)
    assert re.search(r"^SLURM accepted array job \d+: partition debug", done.stdout, re.M), done.stdout
    array = re.search(r"^submitted array job (\d+); logs in ", done.stdout, re.M).group(1)
    check = re.search(rf"^submitted completion check job (\d+) \(afterany:{array}\b", done.stdout, re.M).group(1)
    return array, check


def ended(cluster, here: Path, array: str, check: str) -> str:
    """Waits on the array and its completion job; the completion job's report, in the log the page names."""
    assert cluster.wait(array, JOB_TIMEOUT) == {f"{array}_0": "COMPLETED"}
    logs = here / "mewl" / "slurm" / "logs"
    states, report = cluster.wait(check, JOB_TIMEOUT), logs / f"complete-{check}.out"
    assert report.is_file() and (logs / f"{array}_0.out").is_file()
    assert states == {check: "COMPLETED"}, report.read_text()
    return report.read_text()


@pytest.mark.render
@pytest.mark.slurm
def test_the_slurm_pages_submit_and_monitor_blocks_run_on_a_cluster(slurm_cluster, tmp_path):
    (submit,) = commands(scaled("slurm submit"))
    array, check = submitted(slurm_cluster, submit, tmp_path)
    monitor = [line.replace("{check}", check).replace("{array}", array) for line in commands(scaled("slurm monitor"))]
    assert [line.split()[0] for line in monitor] == ["squeue", "squeue", "tail", ".venv/bin/mewl"]
    queued = run(monitor[1], tmp_path, slurm_cluster.env)  # the completion job, waiting or (a fast array) done
    assert re.search(rf"^{check} (PENDING Dependency|RUNNING|COMPLETING|COMPLETED)\b", queued.stdout, re.M), queued.stdout
    run(monitor[0], tmp_path, slurm_cluster.env)
    assert "1/1 episodes complete" in ended(slurm_cluster, tmp_path, array, check)
    log = run(monitor[2], tmp_path, slurm_cluster.env).stdout
    assert f"shard 0/1 of {tmp_path / 'mewl'} on " in log  # host, shard, device, then the render
    run(monitor[3], tmp_path, slurm_cluster.env)  # exits 0: every planned episode complete
    assert complete(tmp_path / "mewl", "shape", 1)


@pytest.mark.render
@pytest.mark.slurm
def test_the_reference_pages_slurm_block_submits_monitors_and_resubmits(slurm_cluster, tmp_path):
    lines = commands(scaled("reference slurm"))
    assert [line.split()[:2] for line in lines] == [
        [".venv/bin/mewl", "slurm"], ["squeue", "--me"], ["tail", "{here}/mewl/slurm/logs/{array}_0.out"],
        [".venv/bin/mewl", "status"], [".venv/bin/mewl", "slurm"]]
    array, check = submitted(slurm_cluster, lines[0], tmp_path)
    run(lines[1], tmp_path, slurm_cluster.env)
    assert "1/1 episodes complete" in ended(slurm_cluster, tmp_path, array, check)
    run(lines[2].replace("{array}", array), tmp_path, slurm_cluster.env)
    run(lines[3], tmp_path, slurm_cluster.env)  # exits 0: every planned episode complete
    again = run(lines[4], tmp_path, slurm_cluster.env)  # "the same command", with nothing left to render
    assert again.stdout.startswith("nothing missing"), again.stdout
