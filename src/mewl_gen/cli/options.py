"""Parsing and checking the options users type, before any work starts."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from mewl_gen.errors import UserError, shown
from mewl_gen.render.passes import PASSES, parse
from mewl_gen.render.worker import DEVICES
from mewl_gen.scenes.quality import QUALITIES
from mewl_gen.store.layout import SPLIT
from mewl_gen.store.manifest import outside_datasets
from mewl_gen.tasks import catalog
from mewl_gen.tasks.benchmark import IID


def task_list(value: str) -> list[str]:
    """A task, a benchmark (all of its tasks), all, or a comma list of those."""
    return catalog.resolve(value)


def split_scheme(value: str | None, names: list[str], split_name: str) -> str:
    """How splits differ: iid (the default), or a scheme every chosen task
    knows, for a split the scheme knows."""
    value = value or IID
    known = {s.name for t in names for s in catalog.task(t).schemes}
    if value not in known:
        raise UserError(f"unknown --split-scheme {value!r}; the chosen tasks know {', '.join(sorted(known))}")
    lacking = [t for t in names if catalog.task(t).scheme(value) is None]
    if lacking:
        raise UserError(f"--split-scheme {value} is not a scheme of {', '.join(lacking)}")
    splits = catalog.task(names[0]).scheme(value).splits
    if splits is not None and split_name not in splits:
        raise UserError(f"--split-scheme {value} knows the splits {', '.join(splits)}, not {split_name!r}")
    return value


def add_dataset_arguments(parser, preset: bool, out_help: str = "dataset folder") -> None:
    """What decides the data, declared once for render, sample and slurm. With
    `preset`, --task, --n and --split may come from --preset instead."""
    parser.add_argument("--task", default=None, required=not preset,
                        help="a task, a benchmark (all its tasks), all, or a comma list; `mewl tasks` lists them")
    parser.add_argument("--n", default=None, required=not preset, help="items (episodes) per task")
    # OUT as every other command takes it (positional), or as --out OUT: the same folder, named once.
    parser.add_argument("out_folder", nargs="?", default=None, type=output, metavar="OUT", help=f"{out_help} (or --out OUT)")
    parser.add_argument("--out", default=None, type=output, metavar="OUT", help="the same, as an option")
    parser.add_argument("--split", default=None if preset else "train", help="default train")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--split-scheme", default=None, metavar="SCHEME",
                        help="how splits differ: iid (default), or a task's compositional scheme (`mewl tasks` lists them)")
    for bench in catalog.BENCHMARKS:
        if bench.config is not None:
            parser.add_argument(bench.config.option, dest=bench.config.dest, default=None, help=bench.config.help)


def dataset_folder(args) -> Path:
    """The dataset folder of render, sample and slurm, named as OUT or as --out OUT (both only if the same)."""
    given = [p for p in (args.out_folder, args.out) if p is not None]
    if not given:
        raise UserError("name the dataset folder: OUT, or --out OUT")
    if len(given) == 2 and given[0] != given[1]:
        raise UserError(f"two dataset folders, {shown(given[0], 120)} and --out {shown(given[1], 120)}; name one")
    return given[0]


OUT_OPTION = "MEWL_OUT_OPTION"  # how a wrapper names the dataset folder to its user: the Makefile's OUT=


def out_option(args=None) -> str:
    """The dataset folder's option as the user typed it, for a refusal to name back: what a wrapper
    says in MEWL_OUT_OPTION (make render: OUT=), else --out, or OUT where it was given as the argument."""
    wrapper = os.environ.get(OUT_OPTION, "").strip()
    if wrapper:
        return shown(wrapper, 40)
    return "OUT" if getattr(args, "out_folder", None) is not None else "--out"


def configs(args, names: list[str]) -> tuple[tuple[tuple[str, object], ...], list[str]]:
    """The chosen benchmarks' dataset-wide configs from their options, and
    the same options as a command line (files made absolute, for SLURM nodes)."""
    chosen = catalog.benchmark_names(names)
    found, argv = [], []
    for bench in catalog.BENCHMARKS:
        value = None if bench.config is None else vars(args).get(bench.config.dest)
        if value is None and bench.config is not None and bench.name in chosen:
            value = bench.config.default  # pinned in the manifest like a given one
        if value is None:
            continue
        if bench.name not in chosen:
            raise UserError(f"{bench.config.option} configures {bench.name}, and none of the chosen tasks is one of its")
        try:
            found.append((bench.name, bench.config.load(value)))
        except ValueError as err:
            raise UserError(f"{bench.config.option} {value}: {err}") from None
        path = Path(value)
        argv += [bench.config.option, str(path.absolute()) if path.exists() else value]
    return tuple(found), argv


def positive_int(name: str, value: str | int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a whole number, got {value!r}") from None
    if n < 1:
        raise UserError(f"{name} must be at least 1, got {n}")
    return n


MAX_ITEMS = 10_000_000  # per task and split: 265x the largest preset's split, and still a plan that fits in memory


def item_count(value: str | int) -> int:
    """--n: items per task, at least 1 and at most MAX_ITEMS."""
    n = positive_int("--n", value)
    if n > MAX_ITEMS:
        raise UserError(f"--n must be at most {MAX_ITEMS:,} items per task, got {n:,}")
    return n


def seed(value: str | int) -> int:
    try:
        s = int(value)
    except (TypeError, ValueError):
        raise UserError(f"seed must be a whole number, got {value!r}") from None
    if not 0 <= s < 2**63:
        raise UserError(f"seed must be between 0 and 2**63-1, got {s}")
    return s


def split(value: str) -> str:
    if not SPLIT.fullmatch(value):
        raise UserError(f"split must be lowercase letters, digits, '-' or '_', got {value!r}")
    return value


def quality(value: str) -> str:
    if value not in QUALITIES:
        raise UserError(f"unknown quality {value!r}; expected one of {', '.join(QUALITIES)}")
    return value


def device(value: str) -> str:
    if value not in DEVICES:
        raise UserError(f"unknown device {value!r}; expected one of {', '.join(DEVICES)}")
    return value


def add_passes_argument(parser) -> None:
    """--passes, declared once for render, slurm and render-spec."""
    parser.add_argument("--passes", default=None, metavar="LIST",
                        help=f"extra passes of the same render beside each image: a comma list of {', '.join(PASSES)}, "
                             "or all (default none; docs/passes.md)")


def passes(value: str | None) -> tuple[str, ...]:
    """--passes: the pass names in render.passes.PASSES order; none when not given."""
    if value is None:
        return ()
    return parse(value)


def workers(value: str | int | None) -> int:
    if value in (None, ""):
        return os.cpu_count() or 1
    return positive_int("workers", value)


def workers_per_gpu(value: str | int | None, workers: int | None, device: str) -> int | None:
    """--workers-per-gpu K, checked against --workers and --device; None when not given."""
    if value in (None, ""):
        return None
    k = positive_int("--workers-per-gpu", value)
    if workers is not None:
        raise UserError("--workers and --workers-per-gpu: give one (--workers counts every worker, "
                        "--workers-per-gpu those sharing each GPU)")
    if device == "cpu":
        raise UserError("--workers-per-gpu needs a GPU, not --device cpu; on the CPU use --workers")
    return k


def output(value: str | Path, flag: str | None = None) -> Path:
    """A path as typed: never empty (that would be the current folder), never
    a link to nowhere. Without `flag`, the dataset folder (out_option)."""
    text = str(value)
    if not text.strip():
        raise UserError(f"{flag} is empty; name a file" if flag else f"{out_option()} is empty; name a folder")
    path = Path(text).expanduser()
    if path.is_symlink() and not path.exists():
        raise UserError(f"{path} is a broken link (to {os.readlink(path)}); point it at a folder or remove it")
    return path


def new_file(path: str | Path, flag: str, force: bool) -> Path:
    """A file a command writes for the user (a script, an overlay, a render):
    never inside a dataset, whose files only its writers replace, and never
    over an existing file unless --force says so."""
    path = output(path, flag)
    outside_datasets(path, flag)
    if path.is_dir():
        raise UserError(f"{flag} {path} is a folder; name a file")
    if (path.exists() or path.is_symlink()) and not force:
        raise UserError(f"{flag} {path} exists; choose another name, or add --force to replace it")
    return path


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like every other user error."""

    def error(self, message: str):  # type: ignore[override]
        raise UserError(message)


