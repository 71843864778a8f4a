"""The split-level index OUT/<split>/<task>.jsonl: one line per complete item.

A loader reads a whole split of a task in one pass. The index is rebuilt
from the published items (never appended to), at the end of every run that
wrote the task, and written atomically: it is always the list of complete
items at that moment, whoever rendered them, and a resumed or sharded run
only ever makes it longer. Tasks whose original release has no index get none.
"""
from __future__ import annotations

import json
from pathlib import Path

from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from . import door
from .files import write_atomic, writing
from .layout import is_complete, item_dir
from .reader import item_folders


def index_path(out: Path, split: str, task: str) -> Path:
    return out / split / f"{task}.jsonl"


def complete_indices(out: Path, split: str, task: str) -> list[int]:
    return [i for _, _, i in item_folders(out, [task], [split]) if is_complete(out, split, task, i)]


def rebuild(out: Path, split: str, task: str) -> int | None:
    """Write the task's index from its complete items; how many it lists, or
    None for a task without one."""
    model = catalog.task(task).model
    if not model.INDEXED:
        return None
    lines = []
    for i in complete_indices(out, split, task):
        folder = item_dir(out, split, task, i)
        item = StoredItem(split, task, i, folder, model, door.opener(out)).item()  # its folder's own, or one line
        entry = {"path": f"{split}/{task}/{i}", **item.index_entry()}
        lines.append(json.dumps(entry, separators=(",", ":")) + "\n")
    door.guard(out, index_path(out, split, task))
    with writing(out):
        write_atomic(out, index_path(out, split, task), "".join(lines), make=True)
    return len(lines)
