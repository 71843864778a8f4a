"""What an output folder holds: per split and task, the planned items and which
are complete, failed, missing, damaged or being written now. `mewl status`,
the dataset card and SLURM reruns read it."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from mewl_gen.errors import shown
from mewl_gen.tasks import catalog

from . import bookkeeping, damage, door
from .layout import BOOKKEEPING, item_dir, item_index
from .manifest import read_manifest
from .record import quick_problem

REASONS_SHOWN = 5  # failed items whose reason `mewl status` prints, per split and task


def ranges(indices: list[int], sep: str = ", ", limit: int | None = None) -> str:
    """Sorted indices as ranges: [0, 1, 2, 5] -> '0-2, 5'; past `limit` ranges the rest is counted."""
    spans: list[tuple[int, int]] = []
    for i in indices:
        if spans and spans[-1][1] == i - 1:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    kept = spans if limit is None else spans[:limit]
    text = sep.join(f"{a}" if a == b else f"{a}-{b}" for a, b in kept)
    return text + (f"{sep}... ({len(spans) - len(kept)} more ranges)" if len(kept) < len(spans) else "")


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


def task_status(out: Path, split: str, task: str, n: int | None = None, held: frozenset = frozenset()) -> TaskStatus:
    """Each item below N (the largest requested, or the N given) by its
    state; `held`: the (split, task, index) that live writers claim now (store.claims)."""
    n = bookkeeping.planned(out, split, task, strict=True) if n is None else n
    present = _indices(out, out / split / task, folders=True)
    failures = _indices(out, bookkeeping.failure_path(out, split, task, 0).parent, folders=False)
    noted = damage.noted(out, split, task)
    complete = 0
    failed, missing, damaged, in_progress = [], [], [], []
    for i in range(n):
        if i in present and i not in noted and quick_problem(item_dir(out, split, task, i), out) is None:
            complete += 1
        elif (split, task, i) in held:
            in_progress.append(i)
        elif i in present:
            damaged.append(i)
        elif i in failures:
            failed.append(i)
        else:
            missing.append(i)
    return TaskStatus(split, task, n, complete, failed, missing, damaged, in_progress)


def _indices(out: Path, folder: Path, folders: bool) -> set[int]:
    """The indices named in a folder under OUT: item folders (`folders`; a link in an item's place is one,
    damaged), or failure records `<i>.json`. One listing, however large N is."""
    if folders:
        return {i for name, kind in door.entries(out, folder) if kind != "file" and (i := item_index(name)) is not None}
    return {i for name, kind in door.entries(out, folder)
            if kind == "file" and name.endswith(".json") and (i := item_index(name[: -len(".json")])) is not None}


def dataset_status(out: Path, n: int | None = None, held: frozenset = frozenset()) -> list[TaskStatus]:
    read_manifest(out)  # not a dataset, or a damaged manifest: one line
    return [task_status(out, split, task, n, held) for split, task in bookkeeping.plans(out)]


def _ranges(indices: list[int]) -> str:
    return ranges(indices, limit=8)


def _reasons(out: Path, r: TaskStatus) -> list[str]:
    """Why the first few failed items failed: the last line of each record's
    reason (a traceback's is its error), as `mewl status` and the SLURM completion report show it."""
    lines = []
    for i in r.failed[:REASONS_SHOWN]:
        reason = [line for line in bookkeeping.failure_reason(out, r.split, r.task, i).splitlines() if line.strip()]
        lines.append(f"      {i}: {shown(reason[-1].strip()) if reason else '(no reason recorded)'}")
    if len(r.failed) > REASONS_SHOWN:
        lines.append(f"      ... and {len(r.failed) - REASONS_SHOWN} more")
    return lines


def report(rows: list[TaskStatus], given_n: bool = False, extra: list[str] = (), out: Path | None = None) -> str:
    """The table; `out` given, also why the first failed items of each task failed."""
    if not rows:
        return "\n".join(["nothing planned yet", *extra])
    unit = catalog.noun([r.task for r in rows])
    against = "the N given (--n)" if given_n else "the largest N requested per task (--n N checks the first N)"
    w = max(10, *(len(r.task) for r in rows))  # a bare task name fits 10; <benchmark>-<task> is longer
    lines = [f"{unit}s 0..N-1 against {against}",
             f"{'split':<10} {'task':<{w}} {'planned':>8} {'complete':>9} {'failed':>7} {'missing':>8} {'damaged':>8} {'running':>8}"]
    for r in rows:
        lines.append(f"{r.split:<10} {shown(r.task, 80):<{w}} {r.n:>8} {r.complete:>9} {len(r.failed):>7} {len(r.missing):>8}"
                     f" {len(r.damaged):>8} {len(r.in_progress):>8}")
        if r.failed:
            lines.append(f"    failed: {_ranges(r.failed)} (reasons in {BOOKKEEPING}/failed/{r.split}/{shown(r.task, 80)}/)")
            lines += _reasons(out, r) if out else []
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


@dataclass(frozen=True)
class Shortfall:
    """A split and task of OUT holding fewer sound items than its plan asks for."""

    split: str
    task: str
    have: int
    planned: int

    def phrase(self) -> str:
        """'5 of 600 planned episodes', as every command reporting on a part-made dataset says it."""
        return of_planned(self.have, self.planned, catalog.noun([self.task]))


def of_planned(have: int, planned: int, noun: str) -> str:
    return f"{have} of {planned} planned {noun}s"


def shortfalls(out: Path, have: dict[tuple[str, str], int]) -> list[Shortfall]:
    """Each planned split and task (OUT's plans, the largest N requested) short of its plan, in plan order;
    `have`: the sound items a command found per (split, task)."""
    found, known = [], catalog.tasks()
    for split, task in bookkeeping.plans(out):
        if task not in known:  # the readers read registered tasks only
            continue
        planned, held = bookkeeping.planned(out, split, task), have.get((split, task), 0)
        if held < planned:
            found.append(Shortfall(split, task, held, planned))
    return found


def incomplete_line(short: list[Shortfall]) -> str:
    """The shortfalls in one line, for a command's report (empty where there are none)."""
    if not short:
        return ""
    have, planned = sum(s.have for s in short), sum(s.planned for s in short)
    parts = [f"{s.split}/{s.task}: {s.phrase()}" for s in short[:3]]
    more = f" and {len(short) - 3} more" if len(short) > 3 else ""
    total = f"; {of_planned(have, planned, catalog.noun([s.task for s in short]))} in all" if len(short) > 1 else ""
    return (f"incomplete dataset: {', '.join(parts)}{more}{total}; `mewl status OUT` names the missing ones, "
            "the render command renders them")


def as_json(rows: list[TaskStatus]) -> str:
    return json.dumps([{**asdict(r), "done": r.done} for r in rows], indent=2)
