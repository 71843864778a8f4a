"""`mewl render` and `mewl status`."""
from __future__ import annotations

import contextlib
import logging
import signal
import sys
from pathlib import Path
from typing import NamedTuple

from . import card, dataset, index, options, presets, status
from .errors import UserError
from .planning import Settings
from .writers import STAGING, Writer, clean_stale


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C."""


def _stop_on(signum, frame):
    """The first SIGINT or SIGTERM stops the run; later ones (make and SLURM
    pass SIGTERM on to a group that already has it) must not cut the cleanup short."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def cmd_render(args) -> int:
    runs = presets.expand(args)  # one per split: a preset renders several
    if args.dry_run:
        print(presets.plan_report([row for run in runs for row in _plan_rows(run)]))
        return 0
    worst = 0
    for run in runs:
        rc = _render_split(run)
        if rc in (130, 143):  # interrupted: the later splits wait for the rerun
            return rc
        worst = max(worst, rc)
    return worst


def _plan_rows(args) -> list[tuple[str, str, int, int]]:
    """(split, task, planned, complete) of one run, from what OUT holds now,
    after the same checks as the render itself."""
    run = _checked(args)
    split, out = run.settings.split, run.settings.out
    mine = range(run.shard[0], run.n, run.shard[1])
    return [(split, t, len(mine), sum(dataset.is_complete(out, split, t, i) for i in mine)) for t in run.tasks]


class Checked(NamedTuple):
    tasks: list[str]
    n: int
    device: str
    gpu_ids: list[int] | None
    workers: int | None
    per_gpu: int | None
    shard: tuple[int, int]
    settings: Settings
    manifest: dict


def _checked(args) -> Checked:
    """Every option checked, and OUT against them, before anything is written or started."""
    tasks = options.task_list(args.task)
    n = options.item_count(args.n)
    split, seed = options.split(args.split), options.seed(args.seed)
    quality, device = options.quality(args.quality), options.device(args.device)
    gpu_ids = options.gpu_ids(args.gpu_ids)
    if gpu_ids is not None and device == "cpu":
        raise UserError("--gpu-ids picks GPUs, and --device cpu uses none; drop one of them")
    shard = options.shard(args.shard)
    workers = None if args.workers in (None, "") else options.positive_int("--workers", args.workers)
    per_gpu = options.workers_per_gpu(args.workers_per_gpu, workers, device)
    out = options.output(args.out)
    settings = Settings(out=out, split=split, seed=seed, quality=quality,
                        scheme=options.split_scheme(args.split_scheme, tasks, split),
                        configs=options.configs(args, tasks)[0])
    manifest = settings.manifest("rendered")
    dataset.check_output(out, manifest, options.benchmarks(tasks))
    return Checked(tasks, n, device, gpu_ids, workers, per_gpu, shard, settings, manifest)


