"""`python -m mewl_gen.bench [--quick]` (what `make bench [QUICK=1]` runs).

(a) sampling: items per second of each task of --task in one process, and the
    wall time of those tasks x 100 items through `mewl sample` with 2 processes;
(b) the renderer's own bench (bench.render.run: paper vs default on three
    scenes against 1024-spp references, memory over 200 renders in one worker);
(c) the pipeline: images per second of `mewl render`'s pool against the
    renderer alone on the same specs (item 0 of each --pipeline-task), and 2
    workers against 1, in three rounds (one with --quick) whose median ratios
    are reported;
(d) GPU throughput, where an NVIDIA GPU is visible: images per second on one
    GPU at the default profile with 1-4 workers sharing it (cluster.calibrate,
    whose choice `mewl render` then uses), the device recorded in the ground
    truth and each worker's warm-up time; without a GPU it says so;
(e) passes: each extra pass's cost as a ratio against the plain image, the
    same scenes with and without it in one worker (bench.passes);
(f) durable publish (bench.fsync): the pipeline's episodes per second
    with fsync and without (MEWL_FSYNC=0), one run each, as a ratio, and the
    milliseconds an episode's publish takes each way, on the disk of --out.
Prints a report and writes it as JSON to bench-out/bench.json. The whole run
took about 12 minutes on 2 CPU cores before (e), which adds about a minute,
and (f) another (`--only fsync`: 56 s on 2 shared cores); --quick (one scene,
20 memory renders, 20 items per task, one pipeline round, (e) on one scene
twice) about 4 before (f).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from mewl_gen.bench import passes as pass_bench
from mewl_gen.cluster.pipeline import RenderPool, Settings, cpu_cores, say_once, worker_options
from mewl_gen.cluster.sample import sample_to_disk
from mewl_gen.render.worker import DEVICES
from mewl_gen.scenes.quality import QUALITIES
from mewl_gen.store.manifest import claim_output
from mewl_gen.store.reader import read
from mewl_gen.tasks import catalog
from mewl_gen.tasks.catalog import resolve, sample_item

from .fsync import format_fsync, publish_costs

PARTS = ("sampling", "render", "pipeline", "gpu", "passes", "fsync")
OPTIONAL = ("scale",)  # run only when named (--only scale): bench.scale, about an hour
SPLIT = "bench"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


# -- (a) sampling -------------------------------------------------------------
def sampling(scratch: Path, tasks: list[str], seconds: float, n: int, processes: int) -> dict:
    rates = {}
    for task in tasks:
        start, count = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            sample_item(task, 0, SPLIT, count)
            count += 1
        rates[task] = count / (time.perf_counter() - start)
    out = scratch / "sampled"
    settings = Settings(out=out, split=SPLIT, seed=0, quality="")
    start = time.perf_counter()
    claim_output(out, settings.manifest("specs"))
    failed = sample_to_disk(settings, tasks, n, processes)
    wall = time.perf_counter() - start
    shutil.rmtree(out, ignore_errors=True)
    return {
        "episodes_per_second": rates,
        "all_tasks": {"tasks": len(tasks), "episodes_per_task": n, "processes": processes,
                      "wall_seconds": wall, "episodes_per_second": len(tasks) * n / wall, "failed": len(failed)},
        "load_average": _load(),
    }


# -- (b) the renderer's bench -------------------------------------------------
def renderer_bench(out: Path, quick: bool, device: str) -> dict:
    from mewl_gen.bench import render as bench

    return bench.run(out, n_memory=20 if quick else 200, quick=quick, device=device)


# -- (c) the pipeline ---------------------------------------------------------
def published_specs(out: Path) -> list:
    """Every scene of the items a pipeline run published, as rendered."""
    return [scene for items in read(out).items.values() for stored in items
            for scene in stored.item().scenes().values()]


def renderer_alone(scratch: Path, specs: list, device: str) -> dict:
    """One Worker rendering the given specs back to back: the bound for the pipeline."""
    from mewl_gen.render import Worker

    folder = scratch / "alone"
    folder.mkdir()
    with Worker(device=device, threads=cpu_cores(), max_scenes=len(specs) + 1) as w:
        start = time.perf_counter()
        w.start()
        started = time.perf_counter()
        for k, spec in enumerate(specs):
            w.render(spec, folder / f"{k}.png", folder / f"{k}.json")
        end = time.perf_counter()
    shutil.rmtree(folder, ignore_errors=True)
    return {"images": len(specs), "start_seconds": started - start, "render_seconds": end - started,
            "images_per_second": len(specs) / (end - started), "load_average": _load()}


def pipeline(out: Path, jobs, quality: str, device: str, workers: int, durable: bool = True) -> dict:
    settings = Settings(out=out, split=SPLIT, seed=0, quality=quality, durable=durable)
    claim_output(out, settings.manifest("rendered"))
    opts = worker_options(device, None, workers)
    images = renders = 0
    start = time.perf_counter()
    with RenderPool(opts) as pool:
        started = time.perf_counter()
        for outcome in pool.run(settings, jobs):
            images += outcome.images
            renders += outcome.renders
        end = time.perf_counter()
    wall = end - started
    return {"workers": workers, "threads_per_worker": opts[0]["threads"], "images": images, "renders": renders,
            "start_seconds": started - start, "render_seconds": wall,
            "images_per_second": images / wall, "renders_per_second": renders / wall, "load_average": _load()}


def pipeline_bench(scratch: Path, jobs: list[tuple[str, int]], quality: str, device: str, rounds: int) -> dict:
    """Rounds of: the pipeline with 1 worker, the renderer alone on exactly
    the scenes it published, the pipeline with 2 workers. One such run lasts
    about 20 s on 2 cores and moves by several percent from run to run, so
    the ratios are taken per round (the three runs of a round are close in
    time) and their median is reported."""
    rows, specs = [], None
    for r in range(rounds):
        one = pipeline(scratch / f"pipeline-1-{r}", jobs, quality, device, 1)
        specs = specs or published_specs(scratch / f"pipeline-1-{r}")
        alone = renderer_alone(scratch, specs, device)
        two = pipeline(scratch / f"pipeline-2-{r}", jobs, quality, device, 2)
        rows.append({
            "renderer_alone": alone, "pipeline_1_worker": one, "pipeline_2_workers": two,
            # the machinery's cost per render; redrawn panels are counted apart
            "overhead_percent": 100.0 * (1 - one["renders_per_second"] / alone["images_per_second"]),
            "overhead_with_redraws_percent": 100.0 * (1 - one["images_per_second"] / alone["images_per_second"]),
            "two_vs_one_workers": two["images_per_second"] / one["images_per_second"],
        })
    median = lambda key: statistics.median(row[key] for row in rows)
    return {
        "quality": quality, "device": device, "cores": cpu_cores(), "episodes": jobs, "rounds": rows,
        **{key: median(key) for key in ("overhead_percent", "overhead_with_redraws_percent", "two_vs_one_workers")},
    }


# -- (d) GPU throughput -------------------------------------------------------
def gpu_throughput(device: str, quick: bool) -> dict:
    from mewl_gen.cluster import calibrate
    from mewl_gen.cluster.hardware import visible_gpus

    if device == "cpu":
        return {"measured": False, "reason": "--device cpu"}
    gpus = visible_gpus(device, None)
    if not gpus:
        return {"measured": False, "reason": "no NVIDIA GPU visible (nvidia-smi, CUDA_VISIBLE_DEVICES)"}
    images = 16 if quick else calibrate.IMAGES * 2
    rates, recorded = calibrate.measure(device, gpus[0], "default", calibrate.candidates(1), images)
    entry = calibrate.remember(device, True, "default", rates, images)
    return {"measured": True, "gpu": calibrate.hardware_name(True), "device_in_ground_truth": recorded,
            "quality": "default", "images": images, "images_per_second": rates, "workers_per_gpu": entry["workers"],
            "best_images_per_second": max(rates.values()), "load_average": _load()}


# -- (f) durable publish -----------------------------------------------------
def fsync_cost(scratch: Path, jobs, quality: str, device: str) -> dict:
    """The pipeline (1 worker) on the same episodes publishing with fsync and
    without, one run each: seconds with / seconds without is durability's price."""
    on = pipeline(scratch / "fsync-on", jobs, quality, device, 1, durable=True)
    off = pipeline(scratch / "fsync-off", jobs, quality, device, 1, durable=False)
    return {"quality": quality, "episodes": len(jobs), "with_fsync": on, "without_fsync": off,
            "seconds_ratio": on["render_seconds"] / off["render_seconds"],
            **publish_costs(scratch / "fsync-on", scratch, SPLIT)}


