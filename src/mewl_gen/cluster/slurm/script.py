"""The sbatch scripts `mewl slurm` writes, and talking to sbatch, scontrol and squeue.

One array task renders one shard (episodes i with i % K == shard) on its own
GPU; a second, one-task job waits for the whole array, whatever became of its
tasks (afterany), and writes `mewl status OUT` to its log: the report of what
is complete, and of what failed and why.
"""
from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.store.status import ranges as index_ranges

from ..calibrate import CANDIDATES
from ..hardware import MEM_PARENT_MB, MEM_PER_WORKER_MB

RENDER_JOB = "mewl-render"
COMPLETE_JOB = "mewl-complete"
# Default requests per array task, which runs --workers-per-gpu Blender workers per GPU (one on
# CPU nodes); without it as many as `mewl calibrate` may choose (cluster.calibrate.CANDIDATES),
# each with the memory cluster.hardware budgets for a worker.
# CPUs: a GPU worker still builds scenes, writes PNGs and reads the index pass on the CPU.
CPUS_PER_GPU, CPUS_WITHOUT_GPU = 4, 8


def default_mem(gpus_per_task: int, workers_per_gpu: int | None = None) -> str:
    per_gpu = (workers_per_gpu or max(CANDIDATES)) if gpus_per_task else 1
    mb = MEM_PARENT_MB + MEM_PER_WORKER_MB * max(1, gpus_per_task) * per_gpu
    return f"{mb // 1024}G" if mb % 1024 == 0 else f"{mb}M"


def default_cpus(gpus_per_task: int) -> int:
    return CPUS_PER_GPU * gpus_per_task if gpus_per_task else CPUS_WITHOUT_GPU


@dataclass(frozen=True)
class Request:
    """Everything that goes into the scripts, already checked."""

    mewl: Path
    tasks: list[str]
    n: int
    out: Path
    split: str
    seed: int
    quality: str
    device: str
    shards: int
    max_parallel: int | None
    partition: str | None
    gpus_per_task: int
    cpus_per_task: int
    mem: str
    time: str | None
    sbatch_args: list[str]
    submit_dir: Path
    scheme: str = "iid"
    logs: Path | None = None  # --log-dir; None: OUT/slurm/logs
    configs: tuple = ()  # (benchmark, config) pairs, as cluster.planning.Settings holds them
    workers_per_gpu: int | None = None  # None: each array task uses the measured number (cluster.calibrate)
    config_args: tuple[str, ...] = ()  # the same as command-line options for `mewl render`
    passes: tuple[str, ...] = ()  # extra passes beside each image (render.passes)
    gpu_request: str = "gpus-per-task"  # --gpu-request: gpus-per-task, gres or gres:TYPE

    @property
    def slurm_dir(self) -> Path:
        return self.out / "slurm"

    @property
    def log_dir(self) -> Path:
        return self.logs or self.slurm_dir / "logs"

    @property
    def held(self) -> bool:
        """The user holds the jobs (--sbatch-arg=--hold): `mewl slurm` does not release them."""
        return any(a in ("--hold", "-H") for a in self.sbatch_args)


