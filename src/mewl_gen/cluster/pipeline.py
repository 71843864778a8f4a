"""The local render farm: warm Blender workers, one episode at a time each.

Each worker thread owns one `render.Worker` (a Blender child process) and
takes episodes from a shared schedule; cluster.item_job does the item
(claim, sample, render, record, publish). An episode that another live writer
of the same OUT holds waits: it is tried again every RECHECK seconds once
nothing else is left, so a run ends only when every episode it was given is
complete or failed, whoever rendered it. Threads suffice: the parent only
samples and waits on pipes, Blender does the work in its own process.
"""
from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import threading
import time
from collections import deque

from mewl_gen.render import Worker
from mewl_gen.store.writers import Writer

from .hardware import cpu_cores, nvidia_gpus, worker_options
from .item_job import Aborted, Outcome, at_quality, render_item
from .planning import Settings, plan

__all__ = ["Outcome", "RenderPool", "Settings", "at_quality", "cpu_cores", "nvidia_gpus", "plan", "say_once", "worker_options"]

STOP_GRACE = 10.0  # seconds a stopped Blender gets before it is killed
RECHECK = 2.0  # seconds between looks at an episode another writer holds


class Schedule:
    """The jobs in order; one held by another writer is put back to wait."""

    def __init__(self, jobs: list[tuple[str, int]]):
        self._ready = deque(jobs)
        self._waiting: dict[tuple[str, int], float] = {}  # job -> when it was first found held
        self._due: deque = deque()  # (time to look again, job)
        self._lock = threading.Lock()

    def take(self, stop: threading.Event) -> tuple[tuple[str, int], float | None] | None:
        """(job, since when it waited for another writer or None); None when nothing is left."""
        while not stop.is_set():
            with self._lock:
                if self._ready:
                    return self._ready.popleft(), None
                if not self._due:
                    return None
                when, job = self._due[0]
                if when <= time.monotonic():
                    self._due.popleft()
                    return job, self._waiting[job]
            stop.wait(min(RECHECK, max(0.05, when - time.monotonic())))
        return None

    def wait_for_other(self, job: tuple[str, int]) -> bool:
        """Put a held job back; True the first time it is held."""
        with self._lock:
            first = job not in self._waiting
            self._waiting.setdefault(job, time.time())
            self._due.append((time.monotonic() + RECHECK, job))
            return first


# -- the pool -----------------------------------------------------------------
class RenderPool:
    """Warm workers; `with RenderPool(opts) as pool:` starts every Blender
    (raising render.DeviceError before any work) and always closes them."""

    def __init__(self, options: list[dict], writer: Writer | None = None):
        # Each Blender's files live in its worker's scratch folder, in the system's temporary folder: never
        # under OUT, whose folders another job may swap for links under Blender's by-path writes.
        self.writer = writer
        self.workers = [Worker(**o) for o in options]
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def __enter__(self) -> "RenderPool":
        try:
            self._start_all()
        except BaseException:
            self._shutdown(kill=True)
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._shutdown(kill=exc_type is not None)

    @property
    def devices(self) -> list[str]:
        return [w.device or "?" for w in self.workers]

    def _start_all(self) -> None:
        errors: list[BaseException] = []

        def start(w: Worker) -> None:
            try:
                w.start()
            except BaseException as err:  # noqa: BLE001 - handed to the main thread
                errors.append(err)

        starters = [threading.Thread(target=start, args=(w,), daemon=True) for w in self.workers]
        for t in starters:
            t.start()
        for t in starters:
            while t.is_alive():
                t.join(0.2)  # short waits keep the main thread responsive to signals
        if errors:
            raise errors[0]

    def run(self, settings: Settings, jobs: list[tuple[str, int]], tick=None, on_image=None, on_wait=None):
        """Yield an Outcome per episode as workers finish them. In the calling
        thread: `tick()` about every half second (progress lines),
        `on_image(task, index)` per image rendered, `on_wait(task, index,
        writer)` when an episode is first found held by another writer."""
        schedule = Schedule(jobs)
        results: queue.SimpleQueue = queue.SimpleQueue()
        with contextlib.ExitStack() as stack:
            writer = self.writer or stack.enter_context(Writer(settings.out))
            self.threads = [
                threading.Thread(target=self._serve, args=(w, writer, settings, schedule, results), daemon=True, name=f"worker-{k}")
                for k, w in enumerate(self.workers)
            ]
            for t in self.threads:
                t.start()
            alive = len(self.threads)
            while alive:
                try:
                    kind, payload = results.get(timeout=0.5)
                except queue.Empty:
                    if tick is not None:
                        tick()
                    continue
                if kind == "exit":
                    alive -= 1
                elif kind == "error":
                    raise payload
                elif kind == "image":
                    if on_image is not None:
                        on_image(*payload)
                elif kind == "wait":
                    if on_wait is not None:
                        on_wait(*payload)
                else:
                    yield payload

    def _serve(self, worker: Worker, writer: Writer, settings: Settings, schedule: Schedule, results: queue.SimpleQueue) -> None:
        try:
            while not self.stop.is_set():
                taken = schedule.take(self.stop)
                if taken is None:
                    break
                (task, index), since = taken
                try:
                    outcome = render_item(worker, writer, settings, task, index, self.stop,
                                             on_image=lambda: results.put(("image", (task, index))), since=since)
                except Aborted:
                    break
                if outcome.held_by is None:
                    results.put(("outcome", outcome))
                elif schedule.wait_for_other((task, index)):
                    results.put(("wait", (task, index, outcome.held_by)))
        except BaseException as err:  # noqa: BLE001 - a bug: re-raised in the main thread
            self.stop.set()
            results.put(("error", err))
        finally:
            try:
                worker.close()
            finally:
                results.put(("exit", None))

    def _shutdown(self, kill: bool) -> None:
        """Stop the threads; on an interrupt, stop each Blender mid-render
        (SIGTERM, then SIGKILL) so the threads drop their episodes at once."""
        self.stop.set()
        # A second signal must not cut the cleanup short: a terminal sends
        # Ctrl-C twice, make and SLURM pass SIGTERM on to a group that has it.
        main = threading.current_thread() is threading.main_thread()
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            if kill:
                for w in self.workers:
                    _signal(w.pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE
            for t in self.threads:
                t.join(max(0.0, deadline - time.monotonic()))
            if any(t.is_alive() for t in self.threads):
                for w in self.workers:
                    _signal(w.pid, signal.SIGKILL)
                for t in self.threads:
                    t.join(STOP_GRACE)
            if not self.threads:  # never ran: the started Blenders are ours to close
                for w in self.workers:
                    w.close()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def say_once():
    """Each worker says "no GPU found"; once is enough."""
    seen: set[str] = set()

    def first_time(record: logging.LogRecord) -> bool:
        text = record.getMessage()
        new = text not in seen
        seen.add(text)
        return new

    return first_time


def _signal(pid: int | None, sig: int) -> None:
    if pid is None:
        return
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
