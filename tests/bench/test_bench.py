"""`make bench`: the renderer's bench run end to end at tiny sample counts, and
the command's own choices (device, parts) refused or honoured before any work."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from mewl_gen.bench import passes as pass_bench, render as bench, suite as cluster_bench
from mewl_gen.bench.fsync import publish_costs
from mewl_gen.cluster.planning import Settings
from mewl_gen.cluster.sample import sample_to_disk
from mewl_gen.render.passes import PASSES
from mewl_gen.scenes import quality
from mewl_gen.store.manifest import claim_output


@pytest.mark.render
def test_render_bench_reports_ratio_psnr_and_every_phase_of_a_default_image(tmp_path, monkeypatch, capsys):
    # The real profiles with a few samples each, so that the whole bench runs in seconds.
    monkeypatch.setattr(bench, "REFERENCE_SAMPLES", 16)
    monkeypatch.setitem(quality.PROFILES, "paper", {**quality.PROFILES["paper"], "samples": 8})
    monkeypatch.setitem(quality.PROFILES, "default", {**quality.PROFILES["default"], "samples": 2,
                                                      "adaptive_threshold": 0.0, "adaptive_min_samples": 0})
    report = bench.run(tmp_path, n_memory=3, quick=True, device="cpu")
    printed = capsys.readouterr().out

    assert report["device"] == "cpu" and report["warm_up_seconds"] is None
    q = report["quality"]
    (row,) = q["scenes"]
    for profile in ("paper", "default"):
        assert row[profile]["seconds"] > 0 and 15 < row[profile]["psnr"] < math.inf
    spi = q["seconds_per_image"]
    assert q["speedup_default_vs_paper"] == spi["paper"] / spi["default"]
    assert set(q["default_phases"]) == set(bench.PHASES)
    assert all(v >= 0 for v in q["default_phases"].values())
    # The phases account for the image: denoising is split off path tracing, not added to it.
    assert sum(q["default_phases"].values()) <= spi["default"] * 1.05
    assert q["default_phases"]["path_tracing"] + q["default_phases"]["denoising"] > 0
    assert report["memory"]["renders"] == 3 and report["memory"]["worker_starts"] == 1

    assert json.loads((tmp_path / "bench.json").read_text())["quality"]["scenes"][0]["default"]["psnr"] == row["default"]["psnr"]
    assert "render bench on cpu" in printed and "PSNR vs 1024 spp" in printed
    for p in bench.PHASES:
        assert bench.PHASE_WORDS[p] in printed
    assert "default is" in printed and "x faster" in printed


def _bench(*argv, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mewl_gen.bench", *map(str, argv)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


@pytest.mark.slow
def test_gpu_part_on_the_cpu_says_not_measured_and_why(tmp_path):
    r = _bench("--only", "gpu", "--device", "cpu", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "(d) GPU throughput: not measured, --device cpu" in r.stdout
    assert json.loads((tmp_path / "out" / "bench.json").read_text())["gpu"] == {"measured": False, "reason": "--device cpu"}


@pytest.mark.slow
def test_nonsense_parts_devices_and_qualities_are_one_line_before_anything_is_written(tmp_path):
    for argv, words in ((("--only", "gpu,render,speed"), "unknown part(s) speed"),
                        (("--device", "titan"), "invalid choice: 'titan'"),
                        (("--quality", "best"), "invalid choice: 'best'")):
        r = _bench(*argv, "--out", tmp_path / "out")
        assert r.returncode == 2 and words in r.stderr and r.stdout == ""
        assert r.stderr.strip().splitlines()[-1].startswith("python -m mewl_gen.bench: error:")
        assert not (tmp_path / "out").exists()


def test_a_measured_gpu_is_reported_per_worker_count_with_the_hours_for_mewl():
    g = {"measured": True, "gpu": "NVIDIA H100 80GB HBM3", "device_in_ground_truth": "optix (denoiser optix)",
         "quality": "default", "images": 64, "images_per_second": {1: 20.0, 2: 36.0, 3: 40.0, 4: 40.5},
         "workers_per_gpu": 3, "best_images_per_second": 40.5}
    text = cluster_bench.format_report({"gpu": g})
    assert "on one NVIDIA H100 80GB HBM3 (ground truth says device 'optix (denoiser optix)')" in text
    assert "    2 worker(s) sharing the GPU: 36.00 images/s" in text
    assert "`mewl render` will run 3 worker(s) per GPU (mewl-release's 264,600 images in 1.8 h on one GPU)" in text


@pytest.mark.render
def test_pass_bench_reports_each_pass_against_the_plain_image_of_the_same_worker(tmp_path, monkeypatch):
    monkeypatch.setitem(quality.PROFILES, "draft", {**quality.PROFILES["draft"], "samples": 1, "denoiser": "none"})
    report = pass_bench.run(tmp_path, quality="draft", rounds=1, quick=True, device="cpu")
    assert report["same_png"] and report["device"] == "cpu" and report["ratio"]["plain"] == report["cpu_ratio"]["plain"] == 1.0
    for ratios in (report["ratio"], report["cpu_ratio"]):
        assert set(ratios) == set(pass_bench.VARIANTS) and all(r > 0 for r in ratios.values())
    sizes = report["pass_bytes_per_image"]
    assert sizes["plain"] == 0 and sizes["all"] == sum(sizes[p] for p in PASSES) and min(sizes[p] for p in PASSES) > 0
    assert json.loads((tmp_path / "passes.json").read_text())["ratio"] == report["ratio"]
    text = cluster_bench.format_report({"passes": report})
    assert text.startswith("(e) passes at draft quality on cpu, 1 scene(s) x 1 round(s)")
    assert all(f"\n    {v} " in text for v in pass_bench.VARIANTS) and "the same bytes with and without passes" in text


def test_the_fsync_part_times_one_publish_each_way_on_sampled_episode_folders(tmp_path):
    published = tmp_path / "published"
    settings = Settings(out=published, split=cluster_bench.SPLIT, seed=0, quality="")
    claim_output(published, settings.manifest("specs"))
    assert sample_to_disk(settings, ["shape"], 3, 1) == []
    costs = publish_costs(published, tmp_path, cluster_bench.SPLIT)
    assert costs["publish_ms_with_fsync"] > 0 and costs["publish_ms_without_fsync"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["published"]  # the OUTs it published into are gone
    run = {"render_seconds": 20.0}
    r = {"quality": "draft", "episodes": 4, "with_fsync": run, "without_fsync": run, "seconds_ratio": 1.0, **costs}
    text = cluster_bench.format_report({"fsync": r})
    assert text.startswith("(f) durable publish at draft quality, 4 episodes") and "ms/episode with fsync" in text