# -- report -------------------------------------------------------------------
def preset_images() -> dict[str, int]:
    """The images each named run (`--preset`) renders: its items of every split times their images."""
    return {p.name: sum(n * catalog.task(t).images for n in p.splits.values() for t in resolve(p.task))
            for b in catalog.BENCHMARKS for p in b.presets}


def format_report(r: dict) -> str:
    lines = []
    s = r.get("sampling")
    if s:
        lines.append("(a) sampling, one process (episodes/s): "
                     + ", ".join(f"{t} {v:.0f}" for t, v in s["episodes_per_second"].items()))
        a = s["all_tasks"]
        lines.append(f"    {a['tasks']} tasks x {a['episodes_per_task']} episodes with {a['processes']} processes "
                     f"(mewl sample, to disk): {a['wall_seconds']:.1f} s wall, {a['episodes_per_second']:.0f} episodes/s, "
                     f"{a['failed']} failed (load {s['load_average']})")
    if "render" in r:
        lines.append(f"(b) renderer bench: see its report above; JSON in {r['render_json']}")
    p = r.get("pipeline")
    if p:
        lines.append(f"(c) pipeline at {p['quality']} quality on {p['device']}, {p['cores']} cores, "
                     f"{len(p['episodes'])} episodes, {len(p['rounds'])} round(s):")
        for k, row in enumerate(p["rounds"]):
            a, one, two = row["renderer_alone"], row["pipeline_1_worker"], row["pipeline_2_workers"]
            lines += [
                f"    round {k}: renderer alone {a['images_per_second']:.3f} images/s on the {a['images']} published scenes; "
                f"pipeline 1 worker ({one['threads_per_worker']} threads) {one['renders_per_second']:.3f} renders/s "
                f"({one['images']} images, {one['renders']} renders); 2 workers ({two['threads_per_worker']} thread each) "
                f"{two['images_per_second']:.3f} images/s (load {two['load_average']})",
                f"             overhead {row['overhead_percent']:+.1f} %, 2 workers / 1 worker = {row['two_vs_one_workers']:.2f}",
            ]
        lines.append(f"    median: pipeline overhead per render {p['overhead_percent']:+.1f} % (target < 10 %), "
                     f"{p['overhead_with_redraws_percent']:+.1f} % counting redrawn panels; "
                     f"2 workers / 1 worker = {p['two_vs_one_workers']:.2f}")
    g = r.get("gpu")
    if g is not None:
        if not g["measured"]:
            lines.append(f"(d) GPU throughput: not measured, {g['reason']}")
        else:
            lines.append(f"(d) GPU throughput at {g['quality']} quality on one {g['gpu']} "
                         f"(ground truth says device {g['device_in_ground_truth']!r}), {g['images']} images per row:")
            for k, v in sorted(g["images_per_second"].items()):
                lines.append(f"    {k} worker(s) sharing the GPU: {v:.2f} images/s")
            hours = "; ".join(f"{name}'s {n:,} images in {n / g['best_images_per_second'] / 3600:.1f} h"
                              for name, n in preset_images().items())
            lines.append(f"    best {g['best_images_per_second']:.2f} images/s per GPU; `mewl render` will run "
                         f"{g['workers_per_gpu']} worker(s) per GPU ({hours} on one GPU)")
    if "passes" in r:
        lines.append("(e) " + pass_bench.format_report(r["passes"]).replace("\n", "\n    "))
    if "fsync" in r:
        lines.append(format_fsync(r["fsync"]))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mewl_gen.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: less sampling, one render scene, 20 memory renders")
    ap.add_argument("--quality", default="draft", choices=QUALITIES, help="pipeline quality (draft: the worst case for overhead)")
    ap.add_argument("--device", default="auto", choices=DEVICES,
                    help="as mewl render --device, for (b) to (e); cpu measures the CPU on a GPU machine")
    ap.add_argument("--out", default="bench-out", type=Path)
    ap.add_argument("--only", default=",".join(PARTS), help="comma list of parts to run")
    ap.add_argument("--task", default="all", help="(a): the tasks sampled (a task, a benchmark, all or a comma list)")
    ap.add_argument("--scale-sizes", default=None, help="scale: comma list of store sizes (default 1125,4000,16000)")
    ap.add_argument("--pipeline-task", default=None,
                    help="(c): the tasks of which item 0 is rendered (default: the first task of every benchmark; "
                         "the Makefile names shape, number, pragmatic and relation)")
    a = ap.parse_args(argv)
    logging.getLogger("render").addFilter(say_once())  # every worker says "no GPU found"
    parts = set(a.only.split(","))
    if parts - set(PARTS + OPTIONAL):
        ap.error(f"--only: unknown part(s) {', '.join(sorted(parts - set(PARTS + OPTIONAL)))}; "
                 f"expected some of {','.join(PARTS + OPTIONAL)}")
    if a.scale_sizes is not None and not all(n.isdigit() and int(n) > 0 for n in a.scale_sizes.split(",")):
        ap.error(f"--scale-sizes {a.scale_sizes}: expected a comma list of positive episode counts")
    a.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=a.out))
    report: dict = {"quick": a.quick}
    try:
        if "sampling" in parts:
            report["sampling"] = sampling(scratch, resolve(a.task), 1.0 if a.quick else 3.0, 20 if a.quick else 100, 2)
            print(format_report({"sampling": report["sampling"]}), flush=True)
        if "render" in parts:
            report["render"] = renderer_bench(a.out / "render", quick=a.quick, device=a.device)
            report["render_json"] = str(a.out / "render" / "bench.json")
        if "pipeline" in parts:
            names = resolve(a.pipeline_task) if a.pipeline_task else [b.tasks[0].name for b in catalog.BENCHMARKS]
            jobs = [(t, 0) for t in names]
            report["pipeline"] = pipeline_bench(scratch, jobs, a.quality, a.device, rounds=1 if a.quick else 3)
        if "gpu" in parts:
            report["gpu"] = gpu_throughput(a.device, a.quick)
        if "passes" in parts:
            report["passes"] = pass_bench.run(a.out / "passes", rounds=2 if a.quick else 3, quick=a.quick, device=a.device)
        if "fsync" in parts:
            names = resolve(a.pipeline_task) if a.pipeline_task else [b.tasks[0].name for b in catalog.BENCHMARKS]
            report["fsync"] = fsync_cost(scratch, [(t, 0) for t in names], a.quality, a.device)
            print(format_fsync(report["fsync"]), flush=True)
        if "scale" in parts:
            from mewl_gen.bench import scale

            sizes = scale.SIZES[:1 if a.quick else None] if a.scale_sizes is None else tuple(map(int, a.scale_sizes.split(",")))
            report["scale"] = scale.run(a.out / "scale", sizes)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("\n" + format_report(report))
    (a.out / "bench.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {a.out / 'bench.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
