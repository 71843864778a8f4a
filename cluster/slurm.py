"""`mewl slurm`: render a dataset as a SLURM array, one shard per array task.

Shard I of K holds the episodes i with i % K == I (`mewl render --shard I/K`).
A rerun with the same options looks at OUT and submits only the shards that
still have episodes without info.json, so failed or cancelled array tasks are
redone and nothing finished is rendered twice. Without --submit nothing is
written into OUT: the script is printed, or written where --script says.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import time
from pathlib import Path

from . import dataset, options, presets, status
from .errors import UserError
from .planning import Settings
from .slurm_script import Request, active_shards, complete_script, default_cpus, default_mem, ranges, render_script, sbatch

SUBMISSIONS = "submissions.jsonl"
TIME_PATTERN = re.compile(r"^(?:(\d+)-)?(\d+):([0-5]\d):([0-5]\d)$")
PARTITION_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$")
MEM_PATTERN = re.compile(r"^[1-9][0-9]*[KMGTkmgt]?$")  # sbatch's --mem: megabytes, or with a unit
# Options the scripts set themselves (sharding, logs) or that have their own flag here.
OWN_SBATCH_OPTIONS = ("--array", "-a", "--output", "-o", "--error", "-e", "--dependency", "-d", "--parsable",
                      "--cpus-per-task", "-c", "--mem")


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "slurm", help="write (and --submit) a SLURM array that renders a dataset; a rerun resubmits missing shards"
    )
    options.add_dataset_arguments(s, preset=True, out_help="dataset folder, on storage every node sees")
    presets.add_arguments(s)
    s.add_argument("--array", required=True, metavar="K", help="shards = array tasks (each renders i %% K == I)")
    s.add_argument("--partition", default=None)
    s.add_argument("--gpus-per-task", default="1", metavar="G", help="GPUs per array task (default 1; 0 for CPU nodes)")
    s.add_argument("--workers-per-gpu", default=None, metavar="K",
                   help="Blender workers sharing each GPU (default: measured on the node, once per GPU model; "
                        "see `mewl calibrate`)")
    s.add_argument("--cpus-per-task", default=None, metavar="C",
                   help="CPU cores per array task (default 4 per GPU, 8 without GPUs)")
    s.add_argument("--mem", default=None, metavar="MEM",
                   help="memory per array task, as sbatch takes it (e.g. 8G; default 1G + 2G per Blender worker, "
                        "4 workers per GPU unless --workers-per-gpu says)")
    s.add_argument("--time", default=None, metavar="HH:MM:SS", help="time limit per array task ([D-]HH:MM:SS)")
    s.add_argument("--max-parallel", default=None, metavar="M", help="array tasks running at once (%%M)")
    s.add_argument("--quality", default="default")
    s.add_argument("--device", default="auto")
    s.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="extra sbatch option for both jobs, e.g. --sbatch-arg=--account=lab (repeatable)")
    s.add_argument("--submit", action="store_true",
                   help="write the scripts under OUT/slurm, run sbatch and print the job ids")
    s.add_argument("--script", default=None, type=lambda value: options.output(value, "--script"), metavar="PATH",
                   help="without --submit: write the script to PATH instead of printing it")
    s.add_argument("--force", action="store_true", help="with --script: replace an existing file at PATH")
    s.set_defaults(func=cmd_slurm)


def cmd_slurm(args) -> int:
    reqs = [request(run) for run in presets.expand(args)]  # one array per split
    if args.script is not None:  # every script checked before any is written
        for req in reqs:
            path = options.new_file(script_path(args.script, req.split, several=len(reqs) > 1), "--script", args.force)
            if path.absolute().is_relative_to(req.out):
                raise UserError(f"--script {path} is inside --out {req.out}; write it elsewhere")
    if args.submit and any(missing_by_shard(req) for req in reqs):
        refuse_if_running(reqs[0])
    for req in reqs:
        write_and_submit(req, args.submit, script_path(args.script, req.split, several=len(reqs) > 1))
    return 0


def script_path(path: Path | None, split: str, several: bool) -> Path | None:
    """--script PATH, or PATH with the split in its name when a preset makes one array per split."""
    if path is None or not several:
        return path
    return path.with_name(f"{path.stem}-{split}{path.suffix}")


def write_and_submit(req: Request, submit_it: bool, script_path: Path | None = None) -> None:
    missing = missing_by_shard(req)
    if not missing:
        print(f"nothing missing: all {len(req.tasks)} x {req.n} {options.noun(req.tasks)}s of {req.split} are complete in {req.out}; "
              "nothing submitted")
        return
    shards = sorted(missing)
    episodes = [e for shard in missing.values() for e in shard]
    failed = sum(status.failure_path(req.out, req.split, task, i).is_file() for task, i in episodes)
    what = (f"{len(shards)} of {req.shards} shards ({ranges(shards)}), {len(episodes)} {options.noun(req.tasks)}(s) missing"
            + (f", {failed} of them failed before (see mewl status)" if failed else ""))
    if not submit_it:
        write_or_print(render_script(req, shards, log_dir=None), script_path, what)
        return
    claim(req)
    req.log_dir.mkdir(parents=True, exist_ok=True)
    script = unique_path(req.slurm_dir, f"render-{req.split}", ".sbatch")
    dataset.write_atomic(script, render_script(req, shards, log_dir=req.log_dir))
    print(f"wrote {script}: {what}")
    submit(req, script, shards)


def write_or_print(text: str, path: Path | None, what: str) -> int:
    """The script for the user to read and submit: nothing goes into OUT, and
    `mewl render` claims OUT itself when the array starts."""
    if path is None:
        sys.stdout.write(text)
        print(f"mewl slurm: the script above renders {what}; save it (or use --script PATH) and submit it with "
              "sbatch; logs go to the folder you run sbatch from", file=sys.stderr)
        return 0
    try:
        dataset.write_atomic(path, text)
    except OSError as err:
        raise UserError(f"cannot write --script {path}: {err.strerror}") from None
    print(f"wrote {path}: {what}")
    print(f"submit it with: sbatch {shlex.quote(str(path))}  (logs go to the folder you run sbatch from)")
    return 0


def submit(req: Request, script: Path, shards: list[int]) -> None:
    """The array, then the completion check that waits for it; both recorded."""
    array_job = sbatch(script, cwd=req.submit_dir)
    print(f"submitted array job {array_job}; logs in {req.log_dir}/{array_job}_<shard>.out")
    record_submission(req, {"array_job": array_job, "shards": shards, "of": req.shards, "script": str(script)})
    check = script.with_name(script.name.replace("render-", "complete-", 1))
    dataset.write_atomic(check, complete_script(req, array_job))
    # A cancelled or failed shard makes afterok impossible: let SLURM drop the check then.
    check_job = sbatch(check, f"--dependency=afterok:{array_job}", "--kill-on-invalid-dep=yes", cwd=req.submit_dir)
    print(f"submitted completion check job {check_job} (afterok:{array_job}); "
          f"report in {req.log_dir}/complete-{check_job}.out")
    record_submission(req, {"check_job": check_job, "after": array_job, "script": str(check)})


def request(args) -> Request:
    """Every option checked, before anything is written or submitted."""
    tasks = options.task_list(args.task)
    configs, config_args = options.configs(args, tasks)
    n = options.item_count(args.n)
    k = options.positive_int("--array", args.array)
    if k > n:
        raise UserError(f"--array {k} is more than --n {n}: a shard would have no episodes; use --array {n} or less")
    gpus = _count("--gpus-per-task", args.gpus_per_task, minimum=0)
    cpus = default_cpus(gpus) if args.cpus_per_task is None else options.positive_int("--cpus-per-task", args.cpus_per_task)
    per_gpu = None if args.workers_per_gpu is None else options.positive_int("--workers-per-gpu", args.workers_per_gpu)
    if per_gpu is not None and gpus == 0:
        raise UserError("--workers-per-gpu needs GPUs; with --gpus-per-task 0 each array task runs one CPU worker")
    device = options.device(args.device)
    if gpus == 0 and device not in ("auto", "cpu"):
        raise UserError(f"--device {device} needs GPUs; with --gpus-per-task 0 use --device cpu (or auto)")
    if gpus > 0 and device == "cpu":
        raise UserError("--device cpu renders on no GPU; ask for --gpus-per-task 0 rather than idle GPUs")
    mem = default_mem(gpus, per_gpu) if args.mem is None else args.mem
    if not MEM_PATTERN.match(mem):
        raise UserError(f"--mem must be a size as sbatch takes it (e.g. 8G or 8000M), got {mem!r}")
    if args.script is not None and (args.submit or args.script.is_dir()):
        raise UserError(f"--script {args.script}: " + ("with --submit the scripts are kept under OUT/slurm; drop one"
                                                        if args.submit else "is a folder; name the script file"))
    throttle = None if args.max_parallel is None else options.positive_int("--max-parallel", args.max_parallel)
    if args.partition is not None and not PARTITION_PATTERN.match(args.partition):
        raise UserError(f"--partition must be a partition name (or a comma list), got {args.partition!r}")
    out = args.out.expanduser().absolute()
    if args.submit and shutil.which("sbatch") is None:
        raise UserError("--submit needs sbatch, which is not on PATH; run on a SLURM login node, or drop --submit")
    req = Request(
        mewl=mewl_executable(), tasks=tasks, n=n, out=out, split=options.split(args.split),
        seed=options.seed(args.seed), quality=options.quality(args.quality), device=options.device(args.device),
        shards=k, max_parallel=throttle, partition=args.partition, gpus_per_task=gpus, cpus_per_task=cpus, mem=mem,
        time=time_limit(args.time), sbatch_args=[sbatch_arg(a) for a in args.sbatch_arg],
        submit_dir=Path.cwd(), scheme=options.split_scheme(args.split_scheme, tasks, options.split(args.split)),
        configs=configs, config_args=tuple(config_args), workers_per_gpu=per_gpu,
    )
    dataset.check_output(out, render_settings(req), options.benchmarks(req.tasks))  # another seed or quality in OUT: refused
    return req


def _count(name: str, value: str, minimum: int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a whole number, got {value!r}") from None
    if n < minimum:
        raise UserError(f"{name} must be at least {minimum}, got {n}")
    return n


def time_limit(value: str | None) -> str | None:
    if value is None:
        return None
    match = TIME_PATTERN.match(value)
    if not match or not any(int(g or 0) for g in match.groups()):
        raise UserError(f"--time must be a positive HH:MM:SS (or D-HH:MM:SS), got {value!r}")
    return value


def sbatch_arg(value: str) -> str:
    if not value.startswith("-") or any(c in value for c in "\n\r"):
        raise UserError(f"--sbatch-arg must be one sbatch option like --account=lab, got {value!r}")
    name = re.split(r"[=\s]", value, maxsplit=1)[0]
    if name in OWN_SBATCH_OPTIONS or (len(name) > 2 and name[:2] in OWN_SBATCH_OPTIONS and name[1] != "-"):
        raise UserError(f"--sbatch-arg {value!r}: mewl slurm sets {name} itself")
    return value


def mewl_executable() -> Path:
    """The mewl that is running now, so every node runs the same install."""
    argv0 = Path(sys.argv[0])
    candidates = [argv0] if argv0.name == "mewl" else []
    candidates += [Path(sys.executable).parent / "mewl", Path(shutil.which("mewl") or "mewl")]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path.absolute()
    raise UserError("cannot find the mewl executable to run on the nodes; install the project (make setup) first")


def missing_by_shard(req: Request) -> dict[int, list[tuple[str, int]]]:
    """The (task, index) pairs not complete (missing, failed or damaged), by
    shard; shards with none left out."""
    missing: dict[int, list[tuple[str, int]]] = {}
    for task in req.tasks:
        row = status.task_status(req.out, req.split, task, req.n)
        for i in sorted(row.missing + row.failed + row.damaged):
            missing.setdefault(i % req.shards, []).append((task, i))
    return missing


def claim(req: Request) -> None:
    """Write OUT's manifest and plan before the array starts, as `mewl render`
    would: the array tasks then never race to create them, and `mewl status`
    counts the planned episodes from the start."""
    dataset.claim_output(req.out, render_settings(req), options.benchmarks(req.tasks))
    for task in req.tasks:
        status.record_plan(req.out, req.split, task, req.n)


def render_settings(req: Request) -> dict:
    # The manifest `mewl render` claims (cluster.render_cmd): the array tasks must find it equal.
    return Settings(req.out, req.split, req.seed, req.quality, req.scheme, req.configs).manifest("rendered")


def refuse_if_running(req: Request) -> None:
    """Submitting again while an earlier array of this OUT still runs would
    render its shards twice."""
    jobs = [r["array_job"] for r in submissions(req.out) if "array_job" in r]
    active = active_shards(jobs)
    if active:
        job, shards = next(iter(active.items()))
        raise UserError(f"array job {job} for {req.out} still has shards queued or running ({','.join(shards)}); "
                        f"wait for it (squeue -j {job}) or scancel {job}, then rerun")


def submissions(out: Path) -> list[dict]:
    path = out / "slurm" / SUBMISSIONS
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError):
        return []


def record_submission(req: Request, record: dict) -> None:
    record["submitted"] = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(req.slurm_dir / SUBMISSIONS, "a") as log:
        log.write(json.dumps(record) + "\n")


def unique_path(folder: Path, stem: str, suffix: str) -> Path:
    """folder/stem-<time>.suffix, never an existing file (scripts of earlier runs are kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        path = folder / f"{stem}-{stamp}{'' if k == 0 else f'-{k}'}{suffix}"
        if not path.exists():
            return path
    raise UserError(f"too many scripts named {stem}-{stamp}* in {folder}")
