"""`mewl sample`: items' specs and release files, no rendering (cluster.sample does the work)."""
from __future__ import annotations

import sys

from mewl_gen.cluster.planning import Settings
from mewl_gen.cluster.sample import sample_to_disk
from mewl_gen.store.manifest import claim_output
from mewl_gen.tasks import catalog

from . import options


def cmd_sample(args) -> int:
    args.out = options.dataset_folder(args)
    tasks = options.task_list(args.task)
    n = options.item_count(args.n)
    split, seed = options.split(args.split), options.seed(args.seed)
    settings = Settings(out=args.out, split=split, seed=seed, quality="",
                        scheme=options.split_scheme(args.split_scheme, tasks, split), configs=options.configs(args, tasks)[0],
                        durable=options.durable())
    workers = options.workers(args.workers)
    claim_output(args.out, settings.manifest("specs"), catalog.benchmark_names(tasks), options.out_option(args))
    failed = sample_to_disk(settings, tasks, n, workers)
    for reason in failed:
        print(f"failed: {reason}", file=sys.stderr)
    print(f"sampled {len(tasks)} task(s) x {n} items into {args.out / split} ({len(failed)} failed)")
    return 1 if failed else 0


def register(sub) -> None:
    s = sub.add_parser("sample", help="sample items' specs (no rendering)")
    options.add_dataset_arguments(s, preset=False)
    s.add_argument("--workers", default=None, help="processes (default: every core)")
    s.set_defaults(func=cmd_sample)
