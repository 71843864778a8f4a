"""SLURM arrays of a render, one shard per array task: the scripts written and submitted, and a record
of each submission in OUT/slurm/.

Shard I of K holds the items i with i % K == I (`mewl render --shard I/K`).
`write_and_submit` looks at OUT and submits only the shards that still have
items missing, so failed or cancelled array tasks are redone and nothing
finished is rendered twice. `mewl slurm` (cli.slurm) checks the options first.
"""
from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from store import bookkeeping, card
from store.errors import UserError
from store.files import write_atomic
from store.manifest import claim_output
from store.status import task_status
from tasks import catalog

from .claims import busy, held
from .planning import Settings
from .slurm_script import Request, active_shards, complete_script, ranges, render_script, sbatch

SUBMISSIONS = "submissions.jsonl"


def write_and_submit(req: Request, submit_it: bool, script_path: Path | None = None) -> None:
    missing = missing_by_shard(req)
    if not missing:
        print(busy(req.out, req.split, req.tasks, req.n) or f"nothing missing: all {len(req.tasks)} x {req.n} "
              f"{catalog.noun(req.tasks)}s of {req.split} are complete in {req.out}; nothing submitted")
        return
    shards = sorted(missing)
    episodes = [e for shard in missing.values() for e in shard]
    failed = sum(bookkeeping.failure_path(req.out, req.split, task, i).is_file() for task, i in episodes)
    what = (f"{len(shards)} of {req.shards} shards ({ranges(shards)}), {len(episodes)} {catalog.noun(req.tasks)}(s) missing"
            + (f", {failed} of them failed before (see mewl status)" if failed else ""))
    if not submit_it:
        write_or_print(render_script(req, shards, log_dir=None), script_path, what)
        return
    claim(req)
    req.log_dir.mkdir(parents=True, exist_ok=True)
    script = unique_path(req.slurm_dir, f"render-{req.split}", ".sbatch")
    write_atomic(script, render_script(req, shards, log_dir=req.log_dir))
    print(f"wrote {script}: {what}")
    submit(req, script, shards)


def write_or_print(text: str, path: Path | None, what: str) -> int:
    """The script for the user to read and submit: nothing goes into OUT, and
    `mewl render` claims OUT itself when the array starts."""
    if path is None:
        sys.stdout.write(text)
        print(f"mewl slurm: the script above renders {what}; save it (or use --script PATH) and submit it with "
              "sbatch; logs go to the folder you run sbatch from", file=sys.stderr)
        return 0
    try:
        write_atomic(path, text)
    except OSError as err:
        raise UserError(f"cannot write --script {path}: {err.strerror}") from None
    print(f"wrote {path}: {what}")
    print(f"submit it with: sbatch {shlex.quote(str(path))}  (logs go to the folder you run sbatch from)")
    return 0


def submit(req: Request, script: Path, shards: list[int]) -> None:
    """The array, then the completion check that waits for it; both recorded."""
    array_job = sbatch(script, cwd=req.submit_dir)
    print(f"submitted array job {array_job}; logs in {req.log_dir}/{array_job}_<shard>.out")
    record_submission(req, {"array_job": array_job, "shards": shards, "of": req.shards, "script": str(script)})
    check = script.with_name(script.name.replace("render-", "complete-", 1))
    write_atomic(check, complete_script(req, array_job))
    # A cancelled or failed shard makes afterok impossible: let SLURM drop the check then.
    check_job = sbatch(check, f"--dependency=afterok:{array_job}", "--kill-on-invalid-dep=yes", cwd=req.submit_dir)
    print(f"submitted completion check job {check_job} (afterok:{array_job}); "
          f"report in {req.log_dir}/complete-{check_job}.out")
    record_submission(req, {"check_job": check_job, "after": array_job, "script": str(check)})


def missing_by_shard(req: Request) -> dict[int, list[tuple[str, int]]]:
    """The (task, index) pairs not complete (missing, failed or damaged), by
    shard; shards with none left out."""
    missing: dict[int, list[tuple[str, int]]] = {}
    for task in req.tasks:
        row = task_status(req.out, req.split, task, req.n, held(req.out))
        for i in sorted(row.missing + row.failed + row.damaged):
            missing.setdefault(i % req.shards, []).append((task, i))
    return missing


def claim(req: Request) -> None:
    """Write OUT's manifest and plan before the array starts, as `mewl render`
    would: the array tasks then never race to create them, and `mewl status`
    counts the planned episodes from the start."""
    claim_output(req.out, render_settings(req), catalog.benchmark_names(req.tasks))
    for task in req.tasks:
        bookkeeping.record_plan(req.out, req.split, task, req.n)
    card.write_card(req.out)


def render_settings(req: Request) -> dict:
    # The manifest `mewl render` claims (cli.render): the array tasks must find it equal.
    return Settings(req.out, req.split, req.seed, req.quality, req.scheme, req.configs, req.passes).manifest("rendered")


def refuse_if_running(req: Request) -> None:
    """Submitting again while an earlier array of this OUT still runs would
    render its shards twice."""
    jobs = [r["array_job"] for r in submissions(req.out) if "array_job" in r]
    active = active_shards(jobs)
    if active:
        job, shards = next(iter(active.items()))
        raise UserError(f"array job {job} for {req.out} still has shards queued or running ({','.join(shards)}); "
                        f"wait for it (squeue -j {job}) or scancel {job}, then rerun")


def submissions(out: Path) -> list[dict]:
    path = out / "slurm" / SUBMISSIONS
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError):
        return []


def record_submission(req: Request, record: dict) -> None:
    record["submitted"] = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(req.slurm_dir / SUBMISSIONS, "a") as log:
        log.write(json.dumps(record) + "\n")


def unique_path(folder: Path, stem: str, suffix: str) -> Path:
    """folder/stem-<time>.suffix, never an existing file (scripts of earlier runs are kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        path = folder / f"{stem}-{stamp}{'' if k == 0 else f'-{k}'}{suffix}"
        if not path.exists():
            return path
    raise UserError(f"too many scripts named {stem}-{stamp}* in {folder}")
