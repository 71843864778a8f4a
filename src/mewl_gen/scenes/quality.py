"""Render quality profiles (speed and PSNR measured by `make bench`; README, Speed)."""
from __future__ import annotations

from typing import get_args

from .spec import QualityName, RenderSettings, SceneSpec

PROFILES: dict[str, dict] = {
    # A pipeline's check (and the tests of everything but pixels): one sample, no denoiser, about a seventh
    # of a draft image's CPU. The images are noisy; the ground truth, read from the object-index pass, is exact.
    "preview": dict(samples=1, adaptive_threshold=0.0, adaptive_min_samples=0, denoiser="none", max_bounces=4),
    # Tests of pixels: fast, still denoised so colours read true.
    "draft": dict(samples=8, adaptive_threshold=0.0, adaptive_min_samples=0, denoiser="openimagedenoise", max_bounces=4),
    # Real data: adaptive sampling and the denoiser buy the speed, within a dB or two of a converged image
    # (`make bench`; the figures are docs/reference.md's, Speed).
    "default": dict(samples=64, adaptive_threshold=0.1, adaptive_min_samples=8, denoiser="openimagedenoise", max_bounces=8),
    # CLEVR's own setting (512 samples, no denoiser), kept by the benchmarks built on it: for comparison.
    "paper": dict(samples=512, adaptive_threshold=0.0, adaptive_min_samples=0, denoiser="none", max_bounces=8),
}
QUALITIES: tuple[str, ...] = tuple(PROFILES)
assert set(QUALITIES) <= set(get_args(QualityName)), "a new profile's name belongs in scenes.spec.QualityName"


def render_settings(quality: str, seed: int) -> RenderSettings:
    return RenderSettings(quality=quality, seed=seed, **PROFILES[quality])


def with_quality(spec: SceneSpec, quality: str) -> SceneSpec:
    """The same scene at another quality; the Cycles seed is kept."""
    return spec.model_copy(update={"render": render_settings(quality, spec.render.seed)})