def ranges(shards: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8', sbatch's --array syntax."""
    return index_ranges(shards, sep=",")


def array_spec(shards: list[int], max_parallel: int | None) -> str:
    """The shards to run, throttled to M at once with '%M'."""
    return ranges(shards) + (f"%{max_parallel}" if max_parallel else "")


def _common_directives(req: Request) -> list[str]:
    lines = []
    if req.partition:
        lines.append(f"--partition={req.partition}")
    if req.time:
        lines.append(f"--time={req.time}")
    return lines + req.sbatch_args


def _header(directives: list[str], comment: str) -> str:
    return "\n".join(["#!/bin/bash", comment, *(f"#SBATCH {d}" for d in directives)]) + "\n"


def gpu_directive(form: str, gpus: int) -> str:
    """The array task's GPUs in the form its cluster takes: some refuse --gpus-per-task and take only GRES
    (with --ntasks=1 a node's GRES is the task's)."""
    if form == "gpus-per-task":
        return f"--gpus-per-task={gpus}"
    kind = form.partition(":")[2]
    return f"--gres=gpu:{kind}:{gpus}" if kind else f"--gres=gpu:{gpus}"


def render_script(req: Request, shards: list[int], log_dir: Path | None) -> str:
    """log_dir None: logs in the folder sbatch runs in (a script the user submits,
    which must not need a folder in OUT that `mewl render` has not claimed yet).
    A requeued task appends to its log (--open-mode=append) and says so."""
    directives = [
        f"--job-name={RENDER_JOB}",
        f"--array={array_spec(shards, req.max_parallel)}",
        f"--output={log_dir}/%A_%a.out" if log_dir else f"--output={RENDER_JOB}-%A_%a.out",
        "--open-mode=append",
        *_chdir(req, log_dir),
        "--ntasks=1",
    ]
    if req.gpus_per_task:
        directives.append(gpu_directive(req.gpu_request, req.gpus_per_task))
    directives.append(f"--cpus-per-task={req.cpus_per_task}")
    if not any(a.startswith("--mem-per-") for a in req.sbatch_args):  # sbatch refuses both
        directives.append(f"--mem={req.mem}")
    directives += _common_directives(req)
    comment = (
        f"# Written by `mewl slurm`: task(s) {','.join(req.tasks)} x {req.n} episodes of split {req.split}\n"
        f"# into {req.out}, array task I rendering the episodes i with i % {req.shards} == I.\n"
        "# Rerun the same `mewl slurm` command to resubmit only shards with missing episodes."
    )
    render = [
        str(req.mewl), "render", "--task", ",".join(req.tasks), "--n", str(req.n), "--out", str(req.out),
        "--split", req.split, "--seed", str(req.seed), "--quality", req.quality, "--device", req.device,
    ] + ([] if req.scheme == "iid" else ["--split-scheme", req.scheme]) + list(req.config_args) + (
        ["--workers-per-gpu", str(req.workers_per_gpu)] if req.workers_per_gpu else []) + (
        ["--passes", ",".join(req.passes)] if req.passes else [])
    k = req.shards
    body = f"""\
set -euo pipefail
shard="${{SLURM_ARRAY_TASK_ID:?submit this script with sbatch; it is an array job}}"
echo "mewl: shard ${{shard}}/{k} of {shlex.quote(str(req.out))} on $(hostname) at $(date '+%F %T')"
echo "mewl: job ${{SLURM_ARRAY_JOB_ID:-?}}_${{shard}}, device {req.device}, CUDA_VISIBLE_DEVICES=${{CUDA_VISIBLE_DEVICES:-unset}}"
if [ "${{SLURM_RESTART_COUNT:-0}}" -gt 0 ]; then
  echo "mewl: requeued by SLURM (restart ${{SLURM_RESTART_COUNT}}): complete episodes are kept, the rest of the shard follows"
fi
exec {shlex.join(render)} --shard "${{shard}}/{k}"
"""
    return _header(directives, comment) + body


def complete_script(req: Request, array_job: str) -> str:
    directives = [
        f"--job-name={COMPLETE_JOB}",
        f"--output={req.log_dir}/complete-%j.out",
        "--open-mode=append",
        *_chdir(req, req.log_dir),
        "--ntasks=1",
        *_common_directives(req),
    ]
    comment = (f"# Written by `mewl slurm`: runs when array job {array_job} has ended, whatever became of its tasks;\n"
               "# reports what is complete, and what failed and why. It fails while anything is missing.")
    body = f"""\
set -uo pipefail
echo "mewl: checking {shlex.quote(str(req.out))} after array job {array_job} on $(hostname) at $(date '+%F %T')"
[ ! -d {shlex.quote(str(req.out / req.split))} ] || {shlex.join([str(req.mewl), "index", str(req.out), "--split", req.split])} \\
  || echo "mewl: the index was not rebuilt (above)"
exec {shlex.join([str(req.mewl), "status", str(req.out)])}
"""
    return _header(directives, comment) + body


def _chdir(req: Request, log_dir: Path | None) -> list[str]:
    """Jobs `mewl slurm --submit` sends start in the install's folder, which every
    node sees anyway: the folder sbatch ran from need not exist there. A script the
    user submits keeps SLURM's default, which its relative log name needs."""
    return [f"--chdir={install_dir(req.mewl)}"] if log_dir else []


def install_dir(mewl: Path) -> Path:
    """The checkout of `<checkout>/.venv/bin/mewl`, else the folder of the executable."""
    return mewl.parents[2] if mewl.parent.parent.name == ".venv" else mewl.parent


def sbatch(script: str, *options: str, cwd: Path, what: str) -> str:
    """Submit the script's text (on stdin: it is kept in OUT only once accepted); the job id."""
    argv = ["sbatch", "--parsable", *options]
    try:
        done = subprocess.run(argv, input=script, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise UserError(f"sbatch failed for the {what}: {err}") from None
    if done.returncode != 0:
        lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
        reason = lines[-1].removeprefix("sbatch: error: ") if lines else f"exit code {done.returncode}"
        raise UserError(f"sbatch refused the {what}: {reason}")
    return done.stdout.strip().split(";")[0]


def will_run(script: str, cwd: Path) -> None:
    """SLURM's own verdict on the whole request (`sbatch --test-only`, nothing
    submitted): a node list, constraint or scratch space no node of the partition
    has is refused here rather than left pending for ever."""
    try:
        sbatch(script, "--test-only", cwd=cwd, what="array")
    except UserError as err:
        raise UserError(f"no node can run the array as asked: {str(err).split(': ', 1)[1]} (sbatch --test-only, "
                        "so with --sbatch-arg too); nothing was submitted") from None


def scontrol(*argv: str) -> str | None:
    """Run `scontrol ARGV`; None when it worked, else its last line."""
    try:
        done = subprocess.run(["scontrol", *argv], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return None if done.returncode == 0 else (lines[-1] if lines else f"exit code {done.returncode}")


def scancel(*jobs: str) -> None:
    """Best effort: the jobs are being given up because of an error said already."""
    try:
        subprocess.run(["scancel", *jobs], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        pass


def active_shards(job_ids: list[str]) -> dict[str, list[str]]:
    """Array tasks of these jobs still queued or running, by job id. Also the
    check that the SLURM controller answers, before anything is written."""
    try:
        done = subprocess.run(["squeue", "-h", "-r", "-o", "%F %K"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise UserError(f"squeue failed: {err}") from None
    if done.returncode != 0:
        reason = (done.stderr.strip() or f"exit code {done.returncode}").splitlines()[-1]
        raise UserError(f"cannot reach SLURM (squeue: {reason}); is this a login node of the cluster?")
    active: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        job, _, task = line.strip().partition(" ")
        if job in job_ids:
            active.setdefault(job, []).append(task)
    return active
