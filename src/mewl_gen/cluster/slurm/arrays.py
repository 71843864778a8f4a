"""SLURM arrays of a render, one shard per array task: the scripts written and submitted, and a record
of each submission in OUT/slurm/.

Shard I of K holds the items i with i % K == I (`mewl render --shard I/K`).
`write_and_submit` looks at OUT and submits only the shards that still have
items missing, so failed or cancelled array tasks are redone and nothing
finished is rendered twice. `mewl slurm` (cli.slurm) checks the options first,
and fits them to the partition (cluster.slurm.arrays.limits).
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.store import bookkeeping, card
from mewl_gen.store.claims import busy, held
from mewl_gen.store.files import make_folder, probe_writable, write_atomic, writing
from mewl_gen.store.manifest import claim_output
from mewl_gen.store.status import task_status
from mewl_gen.tasks import catalog

from ..planning import Settings
from .jobs import never_clears, states
from .limits import accepted
from .record import record_submission, submissions, unique_path
from .script import Request, active_shards, complete_script, ranges, render_script, sbatch, scancel, scontrol, will_run


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
        write_or_print(render_script(req, shards, log_dir=req.logs), script_path, what)
        return
    for folder in (req.out, req.log_dir):  # a read-only or full folder: one line, nothing submitted
        probe_writable(folder)
    submit(req, shards, what)


def write_or_print(text: str, path: Path | None, what: str) -> int:
    """The script for the user to read and submit: nothing goes into OUT, and
    `mewl render` claims OUT itself when the array starts."""
    if path is None:
        sys.stdout.write(text)
        print(f"mewl slurm: the script above renders {what}; save it (or use --script PATH) and submit it with "
              "sbatch; logs go to the folder you run sbatch from", file=sys.stderr)
        return 0
    try:
        write_atomic(path.parent, path, text)
    except OSError as err:
        raise UserError(f"cannot write --script {path}: {err.strerror}") from None
    print(f"wrote {path}: {what}")
    print(f"submit it with: sbatch {shlex.quote(str(path))}  (logs go to the folder you run sbatch from)")
    return 0


def submit(req: Request, shards: list[int], what: str) -> None:
    """The array, held until SLURM's answer is checked, OUT claimed and the logs'
    folder made (OUT's settings are fixed only once SLURM accepted the array),
    then the completion job that waits for it; both recorded, then released.
    Whatever fails on the way cancels what was submitted."""
    text = render_script(req, shards, log_dir=req.log_dir)
    will_run(text, req.submit_dir)
    try:
        array_job = sbatch(text, "--hold", cwd=req.submit_dir, what="array")
    except UserError as err:
        raise UserError(f"{err}; nothing was submitted") from None
    jobs = [array_job]
    try:
        print(accepted(array_job, req))
        claim(req)
        with writing(req.log_dir):
            if req.out in req.log_dir.parents:
                make_folder(req.out, req.log_dir)
            else:
                req.log_dir.mkdir(parents=True, exist_ok=True)
        with writing(req.out):
            make_folder(req.out, req.slurm_dir)
            script = unique_path(req.slurm_dir, f"render-{req.split}", ".sbatch")
            write_atomic(req.out, script, text)
            print(f"wrote {script}: {what}")
            record_submission(req.out, req.slurm_dir, {"array_job": array_job, "shards": shards, "of": req.shards,
                                              "split": req.split, "tasks": req.tasks, "n": req.n, "script": str(script),
                                              "logs": str(req.log_dir)})
            check_text = complete_script(req, array_job)
            jobs.append(sbatch(check_text, f"--dependency=afterany:{array_job}", cwd=req.submit_dir,
                               what="completion job"))
            check = script.with_name(script.name.replace("render-", "complete-", 1))
            write_atomic(req.out, check, check_text)
            log = req.log_dir / f"complete-{jobs[1]}.out"
            record_submission(req.out, req.slurm_dir, {"check_job": jobs[1], "after": array_job, "script": str(check),
                                              "log": str(log)})
        release(req, array_job)
    except UserError as err:
        scancel(*jobs)
        raise UserError(f"{err}; array job {array_job}" + (" and its completion job were" if len(jobs) > 1 else " was")
                        + " cancelled") from None
    except BaseException:
        scancel(*jobs)
        raise
    print(f"submitted array job {array_job}; logs in {req.log_dir}/{array_job}_<shard>.out"
          + (" (held, as --hold asks: scontrol release it)" if req.held else ""))
    print(f"submitted completion check job {jobs[1]} (afterany:{array_job}, whatever becomes of the array tasks); "
          f"report in {log}")


def release(req: Request, array_job: str) -> None:
    """Let the array start, unless the user holds it; a pending reason that can
    never clear, seen as SLURM schedules it, is one line and nothing left queued."""
    if req.held:
        return
    problem = scontrol("release", array_job)  # also fails, released, on a request the partition cannot run
    found = states(array_job).values()
    hopeless = [why for state in found if (why := never_clears(state))]
    if hopeless:
        raise UserError(f"array job {array_job} could never start ({hopeless[0]})")
    if problem and any(state.reason == "JobHeldUser" for state in found):
        raise UserError(f"scontrol release {array_job} failed: {problem}")


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
    """Write OUT's manifest and plan once SLURM accepted the array and before it
    starts, as `mewl render` would: the array tasks then never race to create
    them, and `mewl status` counts the planned episodes from the start."""
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
