"""`mewl render` and `mewl status`: the options checked, then the farm's run (cluster.run)."""
from __future__ import annotations

from mewl_gen.cluster.planning import Settings
from mewl_gen.cluster.run import Run, render
from mewl_gen.cluster.slurm.status import slurm_lines
from mewl_gen.errors import UserError
from mewl_gen.store.claims import held, leftovers
from mewl_gen.store.layout import is_complete
from mewl_gen.store.manifest import check_output
from mewl_gen.store.status import as_json, dataset_status, report
from mewl_gen.tasks import catalog

from . import options, presets


def cmd_render(args) -> int:
    args.out = options.dataset_folder(args)
    runs = presets.expand(args)  # one per split: a preset renders several
    if args.dry_run:
        print(presets.plan_report([row for run in runs for row in _plan_rows(run)]))
        return 0
    worst = 0
    for run in runs:
        rc = render(_checked(run), run.repair)
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
    return [(split, t, len(mine), sum(is_complete(out, split, t, i) for i in mine)) for t in run.tasks]


def _checked(args) -> Run:
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
                        configs=options.configs(args, tasks)[0], passes=options.passes(args.passes),
                        durable=options.durable())
    manifest = settings.manifest("rendered")
    option = options.out_option(args)
    check_output(out, manifest, catalog.benchmark_names(tasks), option)
    return Run(tasks, n, device, gpu_ids, workers, per_gpu, shard, settings, manifest, option)


def cmd_status(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    n = None if args.n is None else options.item_count(args.n)
    rows = dataset_status(out, n, held(out))
    print(as_json(rows) if args.json else report(rows, n is not None, leftovers(out) + slurm_lines(out, rows), out))
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
    s.add_argument("--quality", default="default", help="preview, draft, default or paper")
    options.add_passes_argument(s)
    s.add_argument("--shard", default=None, help="I/K: only episodes i with i %% K == I")
    s.add_argument("--repair", action="store_true",
                   help="check every hash and image of the existing episodes first; render the damaged ones again")
    s.set_defaults(func=cmd_render)

    s = sub.add_parser("status", help="complete, failed and missing episodes per split and task")
    s.add_argument("out")
    s.add_argument("--n", default=None, help="check episodes 0..N-1 (default: the largest N requested per task)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_status)
