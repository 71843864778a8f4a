"""The local render farm: warm Blender workers, one episode at a time each.

Each worker thread owns one `render.Worker` (a Blender child process) and
takes episodes from a shared queue: it samples the episode, renders its seven
scenes into a staging folder and renames the folder into place. A scene that
fails the renderer's visibility check sends the episode back to the sampler
for a redraw from a derived seed (`first_retry=retry + 1`), a bounded number
of times; an episode that still cannot be produced is recorded as failed and
the others go on. Threads suffice: the parent only samples and waits on
pipes, Blender does the work in its own process.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from render import RenderError, Worker
from scenes.quality import with_quality
from scenes.spec import Episode
from scenes.visibility import MIN_VISIBLE_PIXELS
from tasks import EpisodeError, InvalidEpisode, sample_episode
from tasks.release import image_json, info_json

from . import dataset, status

MAX_REDRAWS = 5  # visibility redraws per episode
MAX_CRASHES = 2  # Blender crashes tolerated per episode (each on a fresh Blender)
MAX_SCENES = 200  # scenes per Blender before it is replaced (memory growth)
STOP_GRACE = 10.0  # seconds a stopped Blender gets before it is killed


@dataclass(frozen=True)
class Settings:
    """What decides the data (with the task and index)."""

    out: Path
    split: str
    seed: int
    quality: str


@dataclass(frozen=True)
class Outcome:
    task: str
    index: int
    ok: bool
    images: int  # images of the published episode
    renders: int  # every render, redrawn panels included
    reasons: tuple[str, ...] = ()  # why panels were redrawn, or why the episode failed


class Aborted(Exception):
    """The run is stopping; the episode in hand is dropped."""


# -- planning -----------------------------------------------------------------
def plan(settings: Settings, tasks: list[str], n: int, shard: tuple[int, int] = (0, 1)) -> tuple[list[tuple[str, int]], int]:
    """The (task, index) pairs of this shard still to render, index-major so an
    interrupted run leaves every task equally far; and how many are complete."""
    first, every = shard
    todo, complete = [], 0
    for i in range(first, n, every):
        for task in tasks:
            if dataset.is_complete(settings.out, settings.split, task, i):
                complete += 1
            else:
                todo.append((task, i))
    return todo, complete


def cpu_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def nvidia_gpus() -> int:
    """GPUs this process may use, without importing bpy: CUDA_VISIBLE_DEVICES, else nvidia-smi."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([v for v in visible.split(",") if v.strip() and v.strip() != "-1"])
    if shutil.which("nvidia-smi") is None:
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def worker_options(device: str, gpu_ids: list[int] | None, workers: int | None, cores: int | None = None) -> list[dict]:
    """Keyword arguments of each Worker: GPUs dealt out one per worker (round
    robin when there are more workers than GPUs), or the CPU cores divided."""
    cores = cores or cpu_cores()
    if gpu_ids is None and device not in ("cpu",):
        count = nvidia_gpus()
        gpu_ids = list(range(count)) if count else None
    if gpu_ids:
        workers = workers or len(gpu_ids)
        return [{"device": device, "gpu_ids": [gpu_ids[k % len(gpu_ids)]], "threads": None, "max_scenes": MAX_SCENES}
                for k in range(workers)]
    # CPU: one Blender with every core; on 2 cores two Blenders with one
    # thread each were 0.62-0.75x as fast (cluster/bench.py, draft quality).
    workers = workers or 1
    threads = max(1, cores // workers)
    return [{"device": device, "gpu_ids": None, "threads": threads, "max_scenes": MAX_SCENES} for _ in range(workers)]


# -- one episode --------------------------------------------------------------
def at_quality(ep: Episode, quality: str) -> Episode:
    """The episode with every scene at the quality actually rendered."""
    panels = tuple(p.model_copy(update={"scene": with_quality(p.scene, quality)}) for p in ep.context_panels)
    return ep.model_copy(update={"context_panels": panels, "query": with_quality(ep.query, quality)})


def _render_into_place(worker: Worker, s: Settings, ep: Episode, stop: threading.Event) -> tuple[str | None, int]:
    """Render every scene into a staging folder and publish it.
    Returns (None, renders) when published, else (why a scene failed, renders)."""
    tmp = dataset.staging_dir(s.out, s.split, ep.task, ep.index)
    published = False
    renders = 0
    try:
        scenes = [(p.name, p.scene) for p in ep.context_panels] + [("question", ep.query)]
        for name, scene in scenes:
            if stop.is_set():
                raise Aborted
            res = worker.render(scene, tmp / f"{name}.png", tmp / f"{name}.json")
            renders += 1
            if not res.ok:
                small = ", ".join(f"#{i} {res.visible_pixels[i]} px" for i in res.too_small)
                return f"retry {ep.retry}: {name!r} shows objects under {MIN_VISIBLE_PIXELS} px ({small})", renders
        for name, _ in scenes:  # the renderer knows no words: label each image with the episode's
            truth = tmp / f"{name}.json"
            truth.write_text(dataset.dumps(image_json(ep, name, json.loads(truth.read_text()))))
        (tmp / "episode.json").write_text(ep.model_dump_json(indent=2) + "\n")
        (tmp / "info.json").write_text(dataset.dumps(info_json(ep)))
        dataset.publish(tmp, s.out, s.split, ep.task, ep.index)
        published = True
        status.clear_failure(s.out, s.split, ep.task, ep.index)
        return None, renders
    finally:
        if not published:
            shutil.rmtree(tmp, ignore_errors=True)


def render_episode(worker: Worker, s: Settings, task: str, index: int, stop: threading.Event) -> Outcome:
    """Sample, render and publish one episode, redrawing it when a scene is not visible enough."""
    reasons: list[str] = []
    renders = crashes = redraws = 0

    def failed(why: str) -> Outcome:
        status.record_failure(s.out, s.split, task, index, reasons + [why])
        return Outcome(task, index, False, 0, renders, tuple(reasons + [why]))

    try:
        ep = sample_episode(task, s.seed, s.split, index)
    except (EpisodeError, InvalidEpisode) as err:
        return failed(f"sampling: {err}")
    while True:
        ep = at_quality(ep, s.quality)
        try:
            why, n = _render_into_place(worker, s, ep, stop)
        except RenderError as err:
            if stop.is_set() or _stopping(stop):
                raise Aborted from None
            crashes += 1
            reasons.append(f"renderer crashed: {str(err).splitlines()[0]}")
            if crashes > MAX_CRASHES:
                return failed(f"gave up after {MAX_CRASHES} renderer crashes")
            continue  # the same episode on a fresh Blender
        renders += n
        if why is None:
            return Outcome(task, index, True, 7, renders, tuple(reasons))
        reasons.append(why)
        if redraws == MAX_REDRAWS:
            return failed(f"gave up after {MAX_REDRAWS} redraws")
        redraws += 1
        try:
            ep = sample_episode(task, s.seed, s.split, index, first_retry=ep.retry + 1)
        except (EpisodeError, InvalidEpisode) as err:
            return failed(f"redraw: {err}")


def _stopping(stop: threading.Event, wait: float = 1.0) -> bool:
    """A Blender killed by a terminal's Ctrl-C dies before the parent has set
    `stop`; give the parent a moment to say so."""
    return stop.wait(wait)


# -- the pool -----------------------------------------------------------------
class RenderPool:
    """Warm workers; `with RenderPool(opts) as pool:` starts every Blender
    (raising render.DeviceError before any work) and always closes them."""

    def __init__(self, options: list[dict]):
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

    def run(self, settings: Settings, jobs: list[tuple[str, int]], tick=None):
        """Yield an Outcome per episode as workers finish them; `tick()` is
        called about every half second meanwhile (progress lines)."""
        todo: queue.SimpleQueue = queue.SimpleQueue()
        for job in jobs:
            todo.put(job)
        results: queue.SimpleQueue = queue.SimpleQueue()
        self.threads = [
            threading.Thread(target=self._serve, args=(w, settings, todo, results), daemon=True, name=f"worker-{k}")
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
            else:
                yield payload

    def _serve(self, worker: Worker, settings: Settings, todo: queue.SimpleQueue, results: queue.SimpleQueue) -> None:
        try:
            while not self.stop.is_set():
                try:
                    task, index = todo.get_nowait()
                except queue.Empty:
                    break
                try:
                    results.put(("outcome", render_episode(worker, settings, task, index, self.stop)))
                except Aborted:
                    break
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


def _signal(pid: int | None, sig: int) -> None:
    if pid is None:
        return
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
