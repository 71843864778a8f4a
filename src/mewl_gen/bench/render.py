"""Render benchmark: `python -m mewl_gen.bench.render [--quick] [OUT]`.

Renders the same scenes (glass, metal, rubber and the hand) at the `paper`
and `default` profiles and at a 1024-sample reference, in one worker, and
reports seconds per image, their ratio, PSNR against the reference, where a
default image's time goes phase by phase (render.blender_scene's timers and
Cycles' own sync and render times; denoising by difference with the same
scene rendered without the denoiser), and the child's resident memory over a
long run of cheap renders.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np
from PIL import Image

from mewl_gen.render.worker import DEVICES, Worker
from mewl_gen.scenes.quality import render_settings, with_quality
from mewl_gen.scenes.reference import bench_specs
from mewl_gen.scenes.spec import SceneSpec

REFERENCE_SAMPLES = 1024
def reference(spec: SceneSpec) -> SceneSpec:
    """The same scene at 1024 samples, with another Cycles seed: sharing the seed
    would share the first samples' noise and flatter the PSNR of the others."""
    settings = render_settings("paper", (spec.render.seed + 1) % 2**31).model_copy(
        update={"quality": "reference", "samples": REFERENCE_SAMPLES})
    return spec.model_copy(update={"render": settings})


