"""The hardware a local run divides among its Blender workers (no bpy)."""
from __future__ import annotations

import os
import shutil
import subprocess

MAX_SCENES = 200  # scenes per Blender before it is replaced (memory growth)


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
