"""How many Blender workers keep one device busy: measured, then remembered.

One 320x240 render leaves a large GPU mostly idle, so several workers may
share it; how many pays depends on the GPU, the Blender version and the
quality profile. `measure` renders the same scenes with k = 1, 2, 3, 4
workers on one device and times images per second after every worker has
started (and warmed up); `choose` takes the smallest k within 5 % of the best.
The result is kept per (device request, hardware, bpy version, quality) in a
JSON file (`cache_path`), so a farm measures once per GPU model: `mewl render`
on a GPU reads it, or measures and writes it when it is missing; `mewl
calibrate` measures on demand and prints the table. A CPU run uses a cached
measurement when one was made (`mewl calibrate --device cpu`), else one worker.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
import queue
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from mewl_gen.errors import shown
from mewl_gen.store import door
from mewl_gen.store.files import write_atomic

from . import hardware

CANDIDATES = (1, 2, 3, 4)
WITHIN = 0.95  # fewer workers are kept while they render at least this share of the best rate
IMAGES = 32  # images rendered per candidate
CACHE_NAME = "workers_per_device.json"


def cache_path() -> Path:
    base = os.environ.get("MEWL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mewl")
    return Path(base) / CACHE_NAME


def _bpy_version() -> str:
    try:
        return metadata.version("bpy")
    except metadata.PackageNotFoundError:
        return "?"


def hardware_name(gpu: bool) -> str:
    """The first visible GPU's model, or the CPU's model and core count: what a measurement holds for."""
    if gpu:
        names = hardware.gpu_names()
        return f"gpu {names[0]}" if names else "gpu ?"
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"cpu {model} x{hardware.cpu_cores()}"


def key(device: str, gpu: bool, quality: str) -> str:
    """What a measurement holds for; `auto` without a GPU is the CPU."""
    return f"{device if gpu else 'cpu'} | {hardware_name(gpu)} | bpy {_bpy_version()} | {quality}"


def choose(rates: dict[int, float]) -> int:
    """The fewest workers that render at least WITHIN of the best rate."""
    best = max(rates.values())
    return min(k for k, r in rates.items() if r >= WITHIN * best)


def candidates(gpus: int, memory_bytes: int | None = None) -> tuple[int, ...]:
    """CANDIDATES that fit the memory this process may use, each Blender taking
    hardware.MEM_PER_WORKER_MB (at least one worker is always tried)."""
    limit = hardware.memory_limit() if memory_bytes is None else memory_bytes
    if limit is None:
        return CANDIDATES
    fit = [k for k in CANDIDATES if (hardware.MEM_PARENT_MB + hardware.MEM_PER_WORKER_MB * k * max(1, gpus)) * 2**20 <= limit]
    return tuple(fit) or (1,)


# -- the cache ------------------------------------------------------------------
def read_cache(path: Path | None = None) -> dict:
    """The cached measurements; a missing file is empty, a damaged one is said once and ignored."""
    path = path or cache_path()
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as err:
        print(f"mewl: ignoring {path}: not a readable measurement file ({shown(err, 120)}); it is measured again",
              file=sys.stderr)
        return {}
    return data if isinstance(data, dict) else {}


def cached(device: str, gpu: bool, quality: str, path: Path | None = None) -> dict | None:
    entry = read_cache(path).get(key(device, gpu, quality))
    if isinstance(entry, dict) and isinstance(entry.get("workers"), int) and entry["workers"] >= 1:
        return entry
    return None


def remember(device: str, gpu: bool, quality: str, rates: dict[int, float], images: int, path: Path | None = None) -> dict:
    """Add one measurement to the cache (locked, written whole and renamed: two runs at once lose nothing)."""
    path = path or cache_path()
    entry = {"workers": choose(rates), "images_per_second": {str(k): round(r, 4) for k, r in sorted(rates.items())},
             "images": images, "measured": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = door.open_lock(path.parent, path.with_name(path.name + ".lock"))  # its folder held, no link followed
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = read_cache(path)
            data[key(device, gpu, quality)] = entry
            write_atomic(path.parent, path, json.dumps(data, indent=1, sort_keys=True))
        finally:
            os.close(lock)
    except (OSError, door.Refused) as err:  # a read-only home: the measurement still serves this run
        why = err.why if isinstance(err, door.Refused) else err.strerror
        print(f"mewl: could not keep the measurement in {path} ({why}); this run uses it anyway", file=sys.stderr)
    return entry


# -- measuring ------------------------------------------------------------------
def bench_scenes(quality: str, images: int) -> list:
    """`images` scenes with glass, metal, rubber and the hand (scenes.reference), each with its own Cycles seed."""
    from mewl_gen.scenes.quality import with_quality
    from mewl_gen.scenes.reference import bench_specs

    base = bench_specs()
    specs = []
    for i in range(images):
        s = with_quality(base[i % len(base)], quality)
        specs.append(s.model_copy(update={"render": s.render.model_copy(update={"seed": 1000 + i})}))
    return specs


def rate(device: str, gpu_id: int | None, k: int, specs: list, scratch: Path) -> tuple[float, str]:
    """Images per second of k workers on one device over `specs`, timed once all have
    started and warmed up; and the device recorded in the first image's ground truth."""
    from .pipeline import RenderPool

    gpus = None if gpu_id is None else [gpu_id]  # None: k Blenders sharing the CPU cores
    opts = [{**o, "max_scenes": len(specs) + 1, "warm_up": True, "temp_dir": scratch}
            for o in hardware.worker_options(device, gpus, k)]
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for i, spec in enumerate(specs):
        todo.put((i, spec))
    errors: list[BaseException] = []

    def serve(w) -> None:
        try:
            while True:
                try:
                    i, spec = todo.get_nowait()
                except queue.Empty:
                    return
                w.render(spec, scratch / f"{i}.png", scratch / f"{i}.json")
        except BaseException as err:  # noqa: BLE001 - re-raised below
            errors.append(err)

    with RenderPool(opts) as pool:  # every Blender started (and warmed up) before the clock starts; all closed after
        workers = pool.workers
        began = time.perf_counter()
        threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
    if errors:
        raise errors[0]
    try:
        recorded = json.loads((scratch / "0.json").read_text())["device"]
    except (OSError, ValueError, KeyError):  # the first scene came out too small to keep: what the worker said
        recorded = workers[0].device or "?"
    return len(specs) / wall, recorded


