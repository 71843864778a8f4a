"""`mewl sample`: items' specs and release files (tasks.item.Item.release_files),
no rendering.

Each item is claimed, written into the writer's staging folder with its
record of checksums last, and published, like a rendered one: several
samplers (or a sampler beside a renderer) share one OUT safely.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

from mewl_gen.store import bookkeeping, card, damage, index, layout
from mewl_gen.store.claims import clean_stale, future_line
from mewl_gen.store.files import writing
from mewl_gen.store.writers import Writer, nfs_warning
from mewl_gen.tasks.benchmark import ItemError
from mewl_gen.tasks.catalog import noun, sample_item

from .item_job import Outcome, claimed, write_release_files
from .planning import Settings

RECHECK = 1.0  # seconds between looks at episodes another writer holds
BATCH = 50  # items of one task a worker process samples at a time
# A pool of fresh interpreters costs about a second of CPU a worker to start (each imports the tool), more
# than a few items of every task cost to sample: a run's first items are sampled in this process, a few at a
# time, and a pool takes what is left after IN_PROCESS seconds of this process's CPU (on a loaded machine a
# second of the clock may be a fraction of one of work). A small run never starts one.
IN_PROCESS = 1.0
FEW = 5


def _sample_batch(settings: Settings, task: str, indices: list[int]) -> list[str]:
    out, seed, split = settings.out, settings.seed, settings.split
    failed: list[str] = []

    def produce(i: int):
        def write(staging: Callable[[], Path]) -> Outcome:
            try:
                item = sample_item(task, seed, split, i, scheme=settings.scheme, config=settings.config_of(task))
            except ItemError as err:
                failed.append(str(err))
                return Outcome(task, i, False, 0, 0, (str(err),))
            tmp = staging()
            write_release_files(out, tmp, item)
            layout.publish(tmp, out, split, task, i, durable=settings.durable)
            return Outcome(task, i, True, 0, 0)
        return write

    noted = damage.noted(out, split, task)
    todo = [i for i in indices if not layout.is_complete(out, split, task, i) or i in noted]
    told: set[int] = set()
    with writing(out), Writer(out) as writer:
        while todo:
            held = {i: outcome.held_by for i in todo
                    if (outcome := claimed(writer, settings, task, i, produce(i))).held_by is not None}
            for i in held.keys() - told:  # once per item: who holds it, and until when
                print(f"sample: waiting: {task} {noun([task])} {i} is being written by another writer ({held[i]})",
                      file=sys.stderr, flush=True)
            told |= held.keys()
            if held:
                time.sleep(RECHECK)  # another live writer has them: wait for it to finish
            todo = sorted(held)
    return failed


def sample_to_disk(settings: Settings, tasks: list[str], n: int, workers: int) -> list[str]:
    """Write every missing item; returns the failures' reasons."""
    out, split = settings.out, settings.split
    for warning in (nfs_warning(out), future_line(out)):
        if warning:
            print(f"mewl: warning: {warning}", file=sys.stderr)
    with writing(out):
        clean_stale(out)  # dead writers' staging folders and claims
        for task in tasks:
            bookkeeping.record_plan(out, split, task, n)
    jobs = [(t, list(range(start, min(start + BATCH, n)))) for t in tasks for start in range(0, n, BATCH)]
    results, deadline = [], time.process_time() + IN_PROCESS
    while jobs and time.process_time() < deadline:
        task, indices = jobs.pop(0)
        results.append(_sample_batch(settings, task, indices[:FEW]))
        if indices[FEW:]:
            jobs.insert(0, (task, indices[FEW:]))
    if jobs:  # one batch left is sampled here too (joblib's pool of one is this process)
        from joblib import Parallel, delayed  # loads only where a pool samples, not at every command's start

        results += Parallel(n_jobs=min(workers, len(jobs)))(delayed(_sample_batch)(settings, t, idx) for t, idx in jobs)
    for task in tasks:
        index.rebuild(out, split, task)
    card.write_card(out)
    return [reason for batch in results for reason in batch]
