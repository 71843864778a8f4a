"""`mewl status OUT` on a cluster: for the arrays recorded in OUT (the latest
per split, and any earlier one SLURM still runs), each array task's state as
SLURM tells it beside the counts of its shard's items, the completion job, and
a pending reason that can never clear named with what to do."""
from __future__ import annotations

from pathlib import Path

from mewl_gen.errors import shown
from mewl_gen.store import door
from mewl_gen.store.status import TaskStatus
from mewl_gen.tasks import catalog

from .jobs import TaskState, never_clears, states
from .query import Unreachable
from .record import SUBMISSIONS, submissions
from .script import ranges

RECENT = 10  # submissions asked about, the latest first: older ones ended long ago
ACTIVE = ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED")


def slurm_lines(out: Path, rows: list[TaskStatus]) -> list[str]:
    records = submissions(out)
    arrays = [r for r in records if "array_job" in r][-RECENT:]
    if not arrays:
        return []
    checks = {r["after"]: r for r in records if "check_job" in r}
    latest = {r.get("split"): r["array_job"] for r in arrays}
    lines: list[str] = []
    try:
        for r in arrays:
            found = states(r["array_job"])
            if r["array_job"] == latest[r.get("split")] or any(s.state in ACTIVE for s in found.values()):
                lines += _array(r, found, checks.get(r["array_job"]), out, rows)
    except Unreachable as err:
        lines.append(f"slurm: array job(s) {', '.join(r['array_job'] for r in arrays)} recorded in "
                     f"{out / 'slurm' / SUBMISSIONS}; SLURM cannot be asked from here ({err})")
    return lines


def _array(record: dict, found: dict[int | None, TaskState], check: dict | None, out: Path,
           rows: list[TaskStatus]) -> list[str]:
    job, shards = record["array_job"], record["shards"]
    split = record.get("split")
    lines = [f"slurm: array job {job}" + (f" ({shown(split, 40)}, " if split else " (") +
             f"{len(shards)} of {record['of']} shards, submitted {shown(record.get('submitted', '?'), 40)}):"]
    if not found:
        lines.append("  SLURM no longer knows it (it ended; this cluster keeps no accounting to ask)")
    width = len(str(max(shards)))
    hopeless: dict[str, list[int]] = {}
    verdicts: dict[TaskState, str | None] = {}  # a pending range shares one state: asked once
    for shard in shards:
        state = found.get(shard)
        text = state.describe() if state else "not known to SLURM"
        lines.append(f"  shard {shard:<{width}} {text:<44} {_counts(record, shard, rows)}".rstrip())
        if state and state.failed:
            lines.append("    " + _log_end(_log_folder(record, out) / f"{job}_{shard}.out"))
        if state is not None and state not in verdicts:
            verdicts[state] = never_clears(state)
        why = verdicts.get(state) if state else None
        if why:
            hopeless.setdefault(why, []).append(shard)
    for why, which in hopeless.items():
        lines.append(f"  shard(s) {ranges(which)} can never start ({why}): scancel {job}, then rerun "
                     "`mewl slurm`, which fits its request to the partition or says what to change")
    if check:
        lines.append("  " + _check(check, out))
    return lines


def _log_end(log: Path) -> str:
    """Where a failed task's log is and its last line, which usually says why: only a regular file of the
    expected name (`<job>_<shard>.out`, both numbers) in the log folder the submission recorded, never
    through a final link, read from its end and cut."""
    where = shown(str(log))
    try:
        last = door.tail_line(log)
    except OSError as err:
        return f"its log {where}: {err.strerror}"
    except door.Refused as err:
        return f"its log {where}: {err.why}"
    return f"its log {where} ends: {last}" if last else f"its log {where} is empty"


def _log_folder(record: dict, out: Path) -> Path:
    """The log folder a submission recorded (an absolute path), else OUT/slurm/logs."""
    logs = record.get("logs")
    return Path(logs) if logs and Path(logs).is_absolute() and "\x00" not in logs else out / "slurm" / "logs"


def _check(record: dict, out: Path) -> str:
    job = record["check_job"]
    try:
        state = states(job).get(None)
    except Unreachable:
        state = None
    log = shown(record.get("log") or str(out / "slurm" / "logs" / f"complete-{job}.out"))
    text = state.describe() if state else "not known to SLURM"
    return f"completion job {job}: {text}; report in {log}"


def _counts(record: dict, shard: int, rows: list[TaskStatus]) -> str:
    """'1/2 episodes complete, 1 failed' for the items of one shard (records that say which)."""
    split, tasks, n, k = record.get("split"), record.get("tasks"), record.get("n"), record["of"]
    if not (split and tasks and n):
        return ""
    by_task = {r.task: r for r in rows if r.split == split}
    counts = {"complete": 0, "failed": 0, "missing": 0, "running": 0}
    for task in tasks:
        row = by_task.get(task)
        known = range(row.n) if row else range(0)
        failed, running = (set(row.failed), set(row.in_progress)) if row else (set(), set())
        missing = set(row.missing + row.damaged) if row else set()
        for i in range(shard, n, k):
            kind = ("missing" if i not in known or i in missing else "failed" if i in failed
                    else "running" if i in running else "complete")
            counts[kind] += 1
    total = sum(counts.values())
    rest = "".join(f", {v} {k}" for k, v in counts.items() if v and k != "complete")
    return f"{counts['complete']}/{total} {catalog.noun(tasks)}s complete{rest}"
