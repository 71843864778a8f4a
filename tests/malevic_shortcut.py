"""How often projected area alone gives MALeViC's label (the 2D shortcut), per task.

Not a test: a measurement for docs/malevic.md. It samples whole items (placed,
measured) and asks cluster.solvers.malevic.area_guess, which applies the task's
own rule to pixels instead of sizes. Also printed: the ceiling of a solver that
knows the sizes but uses the sharp k = 0.29, the mean per-scene correlation of
size with projected area and with distance to the camera, and whether whole
items (redraws included) keep the classes balanced.

    .venv/bin/python -m tests.malevic_shortcut 2000
"""
from __future__ import annotations

import math
import sys

import numpy as np
from joblib import Parallel, delayed

from cluster.solvers import malevic as solver
from scenes.universe import COLORS, SHAPES
from tasks import BENCHMARKS, sample_item
from tests.test_tasks import chi_square_critical
from tests.test_tasks_malevic import truth_of


def _row(task: str, start: int, stop: int) -> list[tuple]:
    out = []
    for i in range(start, stop):
        item = sample_item(task, 0, "train", i)
        truth = truth_of(item)
        record = item.model_dump(mode="json")
        target = item.scene.objects[item.target]
        distance = [math.dist(o.center, item.scene.camera.location) for o in item.scene.objects]
        flat = len(set(item.sizes)) == 1  # no correlation to speak of
        out.append((item.label, solver.area_guess(record, truth), item.label_sharp, item.retry,
                    None if flat else float(np.corrcoef(item.sizes, distance)[0, 1]),
                    None if flat else float(np.corrcoef(item.sizes, item.projected_area)[0, 1]),
                    (target.shape, target.color, item.adjective, item.label)))
    return out


def measure(task: str, n: int, jobs: int) -> str:
    step = 100
    rows = [r for batch in Parallel(n_jobs=jobs)(delayed(_row)(task, s, min(s + step, n)) for s in range(0, n, step))
            for r in batch]
    area = sum(label == guess for label, guess, *_ in rows) / n
    sharp = sum(label == s for label, _, s, *_ in rows) / n
    redrawn = sum(r > 0 for *_, r, _, _, _ in rows) / n
    depth = np.mean([d for *_, d, _, _ in rows if d is not None])
    pixels = np.mean([a for *_, a, _ in rows if a is not None])
    classes = [c for *_, c in rows]
    support = sorted(set(classes) | {(s, c, a, lab) for s in SHAPES for c in COLORS
                                     for a in {c[2] for c in classes} for lab in (True, False)})
    counts = [classes.count(c) for c in support]
    expected = n / len(support)
    chi2 = sum((k - expected) ** 2 / expected for k in counts)
    return (f"| {task} | {area:.3f} | {sharp:.3f} | {pixels:.2f} | {depth:.2f} | {redrawn:.3f} | "
            f"{chi2:.0f} (bound {chi_square_critical(len(support) - 1):.0f}, df {len(support) - 1}) |")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    print(f"items per task: {n}, seed 0, split train")
    print("| task | area shortcut accuracy | sharp k = 0.29 ceiling | corr(size, area) | corr(size, distance) "
          "| items redrawn | class chi-square |")
    print("|---|---|---|---|---|---|---|")
    for task in BENCHMARKS["malevic"].tasks:
        print(measure(task.name, n, jobs), flush=True)


if __name__ == "__main__":
    main()
