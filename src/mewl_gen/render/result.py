"""What a render returns to the caller (no bpy)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RenderResult:
    ok: bool  # every object and the hand show at least MIN_VISIBLE_PIXELS; files written
    visible_pixels: list[int]  # per object, then the hand if any
    too_small: list[int]  # indices (into visible_pixels) under the minimum
    device: str  # "cpu" or e.g. "optix:0=NVIDIA H100"
    seconds: float  # wall time of Worker.render, in the parent
    path_tracing_seconds: float  # Cycles' render time (path tracing and denoising)
    other_seconds: float  # everything else: scene setup, passes, PNG/JSON, cleanup, messaging
    rss_bytes: int | None = field(default=None)  # the child's resident memory after the render
    # where the child's time went, seconds (render.blender_scene.BlenderScene.render names the phases)
    phases: dict[str, float] = field(default_factory=dict)
