"""Named runs (`--preset NAME`): a benchmark's release as its paper sized it.

A preset (tasks.benchmark.Preset) fills in --task, --n and --split; `mewl
render` and `mewl slurm` then do one run per split, each resumable like any
other, so the same command finishes an interrupted release.
"""
from __future__ import annotations

import argparse

from mewl_gen.errors import UserError
from mewl_gen.tasks import catalog
from mewl_gen.tasks.benchmark import Preset

DEFAULT_SPLIT = "train"


def presets() -> dict[str, Preset]:
    return {p.name: p for b in catalog.BENCHMARKS for p in b.presets}


def add_arguments(parser) -> None:
    found = presets()
    parser.add_argument("--preset", default=None, choices=sorted(found),
                        help="a named run that sets --task, --n and --split: "
                             + "; ".join(f"{name} is {p.help}" for name, p in sorted(found.items())))


def expand(args: argparse.Namespace) -> list[argparse.Namespace]:
    """One set of arguments per split to render: the preset's, or the command line's own."""
    if args.preset is None:
        missing = [flag for flag, value in (("--task", args.task), ("--n", args.n)) if value is None]
        if missing:
            raise UserError(f"{' and '.join(missing)} required (or --preset {', '.join(presets())})")
        return [argparse.Namespace(**{**vars(args), "split": DEFAULT_SPLIT if args.split is None else args.split})]
    given = [flag for flag, value in (("--task", args.task), ("--n", args.n), ("--split", args.split)) if value is not None]
    if given:
        raise UserError(f"--preset {args.preset} sets {', '.join(given)} itself; leave {'it' if len(given) == 1 else 'them'} out")
    preset = presets()[args.preset]
    return [argparse.Namespace(**{**vars(args), "task": preset.task, "n": str(n), "split": split})
            for split, n in preset.splits.items()]


def plan_report(rows: list[tuple[str, str, int, int]]) -> str:
    """rows of (split, task, episodes planned, already complete) as a table with totals per split."""
    w = max(10, *(len(r[1]) for r in rows)) if rows else 10
    lines = [f"{'split':<8} {'task':<{w}} {'episodes':>9} {'complete':>9} {'to render':>10}"]
    for split in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == split]
        for _, task, n, done in mine:
            lines.append(f"{split:<8} {task:<{w}} {n:>9} {done:>9} {n - done:>10}")
        n, done = sum(r[2] for r in mine), sum(r[3] for r in mine)
        lines.append(f"{split:<8} {'(all)':<{w}} {n:>9} {done:>9} {n - done:>10}")
    return "\n".join(lines)