def psnr(a: Path, b: Path) -> float:
    x = np.asarray(Image.open(a), dtype=np.float64)
    y = np.asarray(Image.open(b), dtype=np.float64)
    mse = float(np.mean((x - y) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def _render(worker: Worker, spec: SceneSpec, out: Path, name: str):
    res = worker.render(spec, out / f"{name}.png", out / f"{name}.json")
    if not res.ok:
        raise RuntimeError(f"bench scene {name} is not fully visible: {res.visible_pixels}")
    return res


PHASES = ("scene_update", "sync", "path_tracing", "denoising", "passes", "png", "index_read", "ground_truth",
          "messaging")
PHASE_WORDS = {
    "scene_update": "scene update (objects added and removed)",
    "sync": "Cycles sync (scene, BVH)",
    "path_tracing": "path tracing",
    "denoising": "denoising (by difference, without it)",
    "passes": "compositing and index pass written",
    "png": "PNG written",
    "index_read": "index pass read back",
    "ground_truth": "ground truth computed and written",
    "messaging": "worker messaging",
}


def without_denoiser(spec: SceneSpec) -> SceneSpec:
    return spec.model_copy(update={"render": spec.render.model_copy(update={"denoiser": "none"})})


def phase_split(denoised: dict[str, float], plain: dict[str, float]) -> dict[str, float]:
    """A denoised render's phases with denoising split from path tracing: the
    same scene's path tracing without the denoiser is what sampling costs."""
    out = dict(denoised)
    out["denoising"] = max(0.0, denoised["path_tracing"] - plain["path_tracing"])
    out["path_tracing"] = denoised["path_tracing"] - out["denoising"]
    return out


def quality_run(worker: Worker, out: Path, specs: list[SceneSpec]) -> dict:
    rows = []
    for k, spec in enumerate(specs):
        row = {"scene": k}
        for quality in ("reference", "paper", "default"):
            s = reference(spec) if quality == "reference" else with_quality(spec, quality)
            res = _render(worker, s, out, f"scene{k}_{quality}")
            row[quality] = {"seconds": res.seconds, "path_tracing": res.path_tracing_seconds, "other": res.other_seconds,
                            "phases": res.phases}
        for quality in ("paper", "default"):
            row[quality]["psnr"] = psnr(out / f"scene{k}_{quality}.png", out / f"scene{k}_reference.png")
        plain = _render(worker, without_denoiser(with_quality(spec, "default")), out, f"scene{k}_default_plain")
        row["default"]["phases"] = phase_split(row["default"]["phases"], plain.phases)
        rows.append(row)
    per_image = {q: statistics.mean(r[q]["seconds"] for r in rows) for q in ("paper", "default")}
    return {
        "scenes": rows,
        "seconds_per_image": per_image,
        "speedup_default_vs_paper": per_image["paper"] / per_image["default"],
        "default_phases": {p: statistics.mean(r["default"]["phases"].get(p, 0.0) for r in rows) for p in PHASES},
    }


def memory_run(out: Path, specs: list[SceneSpec], n: int, device: str = "auto") -> dict:
    """n consecutive cheap renders in one worker; RSS of the child after the first and the last."""
    cheap = []
    for spec in specs:
        s = with_quality(spec, "draft")
        cheap.append(s.model_copy(update={"render": s.render.model_copy(update={"samples": 1})}))
    rss, other = [], []
    with Worker(device=device, max_scenes=n) as worker:
        for i in range(n):
            res = _render(worker, cheap[i % len(cheap)], out, "memory")
            rss.append(res.rss_bytes or 0)
            other.append(res.other_seconds)
        starts = worker.starts
    return {
        "renders": n, "worker_starts": starts,
        "rss_start_mb": rss[0] / 2**20, "rss_end_mb": rss[-1] / 2**20, "rss_max_mb": max(rss) / 2**20,
        "rss_growth_percent": 100.0 * (rss[-1] - rss[0]) / rss[0],
        "other_seconds_median": statistics.median(other),
    }


def run(out_dir: Path, n_memory: int = 200, quick: bool = False, device: str = "auto") -> dict:
    """`device` as `mewl render --device`: on a GPU machine "cpu" still measures the CPU."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    specs = bench_specs()
    with Worker(device=device) as worker:
        _render(worker, with_quality(specs[0], "draft"), out, "warmup")
        report = {"device": worker.device, "blender": worker.blender_version, "warm_up_seconds": worker.warm_up_seconds}
        report["quality"] = quality_run(worker, out, specs[:1] if quick else specs)
    report["memory"] = memory_run(out, specs, n_memory, device)
    (out / "bench.json").write_text(json.dumps(report, indent=1))
    print(format_report(report))
    return report


def format_report(r: dict) -> str:
    q, m = r["quality"], r["memory"]
    warm = r.get("warm_up_seconds")
    lines = [f"render bench on {r['device']} (Blender {r['blender']}); "
             + (f"kernel warm-up at the worker's start {warm:.2f} s, before any timed image" if warm is not None
                else "no warm-up render (CPU kernels are built in)"),
             "scene  profile   s/image  path-tracing  other   PSNR vs 1024 spp"]
    for row in q["scenes"]:
        for p in ("paper", "default"):
            c = row[p]
            lines.append(f"{row['scene']:>5}  {p:<8} {c['seconds']:>8.2f}  {c['path_tracing']:>12.2f}  {c['other']:>5.3f}  {c['psnr']:>6.1f} dB")
    spi = q["seconds_per_image"]
    lines.append(f"where a default image's {spi['default']:.2f} s go (mean over the scenes):")
    for p in PHASES:
        sec = q["default_phases"][p]
        lines.append(f"  {PHASE_WORDS[p]:<40} {sec:>6.3f} s  {100 * sec / spi['default']:>5.1f} %")
    lines += [
        f"paper {spi['paper']:.2f} s/image, default {spi['default']:.2f} s/image: default is {q['speedup_default_vs_paper']:.1f}x faster",
        f"outside path tracing: median {m['other_seconds_median']:.3f} s/image over {m['renders']} renders",
        f"child RSS over {m['renders']} renders ({m['worker_starts']} worker): {m['rss_start_mb']:.0f} MB -> "
        f"{m['rss_end_mb']:.0f} MB ({m['rss_growth_percent']:+.1f} %), max {m['rss_max_mb']:.0f} MB",
    ]
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m mewl_gen.bench.render", description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="bench-out", type=Path)
    ap.add_argument("--quick", action="store_true", help="one scene and 20 memory renders")
    ap.add_argument("-n", "--n-memory", type=int, default=None)
    ap.add_argument("--device", default="auto", choices=DEVICES, help="as mewl render --device (default: a GPU if any)")
    a = ap.parse_args(argv)
    run(a.out, n_memory=a.n_memory or (20 if a.quick else 200), quick=a.quick, device=a.device)


if __name__ == "__main__":
    main()
