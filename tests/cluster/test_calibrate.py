"""Workers per device: the choice, the remembered measurement, `mewl calibrate` and `mewl render` using it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mewl_gen.cluster import calibrate
from tests.command import mewl_here


def mewl(*argv, cache: Path, **env: str) -> subprocess.CompletedProcess:
    """`mewl ARGV` as a process that keeps its measurements in `cache`."""
    return mewl_here(*argv, env={**os.environ, "MEWL_CACHE_DIR": str(cache), **env})


@pytest.mark.parametrize("rates, k", [
    ({1: 10.0, 2: 10.4, 3: 10.6, 4: 10.5}, 2),  # 2 is within 5 % of the best: fewer Blenders, same speed
    ({1: 10.0, 2: 19.0, 3: 26.0, 4: 30.0}, 4),
    ({1: 1.84, 2: 1.54}, 1),  # 2 CPU cores: one Blender with both (measured)
    ({3: 7.0}, 3),
])
def test_the_fewest_workers_near_the_best_rate_are_chosen(rates, k):
    assert calibrate.choose(rates) == k


def test_candidates_fit_the_memory_the_job_may_use():
    gb = 2**30
    assert calibrate.candidates(1, 64 * gb) == (1, 2, 3, 4)
    assert calibrate.candidates(1, 5 * gb) == (1, 2)  # 1 GB for mewl render, 2 GB per Blender
    assert calibrate.candidates(2, 9 * gb) == (1, 2)  # k per GPU on each of 2 GPUs
    assert calibrate.candidates(1, 1 * gb) == (1,)  # at least one is always tried


def test_a_cpu_run_keys_auto_and_cpu_alike_and_a_gpu_apart():
    assert calibrate.key("auto", False, "default") == calibrate.key("cpu", False, "default")
    assert calibrate.key("auto", True, "default") != calibrate.key("auto", False, "default")
    assert calibrate.key("cpu", False, "default") != calibrate.key("cpu", False, "draft")


def test_measurements_are_remembered_and_a_damaged_file_is_one_line_then_replaced(tmp_path, capsys):
    path = tmp_path / "cache" / calibrate.CACHE_NAME
    assert calibrate.cached("cpu", False, "draft", path) is None
    calibrate.remember("cpu", False, "draft", {1: 1.8, 2: 1.5}, 6, path)
    entry = calibrate.cached("cpu", False, "draft", path)
    assert entry["workers"] == 1 and entry["images_per_second"] == {"1": 1.8, "2": 1.5} and entry["images"] == 6
    assert calibrate.cached("cpu", False, "default", path) is None  # another profile is another measurement

    for damaged in ('{"cpu | cut sh', "[" * 100_000):
        path.write_text(damaged)
        assert calibrate.cached("cpu", False, "draft", path) is None
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a readable measurement file" in err and str(path) in err
    calibrate.remember("cpu", False, "draft", {1: 1.0, 2: 3.0}, 6, path)
    assert calibrate.cached("cpu", False, "draft", path)["workers"] == 2
    assert json.loads(path.read_text())  # whole again


def test_two_runs_remembering_at_once_lose_nothing(tmp_path):
    path = tmp_path / calibrate.CACHE_NAME
    code = ("import sys; from pathlib import Path; from mewl_gen.cluster import calibrate\n"
            "for i in range(30): calibrate.remember('cpu', False, sys.argv[1], {1: 1.0, 2: 2.0 + i}, 4, Path(sys.argv[2]))")
    procs = [subprocess.Popen([sys.executable, "-c", code, q, str(path)]) for q in ("draft", "default", "paper")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    for q in ("draft", "default", "paper"):
        assert calibrate.cached("cpu", False, q, path)["images_per_second"]["2"] == 31.0
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("bad, message", [
    (["--workers-per-gpu", "0"], "--workers-per-gpu must be at least 1"),
    (["--workers-per-gpu", "two"], "--workers-per-gpu must be a whole number"),
    (["--workers-per-gpu", "2", "--device", "cpu"], "--workers-per-gpu needs a GPU, not --device cpu"),
    (["--workers-per-gpu", "2", "--workers", "2"], "--workers and --workers-per-gpu: give one"),
])
def test_bad_workers_per_gpu_are_one_line_and_write_nothing(tmp_path, bad, message):
    out = tmp_path / "data"
    done = mewl("render", "--task", "shape", "--n", "1", "--out", out, "--quality", "draft", *bad, cache=tmp_path / "c")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not out.exists() and not (tmp_path / "c").exists()


def test_calibrate_refuses_a_gpu_it_cannot_see_in_one_line(tmp_path):
    env_gpus = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "MEWL_CACHE_DIR": str(tmp_path)}
    done = mewl_here("calibrate", "--device", "optix", env=env_gpus)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no NVIDIA GPU visible" in done.stderr, done.stderr
    done = mewl_here("calibrate", "--candidates", "1,0", env=env_gpus)
    assert done.returncode == 2 and "--candidates must be at least 1" in done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.render
def test_calibrate_measures_real_workers_and_render_uses_the_measurement(tmp_path):
    cache, temp = tmp_path / "cache", tmp_path / "tmp"
    temp.mkdir()
    done = mewl("calibrate", "--device", "cpu", "--quality", "preview", "--candidates", "1,2", "--images", "4", cache=cache,
                TMPDIR=str(temp))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["images_per_second"]) == {"1", "2"} and all(v > 0 for v in report["images_per_second"].values())
    assert report["device_used"] == "cpu"  # what the rendered image.json says
    assert report["workers"] == calibrate.choose({int(k): v for k, v in report["images_per_second"].items()})
    assert "1 worker(s) on one CPU" in done.stderr and "2 worker(s) on one CPU" in done.stderr
    assert not list(temp.iterdir())  # its renders and Blenders' temporary files are gone

    # Whatever was measured, render follows it: say 2 per CPU here, to see two Blenders start.
    # (Items of one image each: what is checked holds per image, and costs a seventh of an episode.)
    path = cache / calibrate.CACHE_NAME
    data = json.loads(path.read_text())
    (entry,) = data.values()
    entry["workers"] = 2
    path.write_text(json.dumps(data))
    out = tmp_path / "data"
    done = mewl("render", "--task", "malevic-pos", "--n", "2", "--out", out, "--quality", "preview", "--device", "cpu",
                cache=cache)
    assert done.returncode == 0, done.stderr
    assert "2 worker(s) on cpu, 1 thread(s) each (2 per CPU: measured" in done.stderr, done.stderr
    assert (out / "train/malevic-pos/0/image.png").exists() and (out / "train/malevic-pos/1/image.png").exists()
    # Workers sharing a device change no byte: one Blender with both cores renders the same files.
    one = tmp_path / "one"
    done = mewl("render", "--task", "malevic-pos", "--n", "2", "--out", one, "--quality", "preview", "--device", "cpu",
                "--workers", "1", cache=cache)
    assert done.returncode == 0 and "1 worker(s) on cpu" in done.stderr, done.stderr
    files = sorted(p.relative_to(out) for p in (out / "train").rglob("*") if p.is_file())
    assert len(files) == 2 * 4 + 1  # item, image PNG and JSON, checksums per item; the split's index
    assert files == sorted(p.relative_to(one) for p in (one / "train").rglob("*") if p.is_file())
    assert all((out / f).read_bytes() == (one / f).read_bytes() for f in files)


def test_a_gpu_run_measures_once_per_gpu_model_then_reads_the_measurement(tmp_path, monkeypatch, capsys):
    """No GPU here: the measurement is faked, the rest (candidates, choice, cache, message) is real."""
    monkeypatch.setenv("MEWL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(calibrate.hardware, "gpu_names", lambda: ["NVIDIA H100 80GB HBM3"])
    monkeypatch.setattr(calibrate.hardware, "memory_limit", lambda: 64 * 2**30)
    calls = []

    def measure(device, gpu_id, quality, ks, images=calibrate.IMAGES, report=None):
        calls.append((device, gpu_id, quality, ks))
        rates = {1: 12.0, 2: 21.0, 3: 29.0, 4: 30.0}
        for k in ks:
            report(k, rates[k])
        return {k: rates[k] for k in ks}, "optix:0=NVIDIA H100 80GB HBM3 (denoiser optix)"

    monkeypatch.setattr(calibrate, "measure", measure)
    assert calibrate.workers_per_device("auto", [3, 5], "default") == (3, "measured just now")
    assert calls == [("auto", 3, "default", (1, 2, 3, 4))]  # on the run's first GPU
    err = capsys.readouterr().err
    assert "measuring how many workers keep one GPU busy" in err and "4 worker(s): 30.00 images/s" in err
    k, source = calibrate.workers_per_device("auto", [0], "default")
    assert k == 3 and source.startswith("measured ") and len(calls) == 1  # read, not measured again
    assert calibrate.workers_per_device("auto", None, "default") == (None, "")  # the CPU was never measured
    monkeypatch.setattr(calibrate.hardware, "gpu_names", lambda: ["NVIDIA A100-SXM4-40GB"])
    calibrate.workers_per_device("auto", [0], "default")
    assert len(calls) == 2  # another GPU model is measured for itself


def test_a_cache_that_cannot_be_written_is_one_line_and_the_run_goes_on(tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be (a full or read-only home reads the same)")
    entry = calibrate.remember("cpu", False, "draft", {1: 1.0, 2: 3.0}, 4, blocker / calibrate.CACHE_NAME)
    assert entry["workers"] == 2  # this run still uses what it measured
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not keep the measurement" in err and "this run uses it anyway" in err
    assert blocker.read_text().startswith("a file where")  # nothing it did not own was touched