def durable() -> bool:
    """MEWL_FSYNC=0 publishes items without fsync (store.layout.publish): faster
    where a lost power may cost the last items; 1 or unset is the default, durable."""
    value = os.environ.get("MEWL_FSYNC", "1")
    if value not in ("0", "1"):
        raise UserError(f"MEWL_FSYNC must be 0 (no fsync) or 1 (fsync each item, the default), got {value!r}")
    return value == "1"


def shard(value: str | None) -> tuple[int, int]:
    """'I/K': every K-th episode starting at I (episodes i with i % K == I)."""
    if value is None:
        return 0, 1
    parts = value.split("/")
    try:
        i, k = (int(p) for p in parts)
    except ValueError:
        raise UserError(f"--shard must look like I/K (e.g. 0/4), got {value!r}") from None
    if k < 1 or not 0 <= i < k:
        raise UserError(f"--shard {value}: need K >= 1 and 0 <= I < K")
    return i, k


def gpu_ids(value: str | None) -> list[int] | None:
    """'0,1' -> [0, 1]; None when not given."""
    if value is None:
        return None
    try:
        ids = [int(p) for p in value.split(",")]
    except ValueError:
        raise UserError(f"--gpu-ids must be a comma list of whole numbers (e.g. 0,1), got {value!r}") from None
    if any(i < 0 for i in ids) or len(set(ids)) != len(ids):
        raise UserError(f"--gpu-ids must be distinct non-negative numbers, got {value!r}")
    return ids
