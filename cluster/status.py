"""What a rendered dataset holds: the plan (requested N per split and task),
complete, failed and missing episodes. `mewl status` and SLURM reruns read it.

The plan and the failure records live in OUT/.mewl/, outside every split:
MEWL's loaders glob `<split>/<task>/*` with pathlib, which matches hidden
names too, so no bookkeeping may sit inside a split folder.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from . import dataset
from .errors import UserError

BOOKKEEPING = ".mewl"


def plan_path(out: Path, split: str, task: str) -> Path:
    return out / BOOKKEEPING / "plan" / split / f"{task}.json"


def planned(out: Path, split: str, task: str) -> int:
    """The largest N ever requested for this split and task (0 if none)."""
    try:
        return int(json.loads(plan_path(out, split, task).read_text())["n"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def record_plan(out: Path, split: str, task: str, n: int) -> None:
    if planned(out, split, task) >= n:
        return
    path = plan_path(out, split, task)
    path.parent.mkdir(parents=True, exist_ok=True)
    dataset.write_atomic(path, dataset.dumps({"split": split, "task": task, "n": n}))


def failure_path(out: Path, split: str, task: str, index: int) -> Path:
    return out / BOOKKEEPING / "failed" / split / task / f"{index}.json"


def record_failure(out: Path, split: str, task: str, index: int, reasons: list[str]) -> None:
    path = failure_path(out, split, task, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"task": task, "split": split, "index": index, "reason": reasons[-1], "attempts": reasons}
    dataset.write_atomic(path, dataset.dumps(record))


def clear_failure(out: Path, split: str, task: str, index: int) -> None:
    failure_path(out, split, task, index).unlink(missing_ok=True)


@dataclass(frozen=True)
class TaskStatus:
    split: str
    task: str
    n: int
    complete: int
    failed: list[int]
    missing: list[int]

    @property
    def done(self) -> bool:
        return not self.failed and not self.missing


def task_status(out: Path, split: str, task: str, n: int | None = None) -> TaskStatus:
    n = planned(out, split, task) if n is None else n
    complete = 0
    failed, missing = [], []
    for i in range(n):
        if dataset.is_complete(out, split, task, i):
            complete += 1
        elif failure_path(out, split, task, i).is_file():
            failed.append(i)
        else:
            missing.append(i)
    return TaskStatus(split, task, n, complete, failed, missing)


def dataset_status(out: Path) -> list[TaskStatus]:
    if not (out / dataset.MANIFEST).is_file():
        raise UserError(f"{out} is not a dataset of this tool (no {dataset.MANIFEST})")
    plans = sorted((out / BOOKKEEPING / "plan").glob("*/*.json"))
    return [task_status(out, p.parent.name, p.stem) for p in plans]


def _ranges(indices: list[int], limit: int = 8) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'; long lists are cut."""
    spans: list[str] = []
    for i in indices:
        if spans and spans[-1][1] == i - 1:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    text = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:limit]]
    return ", ".join(text) + (f", ... ({len(spans) - limit} more ranges)" if len(spans) > limit else "")


def report(rows: list[TaskStatus]) -> str:
    if not rows:
        return "no episodes planned yet"
    lines = [f"{'split':<10} {'task':<10} {'planned':>8} {'complete':>9} {'failed':>7} {'missing':>8}"]
    for r in rows:
        lines.append(f"{r.split:<10} {r.task:<10} {r.n:>8} {r.complete:>9} {len(r.failed):>7} {len(r.missing):>8}")
        if r.failed:
            lines.append(f"    failed: {_ranges(r.failed)} (reasons in {BOOKKEEPING}/failed/{r.split}/{r.task}/)")
        if r.missing:
            lines.append(f"    missing: {_ranges(r.missing)}")
    total = sum(r.n for r in rows)
    complete = sum(r.complete for r in rows)
    lines.append(f"{complete}/{total} episodes complete" + ("" if complete == total else ", dataset incomplete"))
    return "\n".join(lines)


def as_json(rows: list[TaskStatus]) -> str:
    return json.dumps([{**asdict(r), "done": r.done} for r in rows], indent=2)
