"""What a rendered dataset holds: the plan (the largest N requested per split
and task), complete, damaged, in-progress, failed and missing episodes, and
leftovers of dead writers. `mewl status` and SLURM reruns read it.

The plan and the failure records live in OUT/.mewl/, outside every split:
MEWL's loaders glob `<split>/<task>/*` with pathlib, which matches hidden
names too, so no bookkeeping may sit inside a split folder.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from . import claims, dataset, options, writers
from .errors import UserError
from .record import quick_problem

BOOKKEEPING = dataset.BOOKKEEPING


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


def failure_reason(out: Path, split: str, task: str, index: int) -> str:
    try:
        return str(json.loads(failure_path(out, split, task, index).read_text())["reason"])
    except (OSError, ValueError, KeyError, TypeError):
        return "failed (no readable reason)"


def clear_failure(out: Path, split: str, task: str, index: int) -> None:
    failure_path(out, split, task, index).unlink(missing_ok=True)


def damage_path(out: Path, split: str, task: str, index: int) -> Path:
    """Where `mewl verify` notes a damaged episode, for the next render to redo."""
    return out / BOOKKEEPING / "damaged" / split / task / f"{index}.json"


def record_damage(out: Path, split: str, task: str, index: int, problem: str) -> None:
    path = damage_path(out, split, task, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    dataset.write_atomic(path, dataset.dumps({"task": task, "split": split, "index": index, "problem": problem}))


def is_damaged(out: Path, split: str, task: str, index: int) -> bool:
    return damage_path(out, split, task, index).is_file()


def clear_damage(out: Path, split: str, task: str, index: int) -> None:
    damage_path(out, split, task, index).unlink(missing_ok=True)


@dataclass(frozen=True)
class TaskStatus:
    split: str
    task: str
    n: int
    complete: int
    failed: list[int]
    missing: list[int]
    damaged: list[int]  # files disagree with the record, or `mewl verify` found them damaged
    in_progress: list[int]  # claimed by a live writer now

    @property
    def done(self) -> bool:
        return not (self.failed or self.missing or self.damaged or self.in_progress)


def task_status(out: Path, split: str, task: str, n: int | None = None, held: set | None = None) -> TaskStatus:
    """Each episode below N (the largest requested, or the N given) by its
    state; `held`: the (split, task, index) that live writers claim now."""
    n = planned(out, split, task, strict=True) if n is None else n
    held = {(c.split, c.task, c.index) for c in claims.all_claims(out) if c.alive} if held is None else held
    complete = 0
    failed, missing, damaged, in_progress = [], [], [], []
    for i in range(n):
        folder = dataset.episode_dir(out, split, task, i)
        if folder.is_dir() and quick_problem(folder) is None and not is_damaged(out, split, task, i):
            complete += 1
        elif (split, task, i) in held:
            in_progress.append(i)
        elif folder.exists():
            damaged.append(i)
        elif failure_path(out, split, task, i).is_file():
            failed.append(i)
        else:
            missing.append(i)
    return TaskStatus(split, task, n, complete, failed, missing, damaged, in_progress)


def dataset_status(out: Path, n: int | None = None) -> list[TaskStatus]:
    dataset.read_manifest(out)  # not a dataset, or a damaged manifest: one line
    plans = sorted((out / BOOKKEEPING / "plan").glob("*/*.json"))
    held = {(c.split, c.task, c.index) for c in claims.all_claims(out) if c.alive}
    return [task_status(out, p.parent.name, p.stem, n, held) for p in plans]


def leftovers(out: Path) -> list[str]:
    """Lines about what dead writers left and what was set aside."""
    stale = [f for f, alive in writers.staging_folders(out) if not alive]
    live = [f for f, alive in writers.staging_folders(out) if alive]
    dead_claims = [c for c in claims.all_claims(out) if not c.alive]
    aside = list((out / dataset.DAMAGED).glob("*/*/*"))
    lines = []
    if live:
        lines.append(f"{len(live)} writer(s) at work now: " + ", ".join(f.name for f in live))
    if stale or dead_claims:
        lines.append(f"{len(stale)} staging folder(s) and {len(dead_claims)} episode claim(s) of dead writers "
                     f"in {dataset.STAGING}/ and {BOOKKEEPING}/claims/: the next render removes or takes them over")
    if aside:
        lines.append(f"{len(aside)} damaged episode folder(s) set aside in {dataset.DAMAGED}/ (kept for you to look at)")
    return lines


def _ranges(indices: list[int]) -> str:
    return options.ranges(indices, limit=8)


def report(rows: list[TaskStatus], given_n: bool = False, extra: list[str] = ()) -> str:
    if not rows:
        return "\n".join(["nothing planned yet", *extra])
    unit = options.noun([r.task for r in rows])
    against = "the N given (--n)" if given_n else "the largest N requested per task (--n N checks the first N)"
    w = max(10, *(len(r.task) for r in rows))  # MEWL's names fit 10; others are longer
    lines = [f"{unit}s 0..N-1 against {against}",
             f"{'split':<10} {'task':<{w}} {'planned':>8} {'complete':>9} {'failed':>7} {'missing':>8} {'damaged':>8} {'running':>8}"]
    for r in rows:
        lines.append(f"{r.split:<10} {r.task:<{w}} {r.n:>8} {r.complete:>9} {len(r.failed):>7} {len(r.missing):>8}"
                     f" {len(r.damaged):>8} {len(r.in_progress):>8}")
        if r.failed:
            lines.append(f"    failed: {_ranges(r.failed)} (reasons in {BOOKKEEPING}/failed/{r.split}/{r.task}/)")
        if r.missing:
            lines.append(f"    missing: {_ranges(r.missing)}")
        if r.damaged:
            lines.append(f"    damaged: {_ranges(r.damaged)} (mewl verify says why; a rerun renders them again)")
        if r.in_progress:
            lines.append(f"    running: {_ranges(r.in_progress)} (claimed by a live writer now)")
    total = sum(r.n for r in rows)
    complete = sum(r.complete for r in rows)
    lines.append(f"{complete}/{total} {unit}s complete" + ("" if complete == total else ", dataset incomplete"))
    return "\n".join(lines + list(extra))


def as_json(rows: list[TaskStatus]) -> str:
    return json.dumps([{**asdict(r), "done": r.done} for r in rows], indent=2)
