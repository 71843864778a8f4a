"""`mewl verify OUT`: every published episode checked against its record.

Every file's sha256 is compared with the episode's record, every PNG decoded
in full, every JSON parsed. A damaged episode is named in one line and noted
in OUT/.mewl/damaged/, which the next `mewl render` of it reads: it sets the
damaged folder aside (OUT/.damaged/, nothing deleted) and renders the
episode again, the same bytes as before it was damaged.
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable

from . import dataset, options, status
from .errors import UserError
from .hardware import cpu_cores
from .record import RECORD, full_problem


def episode_folders(out: Path) -> list[tuple[str, str, int]]:
    """(split, task, index) of every episode folder under OUT."""
    found = []
    for split in sorted(p for p in out.iterdir() if p.is_dir() and options.SPLIT_PATTERN.match(p.name)):
        for task in sorted(p for p in split.iterdir() if p.is_dir()):
            found += [(split.name, task.name, dataset.episode_index(e.name)) for e in task.iterdir()
                      if e.is_dir() and dataset.episode_index(e.name) is not None]
    return sorted(found)


def check(out: Path, episodes: Iterable[tuple[str, str, int]]) -> list[str]:
    """Check each episode in full (threads: hashing and PNG decoding release
    the GIL); note the damaged ones for the next render and return a line
    for each. A noted episode found intact again (restored) is cleared."""
    episodes = list(episodes)
    with ThreadPoolExecutor(max_workers=max(1, min(8, cpu_cores()))) as pool:
        problems = list(pool.map(lambda e: full_problem(dataset.episode_dir(out, *e)), episodes))
    lines = []
    for (split, task, index), problem in zip(episodes, problems):
        if problem is None:
            status.clear_damage(out, split, task, index)
        else:
            status.record_damage(out, split, task, index, problem)
            lines.append(f"{split}/{task}/{index}: {problem}")
    return lines


def find_damage(out: Path, split: str, tasks: list[str], indices: Iterable[int]) -> list[str]:
    """`mewl render --repair`: the run's own episodes that exist, checked in full."""
    if not out.is_dir():
        return []
    wanted = [(split, t, i) for i in indices for t in tasks if dataset.episode_dir(out, split, t, i).is_dir()]
    with dataset.writing(out):
        return check(out, wanted)


def cmd_verify(args) -> int:
    out = options.output(args.out)
    dataset.read_manifest(out)  # not a dataset, or a damaged manifest: one line
    episodes = episode_folders(out)
    with dataset.writing(out):
        damaged = check(out, episodes)
    for line in damaged:
        print(f"damaged: {line}")
    print(f"verify: {len(episodes)} episode(s) checked, {len(damaged)} damaged"
          + ("; rerun the render command (or add --repair) to render them again" if damaged else ""),
          file=sys.stderr if damaged else sys.stdout)
    return 1 if damaged else 0


def register(sub) -> None:
    s = sub.add_parser("verify", help="check every episode's files against its checksums; name the damaged ones")
    s.add_argument("out")
    s.set_defaults(func=cmd_verify)


def sound(out: Path, folders: list[Path]) -> tuple[list[Path], list[str]]:
    """The item folders a reader of their JSON may use (record complete,
    every JSON file's sha256 as recorded, not noted damaged by `mewl verify`),
    and a line for each of the others."""
    with ThreadPoolExecutor(max_workers=max(1, min(8, cpu_cores()))) as pool:
        problems = list(pool.map(lambda f: full_problem(f, only=".json"), folders))
    good, bad = [], []
    for folder, problem in zip(folders, problems):
        split, task, index = folder.parts[-3], folder.parts[-2], int(folder.name)
        if problem is None and status.is_damaged(out, split, task, index):
            problem = "noted damaged by mewl verify"
        if problem is None:
            good.append(folder)
        else:
            bad.append(f"{split}/{task}/{index}: {problem}")
    return good, bad


def damaged_line(bad: list[str], noun: str = "item") -> str:
    """The items a reader could not use, in one line."""
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return (f"{len(bad)} damaged or incomplete {noun}(s): {bad[0]}{more}; `mewl verify OUT` names them, "
            "the render command renders them again")


def refuse_damaged(path: Path) -> None:
    """`mewl validate` of a published episode (its folder or a file in it):
    a damaged one is refused in one line, however valid its spec looks."""
    folder = path if path.is_dir() else path.parent
    if (folder / RECORD).exists() or (folder / "info.json").exists():
        problem = full_problem(folder)
        if problem is not None:
            raise UserError(f"{folder}: damaged episode: {problem}")