def measure(device: str, gpu_id: int | None, quality: str, ks=CANDIDATES, images: int = IMAGES, report=None) -> tuple[dict[int, float], str]:
    """Images per second for each k in ks; `report(k, rate)` after each."""
    specs = bench_scenes(quality, images)
    rates: dict[int, float] = {}
    used = "?"
    scratch = Path(tempfile.mkdtemp(prefix="mewl-calibrate-"))
    try:
        for k in ks:
            rates[k], used = rate(device, gpu_id, k, specs, scratch)
            if report is not None:
                report(k, rates[k])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return rates, used


def workers_per_device(device: str, gpu_ids: list[int] | None, quality: str) -> tuple[int | None, str]:
    """(workers per device, where that number comes from) for a run that did not say:
    on a GPU the cached measurement, else measured now on the first GPU and cached;
    on the CPU a cached measurement, else None (one worker)."""
    gpu = bool(gpu_ids)
    entry = cached(device, gpu, quality)
    if entry is not None:
        return entry["workers"], f"measured {entry['measured']}, {cache_path()}"
    if not gpu:
        return None, ""
    ks = candidates(len(gpu_ids))
    print(f"render: measuring how many workers keep one GPU busy at {quality} quality (k = {', '.join(map(str, ks))}; "
          f"once per GPU model, kept in {cache_path()})", file=sys.stderr)
    rates, _ = measure(device, gpu_ids[0], quality, ks,
                       report=lambda k, r: print(f"render:   {k} worker(s): {r:.2f} images/s", file=sys.stderr))
    entry = remember(device, gpu, quality, rates, IMAGES)
    return entry["workers"], "measured just now"
