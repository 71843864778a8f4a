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
    counted = _counts(record, rows)
    hopeless: dict[str, list[int]] = {}
    verdicts: dict[TaskState, str | None] = {}  # a pending range shares one state: asked once
    for shard in shards:
        state = found.get(shard)
        text = state.describe() if state else "not known to SLURM"
        lines.append(f"  shard {shard:<{width}} {text:<44} {counted.get(shard, '')}".rstrip())
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


def _counts(record: dict, rows: list[TaskStatus]) -> dict[int, str]:
    """Per shard, '1/2 episodes complete, 1 failed' for its items (records that say which). Counted from the
    rows' lists once, whatever N the record says: a record's numbers never size a loop past its lists."""
    split, tasks, n, k = record.get("split"), record.get("tasks"), record.get("n"), record["of"]
    if not (split and tasks and n):
        return {}
    by_task = {r.task: r for r in rows if r.split == split}
    kinds = ("complete", "failed", "missing", "running")
    tally = {shard: dict.fromkeys(kinds, 0) for shard in record["shards"]}
    for task in dict.fromkeys(tasks):
        row = by_task.get(task)
        planned = min(n, row.n) if row else 0
        for shard, counts in tally.items():
            counts["complete"] += len(range(shard, planned, k))
            counts["missing"] += len(range(shard, n, k)) - len(range(shard, planned, k))
        for kind, indices in (("missing", row.missing + row.damaged), ("failed", row.failed),
                              ("running", row.in_progress)) if row else ():
            for i in indices:
                if i < n and i % k in tally:
                    tally[i % k][kind] += 1
                    tally[i % k]["complete"] -= 1
    noun = catalog.noun(tasks)
    return {shard: f"{c['complete']}/{sum(c.values())} {noun}s complete"
            + "".join(f", {v} {kind}" for kind, v in c.items() if v and kind != "complete") for shard, c in tally.items()}
