"""The hardware a local run divides among its Blender workers (no bpy)."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

MAX_SCENES = 200  # scenes per Blender before it is replaced (memory growth)
# Memory: a worker's Blender measured 390 MB RSS at most over 14 default-quality renders
# (CPU, 2 cores) and `mewl render` itself 52 MB; 2 GB per worker leaves room for a GPU
# driver's host-side context and growth over a worker's 200 scenes, 1 GB for the parent.
MEM_PER_WORKER_MB, MEM_PARENT_MB = 2048, 1024


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


def gpu_names() -> list[str]:
    """The models of the GPUs nvidia-smi shows this process (empty without one)."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def memory_limit() -> int | None:
    """Bytes this process may use: the smaller of the machine's memory and its cgroup's limit (SLURM's --mem)."""
    limits = []
    with contextlib.suppress(OSError, ValueError):
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            with contextlib.suppress(OSError, ValueError):
                hierarchy, controllers, path = line.split(":", 2)
                if hierarchy == "0":  # cgroup v2
                    text = (Path("/sys/fs/cgroup") / path.lstrip("/") / "memory.max").read_text().strip()
                elif "memory" in controllers.split(","):  # cgroup v1
                    text = (Path("/sys/fs/cgroup/memory") / path.lstrip("/") / "memory.limit_in_bytes").read_text().strip()
                else:
                    continue
                if text.isdigit():
                    limits.append(int(text))
    return min(limits) if limits else None


def visible_gpus(device: str, gpu_ids: list[int] | None) -> list[int] | None:
    """The GPU ids a run uses: those given, else every NVIDIA GPU visible (None on the CPU or without one)."""
    if gpu_ids is None and device != "cpu":
        count = nvidia_gpus()
        gpu_ids = list(range(count)) if count else None
    return gpu_ids


def worker_options(device: str, gpu_ids: list[int] | None, workers: int | None, cores: int | None = None,
                   per_device: int | None = None, at_most: int | None = None) -> list[dict]:
    """Keyword arguments of each Worker: `per_device` workers on each GPU (or
    `workers` GPUs dealt out round robin), or the CPU cores divided among
    `workers` (else `per_device`, else one) Blenders; no more than `at_most`
    (the episodes to render), so that no core waits for an idle Blender."""
    cores = cores or cpu_cores()
    gpu_ids = visible_gpus(device, gpu_ids)
    if gpu_ids:
        workers = min(workers or len(gpu_ids) * (per_device or 1), at_most or 2**31)
        return [{"device": device, "gpu_ids": [gpu_ids[k % len(gpu_ids)]], "threads": None, "max_scenes": MAX_SCENES}
                for k in range(workers)]
    # CPU: one Blender with every core; on 2 cores two Blenders with one
    # thread each were 0.62-0.75x as fast (bench/suite.py, draft quality).
    workers = min(workers or per_device or 1, at_most or 2**31)
    threads = max(1, cores // workers)
    return [{"device": device, "gpu_ids": None, "threads": threads, "max_scenes": MAX_SCENES} for _ in range(workers)]
