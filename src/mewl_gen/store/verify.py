"""Every published item checked against its record: `mewl verify` and `mewl render --repair`.

Every file's sha256 is compared with the item's record, every PNG decoded
in full, every JSON parsed. A damaged item is named in one line and noted
in OUT/.mewl/damaged/ (store/damage.py), which the next render of it reads: it sets the
damaged folder aside (OUT/.damaged/, nothing deleted) and renders the item
again, the same bytes as before it was damaged.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from . import damage, door
from .files import writing
from .layout import DAMAGED, item_dir
from .reader import file_problems


def check(out: Path, items: Iterable[tuple[str, str, int]]) -> list[str]:
    """Check each item in full; note the damaged ones for the next render and return a line
    for each. A noted item found intact again (restored) is cleared."""
    items = list(items)
    lines = []

    def found():
        for (split, task, index), problem in zip(items, file_problems(out, items)):
            if problem is not None:
                lines.append(f"{split}/{task}/{index}: {problem}")
            yield (split, task, index), problem

    damage.record(out, found())
    return lines


def find_damage(out: Path, split: str, tasks: list[str], indices: Iterable[int]) -> list[str]:
    """`mewl render --repair`: the run's own items that exist, checked in full. Where some are damaged,
    the folders they will be set aside in must hold no link (Refused), before any rendering starts."""
    if not out.is_dir():
        return []
    wanted = [(split, t, i) for i in indices for t in tasks
              if door.kind_of(out, item_dir(out, split, t, i)) in ("folder", "link")]
    with writing(out):
        lines = check(out, wanted)
    for task in sorted({line.split("/")[1] for line in lines}):
        door.guard(out, out / DAMAGED / split / task)
    return lines
