"""Choosing the Cycles device inside the Blender child (imports bpy)."""
from __future__ import annotations

import bpy

from .worker import DEVICES, DeviceError, denoiser_for

GPU_KINDS = ("OPTIX", "CUDA", "HIP", "ONEAPI", "METAL")  # the order `auto` tries


def _gpus(prefs, kind: str) -> list:
    try:
        prefs.compute_device_type = kind
    except TypeError:  # this build has no such backend
        return []
    prefs.refresh_devices()
    return [d for d in prefs.devices if d.type == kind]


def configure(scene, device: str, gpu_ids: list[int] | None, threads: int | None) -> tuple[str, str | None]:
    """Set the scene's Cycles device; returns (device description, fallback note)."""
    if device not in DEVICES:
        raise DeviceError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
    scene.render.threads_mode = "FIXED" if threads else "AUTO"
    if threads:
        scene.render.threads = threads
    prefs = bpy.context.preferences.addons["cycles"].preferences
    note = None
    if device != "cpu":
        kinds = GPU_KINDS if device == "auto" else (device.upper(),)
        for kind in kinds:
            found = _gpus(prefs, kind)
            if found:
                return _use(scene, prefs, kind, found, gpu_ids), None
        if device != "auto":
            raise DeviceError(f"device {device!r} is not available: Cycles found no {device.upper()} GPU")
        note = "no GPU found (tried OptiX, CUDA, HIP, oneAPI, Metal); rendering on CPU"
    scene.cycles.device = "CPU"
    return "cpu", note


def _use(scene, prefs, kind: str, found: list, gpu_ids: list[int] | None) -> str:
    chosen = list(range(len(found))) if gpu_ids is None else list(gpu_ids)
    bad = [i for i in chosen if not 0 <= i < len(found)]
    if bad or not chosen:
        raise DeviceError(f"gpu ids {gpu_ids} not available: {kind} has {len(found)} GPU(s), ids 0-{len(found) - 1}")
    for d in prefs.devices:
        d.use = False
    for i in chosen:
        found[i].use = True
    scene.cycles.device = "GPU"
    return f"{kind.lower()}:" + ",".join(f"{i}={found[i].name}" for i in chosen)


def gpu_denoiser(scene, device: str) -> str:
    """Set where the denoiser runs; returns the denoiser `BlenderScene` uses."""
    denoiser = denoiser_for(device)
    try:  # Cycles lists OptiX's denoiser only where it found an OptiX device
        scene.cycles.denoiser = denoiser
    except TypeError:
        denoiser = scene.cycles.denoiser = "OPENIMAGEDENOISE"
    if hasattr(scene.cycles, "denoising_use_gpu"):  # Blender 4.1+: OIDN on the render GPU
        scene.cycles.denoising_use_gpu = device != "cpu"
    return denoiser