def _render_split(args) -> int:
    tasks, n, device, gpu_ids, workers, per_gpu, shard, settings, manifest = _checked(args)
    out, split = settings.out, settings.split
    dataset.probe_writable(out)  # a read-only or full OUT is refused before Blender starts

    from .pipeline import plan

    if args.repair:
        from .verify import find_damage

        damaged = find_damage(out, split, tasks, range(shard[0], n, shard[1]))
        print(f"render: --repair found {len(damaged)} damaged {options.noun(tasks)}(s)" + "".join(f"\n  {d}" for d in damaged),
              file=sys.stderr)
    jobs, complete = plan(settings, tasks, n, shard)
    logging.basicConfig(level=logging.WARNING, format="mewl: %(message)s")
    logging.getLogger("render").addFilter(_once())
    previous = {sig: signal.signal(sig, _stop_on) for sig in (signal.SIGINT, signal.SIGTERM)}
    run: dict = {}  # the Progress, once rendering starts
    try:
        if not jobs:
            _claim(out, manifest, split, tasks, n)
            _index(out, split, tasks)
            print(f"render: nothing to do, {complete} {options.noun(tasks)}(s) already complete in {out / split}", file=sys.stderr)
            return 0
        created = not out.exists()
        try:
            with dataset.writing(out):
                _render(run, settings, jobs, complete, manifest, tasks, n, device, gpu_ids, (workers, per_gpu), created)
        finally:
            if "progress" in run:
                run["progress"].close()
            if out.is_dir():
                _index(out, split, tasks)  # also after an interrupt: the index lists what is complete
        progress = run["progress"]
        print(progress.summary(), file=sys.stderr)
        card.write_card(out)
        return 1 if progress.failed else 0
    except KeyboardInterrupt as err:
        if "progress" in run:
            print(run["progress"].summary(interrupted=True), file=sys.stderr)
        previous = {}  # keep ignoring: a repeated SIGTERM must not kill us on the way out
        what = "terminated" if isinstance(err, Terminated) else "interrupted"
        print(f"mewl: {what}; only complete {options.noun(tasks)}s were kept, rerun the same command to resume", file=sys.stderr)
        return 143 if isinstance(err, Terminated) else 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _render(run: dict, settings, jobs, complete, manifest, tasks, n, device, gpu_ids, counts, created) -> None:
    """Start the workers, claim OUT, render the jobs; run["progress"] follows them.
    counts: (--workers, --workers-per-gpu); neither given, the workers per device come from a
    measurement (cluster.calibrate: cached, else made now on a GPU)."""
    from render import DeviceError

    from .pipeline import RenderPool, worker_options
    from tasks import REGISTRY

    from .progress import Progress

    from . import calibrate
    from .hardware import visible_gpus

    out = settings.out
    workers, per_device = counts
    source = "--workers-per-gpu" if per_device else ""
    try:
        gpu_ids = visible_gpus(device, gpu_ids)
        if workers is None and per_device is None:
            per_device, source = calibrate.workers_per_device(device, gpu_ids, settings.quality)
        opts = worker_options(device, gpu_ids, workers, per_device=per_device, at_most=len(jobs))
        with Writer(out) as writer:
            stale = clean_stale(out)
            with RenderPool(opts, writer) as pool:
                _claim(out, manifest, settings.split, tasks, n)
                threads = opts[0]["threads"]
                print(f"render: {len(jobs)} {options.noun(tasks)}(s) of {', '.join(tasks)} to {out / settings.split} "
                      f"({complete} already complete); {len(opts)} worker(s) on {', '.join(sorted(set(pool.devices)))}"
                      + (f", {threads} thread(s) each" if threads else "")
                      + (f" ({per_device} per {'CPU' if threads else 'GPU'}: {source})" if source else "")
                      + (f"; removed {len(stale)} staging folder(s) of dead writers" if stale else ""), file=sys.stderr)
                progress = run["progress"] = Progress(jobs, complete, {t: REGISTRY[t].images for t in tasks})
                for outcome in pool.run(settings, jobs, tick=progress.tick, on_image=progress.image, on_wait=progress.waiting):
                    progress.update(outcome)
    except DeviceError as err:
        if created:  # nothing of this run may stay behind
            for folder in (out / STAGING, out):
                with contextlib.suppress(OSError):
                    folder.rmdir()
        raise UserError(str(err)) from None


def _once():
    """Each worker says "no GPU found"; once is enough."""
    seen: set[str] = set()

    def first_time(record: logging.LogRecord) -> bool:
        text = record.getMessage()
        new = text not in seen
        seen.add(text)
        return new

    return first_time


def _index(out: Path, split: str, tasks: list[str]) -> None:
    for task in tasks:
        index.rebuild(out, split, task)


def _claim(out: Path, manifest: dict, split: str, tasks: list[str], n: int) -> None:
    dataset.claim_output(out, manifest, options.benchmarks(tasks))
    for task in tasks:
        status.record_plan(out, split, task, n)
    card.write_card(out)


def cmd_status(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    n = None if args.n is None else options.item_count(args.n)
    rows = status.dataset_status(out, n)
    print(status.as_json(rows) if args.json else status.report(rows, n is not None, status.leftovers(out)))
    return 0 if rows and all(r.done for r in rows) else 1


def register(sub) -> None:
    s = sub.add_parser("render", help="render episodes (resumable)")
    options.add_dataset_arguments(s, preset=True)
    presets.add_arguments(s)
    s.add_argument("--dry-run", action="store_true", help="print the episodes per split and task to render, render nothing")
    s.add_argument("--workers", default=None, help="Blender workers in all (default: --workers-per-gpu on each GPU; on the CPU one, or as measured by `mewl calibrate`)")
    s.add_argument("--device", default="auto", help=f"one of {', '.join(options.DEVICES)}")
    s.add_argument("--gpu-ids", default=None, help="comma list of GPU ids, dealt out one per worker")
    s.add_argument("--workers-per-gpu", default=None, metavar="K",
                   help="Blender workers sharing each GPU (default: measured once per GPU model, see `mewl calibrate`)")
    s.add_argument("--quality", default="default", help="draft, default or paper")
    s.add_argument("--shard", default=None, help="I/K: only episodes i with i %% K == I")
    s.add_argument("--repair", action="store_true",
                   help="check every hash and image of the existing episodes first; render the damaged ones again")
    s.set_defaults(func=cmd_render)

    s = sub.add_parser("status", help="complete, failed and missing episodes per split and task")
    s.add_argument("out")
    s.add_argument("--n", default=None, help="check episodes 0..N-1 (default: the largest N requested per task)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_status)
