"""`mewl slurm`: render a dataset as a SLURM array, one shard per array task.

Every option is checked here, before anything is written or submitted; the
farm (cluster.slurm.arrays) writes the scripts, submits them and records them. A
rerun with the same options submits only the shards that still have items
missing, so failed or cancelled array tasks are redone and nothing finished
is rendered twice. Without --submit nothing is written into OUT: the script
is printed, or written where --script says.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from mewl_gen.cluster.slurm.arrays import missing_by_shard, refuse_if_running, render_settings, write_and_submit
from mewl_gen.cluster.slurm.limits import fit_to_cluster
from mewl_gen.cluster.slurm.script import Request, default_cpus, default_mem
from mewl_gen.errors import UserError
from mewl_gen.store.files import probe_writable
from mewl_gen.store.manifest import check_output
from mewl_gen.tasks import catalog

from . import options, presets

TIME_PATTERN = re.compile(r"^(?:(\d+)-)?(\d+):([0-5]\d):([0-5]\d)$")
PARTITION_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$")
GPU_REQUEST_PATTERN = re.compile(r"^(gpus-per-task|gres(:[A-Za-z0-9_.-]+)?)$")
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
    s.add_argument("--gpu-request", default="gpus-per-task", metavar="FORM",
                   help="how the script asks for the GPUs: gpus-per-task (#SBATCH --gpus-per-task=G, the default), "
                        "gres (#SBATCH --gres=gpu:G, for clusters that take only GRES) or gres:TYPE (--gres=gpu:TYPE:G)")
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
    options.add_passes_argument(s)
    s.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="extra sbatch option for both jobs, e.g. --sbatch-arg=--account=lab (repeatable)")
    s.add_argument("--submit", action="store_true",
                   help="write the scripts under OUT/slurm, run sbatch and print the job ids")
    s.add_argument("--script", default=None, type=lambda value: options.output(value, "--script"), metavar="PATH",
                   help="without --submit: write the script to PATH instead of printing it")
    s.add_argument("--force", action="store_true", help="with --script: replace an existing file at PATH")
    s.add_argument("--log-dir", default=None, metavar="DIR",
                   help="the array tasks' logs, on storage every node can write (default OUT/slurm/logs with --submit, "
                        "else the folder sbatch runs in)")
    s.set_defaults(func=cmd_slurm)


def cmd_slurm(args) -> int:
    args.out = options.dataset_folder(args)
    reqs = [request(run) for run in presets.expand(args)]  # one array per split
    if args.script is not None:  # every script checked before any is written
        for req in reqs:
            path = options.new_file(script_path(args.script, req.split, several=len(reqs) > 1), "--script", args.force)
            if path.absolute().is_relative_to(req.out):
                raise UserError(f"--script {path} is inside --out {req.out}; write it elsewhere")
    if args.submit and any(missing_by_shard(req) for req in reqs):
        reqs = fitted(reqs, args)
        refuse_if_running(reqs[0])
    for req in reqs:
        write_and_submit(req, args.submit, script_path(args.script, req.split, several=len(reqs) > 1))
    return 0


def script_path(path: Path | None, split: str, several: bool) -> Path | None:
    """--script PATH, or PATH with the split in its name when a preset makes one array per split."""
    if path is None or not several:
        return path
    return path.with_name(f"{path.stem}-{split}{path.suffix}")


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
    if not GPU_REQUEST_PATTERN.fullmatch(args.gpu_request):
        raise UserError(f"--gpu-request must be gpus-per-task, gres or gres:TYPE (e.g. gres:a100), "
                        f"got {args.gpu_request!r}")
    mem = default_mem(gpus, per_gpu) if args.mem is None else args.mem
    if not MEM_PATTERN.fullmatch(mem):
        raise UserError(f"--mem must be a size as sbatch takes it (e.g. 8G or 8000M), got {mem!r}")
    if args.script is not None and (args.submit or args.script.is_dir()):
        raise UserError(f"--script {args.script}: " + ("with --submit the scripts are kept under OUT/slurm; drop one"
                                                        if args.submit else "is a folder; name the script file"))
    throttle = None if args.max_parallel is None else options.positive_int("--max-parallel", args.max_parallel)
    if args.partition is not None and not PARTITION_PATTERN.fullmatch(args.partition):
        raise UserError(f"--partition must be a partition name (or a comma list), got {args.partition!r}")
    out = args.out.expanduser().absolute()
    if args.submit and shutil.which("sbatch") is None:
        raise UserError("--submit needs sbatch, which is not on PATH; run on a SLURM login node, or drop --submit")
    logs = log_dir(args.log_dir, out, args.submit)
    req = Request(
        logs=logs, mewl=mewl_executable(), tasks=tasks, n=n, out=out, split=options.split(args.split),
        seed=options.seed(args.seed), quality=options.quality(args.quality), device=options.device(args.device),
        shards=k, max_parallel=throttle, partition=args.partition, gpus_per_task=gpus, cpus_per_task=cpus, mem=mem,
        time=time_limit(args.time), sbatch_args=[sbatch_arg(a) for a in args.sbatch_arg],
        submit_dir=Path.cwd(), scheme=options.split_scheme(args.split_scheme, tasks, options.split(args.split)),
        configs=configs, config_args=tuple(config_args), workers_per_gpu=per_gpu, passes=options.passes(args.passes),
        gpu_request=args.gpu_request,
    )
    check_output(out, render_settings(req), catalog.benchmark_names(req.tasks), options.out_option(args))  # another seed or quality in OUT: refused
    return req


def fitted(reqs: list[Request], args) -> list[Request]:
    """The requests as the partition's nodes can run them: defaults fitted (each
    change said once), the impossible refused, before anything is submitted."""
    given = {name for name, value in (("cpus", args.cpus_per_task), ("mem", args.mem)) if value is not None}
    done, said = [], set()
    for req in reqs:
        req, notes = fit_to_cluster(req, given)
        for note in notes:
            if note not in said:
                print(f"mewl slurm: {note}")
            said.add(note)
        done.append(req)
    return done


def log_dir(value: str | None, out: Path, submit: bool) -> Path | None:
    """--log-dir, absolute; checked writable (also where it is to be made). Without
    --submit it is made now, never inside OUT, into which nothing is written then."""
    if value is None:
        return None
    if not str(value).strip():
        raise UserError("--log-dir is empty; name a folder")
    path = Path(value).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise UserError(f"--log-dir {path} is not a folder")
    try:
        probe_writable(path)
    except UserError as err:
        raise UserError(f"--log-dir: {err}") from None
    if not submit:
        if path.is_relative_to(out):
            raise UserError(f"--log-dir {path} is inside --out {out}, into which nothing is written without --submit; "
                            "choose a folder elsewhere")
        path.mkdir(parents=True, exist_ok=True)  # SLURM does not make a log's folder: the task would have no log
    return path


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
    match = TIME_PATTERN.fullmatch(value)
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


