"""What each extra pass (render.passes) costs: `python -m mewl_gen.bench.passes [--quick] [OUT]`, part
"passes" of `make bench`.

One worker renders the render bench's scenes (scenes.reference.SCENES, every material and the hand) at
one profile, each scene plain, with each pass alone and with all of them, round after round, each
round starting the variants at another one. A pass's cost is its image's time over the plain
image's, the median over the scenes, twice: in wall time, each variant's fastest round (other work
on a shared machine only ever adds time), and in the Blender child's CPU time (user and system, all
its threads; the median round), which other processes on a busy machine hardly move. The image
itself is the same bytes with and without passes, which this run checks too.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from mewl_gen.render.passes import PASSES, file_name
from mewl_gen.render.worker import DEVICES, Worker
from mewl_gen.scenes.quality import QUALITIES, with_quality

from .render import bench_specs

PLAIN, ALL = "plain", "all"
VARIANTS = {PLAIN: (), **{kind: (kind,) for kind in PASSES}, ALL: PASSES}


def cpu_seconds(pid: int | None) -> float:
    """A process's CPU time so far, user and system, all threads (Linux); 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run(out_dir: Path, quality: str = "default", rounds: int = 3, quick: bool = False, device: str = "auto") -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    specs = [with_quality(s, quality) for s in bench_specs()[: 1 if quick else None]]
    # variant -> scene -> one value per round
    wall: dict[str, list[list[float]]] = {v: [[] for _ in specs] for v in VARIANTS}
    cpu: dict[str, list[list[float]]] = {v: [[] for _ in specs] for v in VARIANTS}
    files: dict[str, list[int]] = {v: [] for v in VARIANTS}  # bytes of each image's pass files
    names = list(VARIANTS)
    with Worker(device=device) as worker:
        worker.render(specs[0], out / "warmup.png", out / "warmup.json")
        for r in range(rounds):
            for k, spec in enumerate(specs):
                for variant in names[r % len(names):] + names[: r % len(names)]:
                    passes, folder = VARIANTS[variant], out / variant
                    folder.mkdir(exist_ok=True)
                    before = cpu_seconds(worker.pid)
                    res = worker.render(spec, folder / f"scene{k}.png", folder / f"scene{k}.json", passes=passes)
                    if not res.ok:
                        raise RuntimeError(f"bench scene {k} is not fully visible: {res.visible_pixels}")
                    cpu[variant][k].append(cpu_seconds(worker.pid) - before)
                    wall[variant][k].append(res.seconds)
                    files[variant].append(sum((folder / file_name(f"scene{k}", p)).stat().st_size for p in passes))
        device_used = worker.device
    same_png = all((out / v / f"scene{k}.png").read_bytes() == (out / PLAIN / f"scene{k}.png").read_bytes()
                   for v in names for k in range(len(specs)))
    fastest = {v: [min(rs) for rs in per_scene] for v, per_scene in wall.items()}
    typical = {v: [statistics.median(rs) for rs in per_scene] for v, per_scene in cpu.items()}
    report = {
        "device": device_used, "quality": quality, "scenes": len(specs), "rounds": rounds, "same_png": same_png,
        "wall_seconds": wall, "cpu_seconds": cpu,
        "seconds_per_image": {v: statistics.median(t) for v, t in fastest.items()},
        "ratio": {v: statistics.median(s / p for s, p in zip(t, fastest[PLAIN])) for v, t in fastest.items()},
        "cpu_seconds_per_image": {v: statistics.median(t) for v, t in typical.items()},
        "cpu_ratio": {v: statistics.median(s / p for s, p in zip(t, typical[PLAIN])) if all(typical[PLAIN]) else None
                      for v, t in typical.items()},
        "pass_bytes_per_image": {v: statistics.mean(sizes) for v, sizes in files.items()},
    }
    (out / "passes.json").write_text(json.dumps(report, indent=1))
    return report


def format_report(r: dict) -> str:
    lines = [(f"passes at {r['quality']} quality on {r['device']}, {r['scenes']} scene(s) x {r['rounds']} round(s), "
              "one worker; cost = median over the scenes of (image with the pass) / (plain image): wall time of "
              "each one's fastest round, the Blender child's CPU time of its median round"),
             "pass       wall s   cost     CPU s   cost    files/image"]
    for v in VARIANTS:
        ratio = r["cpu_ratio"][v]
        cpu = f"{r['cpu_seconds_per_image'][v]:>7.2f}  " + (f"{ratio:>5.3f}x" if ratio is not None else "   n/a")
        lines.append(f"{v:<9} {r['seconds_per_image'][v]:>7.3f}  {r['ratio'][v]:>5.3f}x  {cpu}  "
                     f"{r['pass_bytes_per_image'][v] / 1024:>8.0f} KiB")
    lines.append("the PNG is the same bytes with and without passes" if r["same_png"]
                 else "the PNG DIFFERS with passes: report it (docs/passes.md says it must not)")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m mewl_gen.bench.passes", description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="bench-out/passes", type=Path)
    ap.add_argument("--quick", action="store_true", help="one scene, two rounds")
    ap.add_argument("--quality", default="default", choices=QUALITIES)
    ap.add_argument("--device", default="auto", choices=DEVICES, help="as mewl render --device (default: a GPU if any)")
    a = ap.parse_args(argv)
    print(format_report(run(a.out, a.quality, rounds=2 if a.quick else 3, quick=a.quick, device=a.device)))


if __name__ == "__main__":
    main()
