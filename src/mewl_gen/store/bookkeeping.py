"""An output folder's bookkeeping in OUT/.mewl/: the plan (the largest N requested
per split and task), the record of items that failed, and the notes of damaged
items that `mewl verify` left for the next render."""
from __future__ import annotations

import json
from pathlib import Path

from mewl_gen.errors import UserError

from .files import dumps, make_folder, write_atomic
from .layout import BOOKKEEPING


def plan_path(out: Path, split: str, task: str) -> Path:
    return out / BOOKKEEPING / "plan" / split / f"{task}.json"


def planned(out: Path, split: str, task: str, strict: bool = False) -> int:
    """The largest N ever requested for this split and task (0 if none; the
    next run rewrites a damaged plan). `strict`: a damaged plan is one line,
    not an empty task."""
    path = plan_path(out, split, task)
    try:
        n = json.loads(path.read_text())["n"]
        if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            return n
    except FileNotFoundError:
        return 0
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if strict:
        raise UserError(f"{path} is damaged; rerun the render (or sample) command with the --n you want, "
                        f"which rewrites it, or give `mewl status OUT --n N`")
    return 0


def plans(out: Path) -> list[tuple[str, str]]:
    """(split, task) of every plan, in order."""
    return [(p.parent.name, p.stem) for p in sorted((out / BOOKKEEPING / "plan").glob("*/*.json"))]


def record_plan(out: Path, split: str, task: str, n: int) -> None:
    if planned(out, split, task) >= n:
        return
    path = plan_path(out, split, task)
    make_folder(out, path.parent)
    write_atomic(path, dumps({"split": split, "task": task, "n": n}))


def failure_path(out: Path, split: str, task: str, index: int) -> Path:
    return out / BOOKKEEPING / "failed" / split / task / f"{index}.json"


def record_failure(out: Path, split: str, task: str, index: int, reasons: list[str]) -> None:
    path = failure_path(out, split, task, index)
    make_folder(out, path.parent)
    record = {"task": task, "split": split, "index": index, "reason": reasons[-1], "attempts": reasons}
    write_atomic(path, dumps(record))


def failure_reason(out: Path, split: str, task: str, index: int) -> str:
    try:
        return str(json.loads(failure_path(out, split, task, index).read_text())["reason"])
    except (OSError, ValueError, KeyError, TypeError):
        return "failed (no readable reason)"


def clear_failure(out: Path, split: str, task: str, index: int) -> None:
    failure_path(out, split, task, index).unlink(missing_ok=True)


def damage_path(out: Path, split: str, task: str, index: int) -> Path:
    """Where `mewl verify` notes a damaged item, for the next render to redo."""
    return out / BOOKKEEPING / "damaged" / split / task / f"{index}.json"


def record_damage(out: Path, split: str, task: str, index: int, problem: str) -> None:
    path = damage_path(out, split, task, index)
    make_folder(out, path.parent)
    write_atomic(path, dumps({"task": task, "split": split, "index": index, "problem": problem}))


def is_damaged(out: Path, split: str, task: str, index: int) -> bool:
    return damage_path(out, split, task, index).is_file()


def clear_damage(out: Path, split: str, task: str, index: int) -> None:
    damage_path(out, split, task, index).unlink(missing_ok=True)
