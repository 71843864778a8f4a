"""The split-level index OUT/<split>/<task>.jsonl: one line per complete item.

A loader reads a whole split of a task in one pass. The index is rebuilt
from the published items (never appended to), at the end of every run that
wrote the task, and written atomically: it is always the list of complete
items at that moment, whoever rendered them, and a resumed or sharded run
only ever makes it longer. Tasks whose release has no index (MEWL's) get none.
"""
from __future__ import annotations

import json
from pathlib import Path

import tasks

from . import dataset, options
from .errors import UserError


def index_path(out: Path, split: str, task: str) -> Path:
    return out / split / f"{task}.jsonl"


def complete_indices(out: Path, split: str, task: str) -> list[int]:
    folder = out / split / task
    if not folder.is_dir():
        return []
    found = sorted(i for p in folder.iterdir() if (i := dataset.episode_index(p.name)) is not None)
    return [i for i in found if dataset.is_complete(out, split, task, i)]


def rebuild(out: Path, split: str, task: str) -> int | None:
    """Write the task's index from its complete items; how many it lists, or
    None for a task without one."""
    model = tasks.REGISTRY[task].model
    if not model.INDEXED:
        return None
    lines = []
    for i in complete_indices(out, split, task):
        folder = dataset.episode_dir(out, split, task, i)
        item = model.model_validate_json((folder / model.RECORD_FILE).read_text())
        entry = {"path": f"{split}/{task}/{i}", **item.index_entry()}
        lines.append(json.dumps(entry, separators=(",", ":")) + "\n")
    with dataset.writing(out):
        (out / split).mkdir(parents=True, exist_ok=True)
        dataset.write_atomic(index_path(out, split, task), "".join(lines))
    return len(lines)


def cmd_index(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    dataset.read_manifest(out)  # not a dataset of this tool: one line, nothing written
    have = sorted(p.name for p in out.iterdir() if p.is_dir() and options.SPLIT_PATTERN.match(p.name))
    splits = have if args.split is None else [options.split(args.split)]
    if args.split is not None and args.split not in have:
        raise UserError(f"{out} has no split {args.split!r}; it has {', '.join(have) or 'none yet'}")
    for split in splits:
        for task in tasks.ALL_TASKS:
            if (out / split / task).is_dir():
                listed = rebuild(out, split, task)
                if listed is not None:
                    print(f"{index_path(out, split, task)}: {listed} item(s)")
    return 0


def register(sub) -> None:
    s = sub.add_parser("index", help="rebuild OUT/<split>/<task>.jsonl from the complete items")
    s.add_argument("out")
    s.add_argument("--split", default=None, help="one split (default: every split in OUT)")
    s.set_defaults(func=cmd_index)
