"""An output folder's bookkeeping in OUT/.mewl/: the plan (the largest N requested
per split and task) and the record of items that failed (the notes of damaged
items that `mewl verify` leaves for the next render are store/damage.py's)."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mewl_gen.errors import UserError, shown

from . import door
from .files import dumps, write_atomic
from .layout import BOOKKEEPING, SPLIT

MAX_ITEMS = 10_000_000  # per task and split (as --n allows): a plan asking more is damaged


class Plan(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    split: str = Field(max_length=64)
    task: str = Field(max_length=128)
    n: int = Field(ge=0, le=MAX_ITEMS)


class Failure(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    task: str = Field(max_length=128)
    split: str = Field(max_length=64)
    index: int = Field(ge=0, le=MAX_ITEMS)
    reason: str
    attempts: list[str] = Field(max_length=1000)


def plan_path(out: Path, split: str, task: str) -> Path:
    return out / BOOKKEEPING / "plan" / split / f"{task}.json"


def planned(out: Path, split: str, task: str, strict: bool = False) -> int:
    """The largest N ever requested for this split and task (0 if none; the
    next run rewrites a damaged plan). `strict`: a damaged plan is one line,
    not an empty task."""
    path = plan_path(out, split, task)
    why = ""
    try:
        plan = door.read_model(out, path, "plan", Plan)
        if plan.split == split and plan.task == task:
            return plan.n
        why = f" (it is the plan of {shown(plan.split, 40)}/{shown(plan.task, 60)})"
    except FileNotFoundError:
        return 0
    except door.Refused as err:
        if door.is_link_refusal(err):
            raise
        why = f" ({err.why})"
    except OSError as err:
        why = f" ({err.strerror})"
    if strict:
        raise UserError(f"{shown(str(path))} is damaged{why}; rerun the render (or sample) command with the --n you "
                        f"want, which rewrites it, or give `mewl status OUT --n N`")
    return 0


def plans(out: Path) -> list[tuple[str, str]]:
    """(split, task) of every plan, in order."""
    top = out / BOOKKEEPING / "plan"
    found = []
    for split, kind in door.entries(out, top):
        if kind == "link":
            raise door.link_refused(top / split)
        if kind != "folder" or not SPLIT.fullmatch(split):
            continue
        found += [(split, name[: -len(".json")]) for name, k in door.entries(out, top / split)
                  if k != "folder" and name.endswith(".json") and len(name) > len(".json")]
    return found


def record_plan(out: Path, split: str, task: str, n: int) -> None:
    if planned(out, split, task) >= n:
        return
    write_atomic(out, plan_path(out, split, task), dumps({"split": split, "task": task, "n": n}), make=True)


def failure_path(out: Path, split: str, task: str, index: int) -> Path:
    return out / BOOKKEEPING / "failed" / split / task / f"{index}.json"


def record_failure(out: Path, split: str, task: str, index: int, reasons: list[str]) -> None:
    record = {"task": task, "split": split, "index": index, "reason": reasons[-1], "attempts": reasons}
    write_atomic(out, failure_path(out, split, task, index), dumps(record), make=True)


def failure_reason(out: Path, split: str, task: str, index: int) -> str:
    try:
        return door.read_model(out, failure_path(out, split, task, index), "note", Failure).reason
    except (OSError, door.Refused):
        return "failed (no readable reason)"


def clear_failure(out: Path, split: str, task: str, index: int) -> None:
    door.unlink(out, failure_path(out, split, task, index))
