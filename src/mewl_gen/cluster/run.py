"""A render run, start to finish: what `mewl render` does once its options are checked.

Plan the items of the shard that are not complete, start the workers (one
line and nothing written when no device can start), claim OUT, render the
items, show progress, and leave the split's index and the dataset card
current, also after Ctrl-C or SIGTERM: only complete items are ever kept.
A storage fault anywhere (OUT's disk, its log) stops it in one line; an OUT
removed under it is never made again (store.layout.present, store.files.make_folder).
"""
from __future__ import annotations

import contextlib
import logging
import signal
from dataclasses import dataclass
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.render import DeviceError
from mewl_gen.store import bookkeeping, card, index
from mewl_gen.store.claims import clean_stale, future_line
from mewl_gen.store.files import probe_writable, writing
from mewl_gen.store.layout import MANIFEST, STAGING, is_complete
from mewl_gen.store.manifest import claim_output
from mewl_gen.store.verify import find_damage
from mewl_gen.store.writers import Writer, nfs_warning
from mewl_gen.tasks import catalog

from . import calibrate
from .hardware import visible_gpus
from .pipeline import RenderPool, plan, say_once, worker_options
from .planning import Settings
from .progress import Progress, say
from .slurm.jobs import resume_advice


@dataclass(frozen=True)
class Run:
    """A render, every option checked."""

    tasks: list[str]
    n: int
    device: str
    gpu_ids: list[int] | None
    workers: int | None  # --workers
    per_gpu: int | None  # --workers-per-gpu
    shard: tuple[int, int]
    settings: Settings
    manifest: dict
    out_option: str = "--out"  # how the user named OUT, for a refusal to name back (cli.options.out_option)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C."""


def _stop_on(signum, frame):
    """The first SIGINT or SIGTERM stops the run; later ones (make and SLURM
    pass SIGTERM on to a group that already has it) must not cut the cleanup short."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def render(run: Run, repair: bool = False) -> int:
    """Render the run's missing items; the exit status (130 or 143 when interrupted)."""
    tasks, n, shard, settings = run.tasks, run.n, run.shard, run.settings
    out, split = settings.out, settings.split
    noun = catalog.noun(tasks)
    probe_writable(out)  # a read-only or full OUT is refused before Blender starts
    if warning := nfs_warning(out):
        say(f"mewl: warning: {warning}")
    if warning := future_line(out):
        say(f"mewl: warning: {warning}")
    if repair:
        damaged = find_damage(out, split, tasks, range(shard[0], n, shard[1]))
        say(f"render: --repair found {len(damaged)} damaged {noun}(s)" + "".join(f"\n  {d}" for d in damaged))
    jobs, complete = plan(settings, tasks, n, shard)
    logging.basicConfig(level=logging.WARNING, format="mewl: %(message)s")
    logging.getLogger("render").addFilter(say_once())
    previous = {sig: signal.signal(sig, _stop_on) for sig in (signal.SIGINT, signal.SIGTERM)}
    state: dict = {}  # the Progress, once rendering starts
    try:
        if not jobs:
            _claim(run)
            with writing(out):
                stale = clean_stale(out)
            _index(out, split, tasks)
            say(f"render: nothing to do, {complete} {noun}(s) already complete in {out / split}"
                + (f"; removed {len(stale)} staging folder(s) of dead writers" if stale else ""))
            return 0
        created = not out.exists()
        try:
            with writing(out):
                _render(state, run, jobs, complete, created)
        finally:
            if "progress" in state:
                state["progress"].close()
            if (out / MANIFEST).is_file():
                _index(out, split, tasks)  # also after an interrupt: the index lists what is complete
        progress = state["progress"]
        say(progress.summary())
        card.write_card(out)
        return 1 if progress.failed else 0
    except KeyboardInterrupt as err:
        if "progress" in state:
            say(state["progress"].summary(interrupted=True, published=lambda task, i: is_complete(out, split, task, i)))
        previous = {}  # keep ignoring: a repeated SIGTERM must not kill us on the way out
        what = "terminated" if isinstance(err, Terminated) else "interrupted"
        say(f"mewl: {what}; only complete {noun}s were kept, {resume_advice(noun)}")
        return 143 if isinstance(err, Terminated) else 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _render(state: dict, run: Run, jobs, complete, created) -> None:
    """Start the workers, claim OUT, render the jobs; state["progress"] follows them. Without
    --workers or --workers-per-gpu the workers per device come from a measurement
    (cluster.calibrate: cached, else made now on a GPU)."""
    settings, tasks, device = run.settings, run.tasks, run.device
    out = settings.out
    workers, per_device = run.workers, run.per_gpu
    source = "--workers-per-gpu" if per_device else ""
    try:
        gpu_ids = visible_gpus(device, run.gpu_ids)
        if workers is None and per_device is None:
            per_device, source = calibrate.workers_per_device(device, gpu_ids, settings.quality)
        opts = worker_options(device, gpu_ids, workers, per_device=per_device, at_most=len(jobs))
        with Writer(out) as writer:
            stale = clean_stale(out)
            with RenderPool(opts, writer) as pool:
                _claim(run)
                threads = opts[0]["threads"]
                say(f"render: {len(jobs)} {catalog.noun(tasks)}(s) of {', '.join(tasks)} to {out / settings.split} "
                    f"({complete} already complete); {len(opts)} worker(s) on {', '.join(sorted(set(pool.devices)))}"
                    + (f", {threads} thread(s) each" if threads else "")
                    + (f" ({per_device} per {'CPU' if threads else 'GPU'}: {source})" if source else "")
                    + (f"; removed {len(stale)} staging folder(s) of dead writers" if stale else ""))
                progress = state["progress"] = Progress(jobs, complete, {t: catalog.task(t).images for t in tasks})
                for outcome in pool.run(settings, jobs, tick=progress.tick, on_image=progress.image, on_wait=progress.waiting):
                    progress.update(outcome)
    except DeviceError as err:
        if created:  # nothing of this run may stay behind
            for folder in (out / STAGING, out):
                with contextlib.suppress(OSError):
                    folder.rmdir()
        raise UserError(str(err)) from None


def _index(out: Path, split: str, tasks: list[str]) -> None:
    for task in tasks:
        index.rebuild(out, split, task)


def _claim(run: Run) -> None:
    out, tasks = run.settings.out, run.tasks
    claim_output(out, run.manifest, catalog.benchmark_names(tasks), run.out_option)
    for task in tasks:
        bookkeeping.record_plan(out, run.settings.split, task, run.n)
    card.write_card(out)
