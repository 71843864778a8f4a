"""`mewl audit bongard OUT`: are Bongard problems fair, and do shortcuts fail? From the files.

Reads each problem's item.json (sampled or rendered; never the sampler)
and, where rendered, the fourteen `<name>.json` and `<name>.png`; a sampled
problem's per-image ground truth comes from its scene specs. Per split and
family:
- sound: solver.py's check (the concept separates the
  twelve context images, no simpler separator, every separator of the
  library answers both test images alike) finds nothing;
- file solver: a simplest separator of the context, found without reading
  the concept, answers both test images right;
- positive first: how often the positive test image is shown first;
- count-only and histogram-only: a solver that averages one feature over
  the six context positives and the six negatives and calls positive the
  test image nearer the positives' mean (a tie: the second one shown),
  right on both test images. The feature is the number of objects, or the
  image's color histogram: of the PNG's pixels (4 levels per channel) where
  rendered, else the scene's area of each color x material.
Exit 1 when a problem is unsound or the file solver misses, the positive
test image is not first in half the problems, or a shortcut solver's
99.9 % interval lies above chance on bongard-basic or bongard-abstract (the
issue's bar; freeform's negatives may differ in object count by design).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from scenes.image_truth import geometric_truth
from scenes.spec import SceneSpec
from scenes.universe import COLORS, MATERIALS

from ..audit import above_chance, measured
from ..benchmark import Audit, AuditRun
from ..stored import StoredItem
from . import solver

COLUMNS = ("split", "task", "n", "sound", "file solver", "positive first", "count-only", "histogram-only",
           "histogram of", "verdict")
SIDES = ("pos", "neg")
NAMES = tuple(f"{side}_{i}" for side in SIDES for i in range(solver.SIDE))
SHORTCUT_BAR = ("bongard-basic", "bongard-abstract")  # the families a shortcut must not beat chance on
LEVELS = 4  # histogram levels per color channel


def _specs(item: dict) -> dict[str, SceneSpec]:
    scenes = [SceneSpec.model_validate(s) for s in item["positives"] + item["negatives"]]
    return dict(zip(NAMES, scenes))


def _pixel_histogram(png: Path) -> np.ndarray:
    rgb = np.asarray(Image.open(png).convert("RGB"), dtype=np.int64) * LEVELS // 256
    codes = (rgb[..., 0] * LEVELS + rgb[..., 1]) * LEVELS + rgb[..., 2]
    bins = np.bincount(codes.ravel(), minlength=LEVELS ** 3)
    return bins / bins.sum()


def spec_histogram(spec: SceneSpec) -> np.ndarray:
    """Near enough what an image's color histogram sees: the area of each color x material (a
    metal or glass object of one color looks another color than a rubber one), by object area."""
    h = np.zeros((len(COLORS), len(MATERIALS)))
    for o in spec.objects:
        h[COLORS.index(o.color), MATERIALS.index(o.material)] += o.scale ** 2
    return h.ravel() / h.sum()


def nearer_positive(item: dict, feature: dict[str, np.ndarray]) -> bool:
    """Whether the nearest-mean solver on this feature answers both test images right."""
    context = {side: np.mean([feature[f"{side}_{i}"] for i in range(solver.SIDE - 1)], axis=0) for side in SIDES}

    def score(name: str) -> float:
        f = feature[name]
        return float(np.linalg.norm(f - context["neg"]) - np.linalg.norm(f - context["pos"]))

    first, second = item["test_order"]
    return (score(first) > score(second)) == first.startswith("pos")


def rendered_truths(stored: StoredItem) -> dict[str, dict] | None:
    """The fourteen per-image ground truths of a rendered problem; None for a sampled one."""
    truths = {n: stored.truth(n) for n in NAMES}
    return truths if all(t is not None and stored.image(n) is not None for n, t in truths.items()) else None


def spec_truths(item: dict) -> dict[str, dict]:
    """The fields of the fourteen ground truths that the scene specs give, for a problem not rendered."""
    return {n: geometric_truth(s) for n, s in _specs(item).items()}


def truths(stored: StoredItem, item: dict) -> dict[str, dict]:
    """The rendered ground truths, or for a sampled problem the same fields from its scene specs."""
    rendered = rendered_truths(stored)
    return rendered if rendered is not None else spec_truths(item)


def _measure(items: list[StoredItem]) -> list[tuple]:
    rows = []
    for stored in items:
        item = stored.record()
        rendered = rendered_truths(stored)
        images = rendered if rendered is not None else spec_truths(item)
        histograms = ({n: _pixel_histogram(stored.image(n)) for n in NAMES} if rendered is not None
                      else {n: spec_histogram(s) for n, s in _specs(item).items()})
        counts = {n: np.array([sum(o["shape"] != "arrow" for o in images[n]["objects"])], float) for n in NAMES}
        answers = solver.answer(item, images)
        rows.append((not solver.check(item, images), answers == [n.startswith("pos") for n in item["test_order"]],
                     item["test_order"][0].startswith("pos"), nearer_positive(item, counts),
                     nearer_positive(item, histograms), "pixels" if rendered is not None else "specs"))
    return rows


def row(split: str, task: str, items: list[StoredItem], run: AuditRun) -> dict:
    rows = measured(_measure, items, run.workers, batch=25)
    n = len(rows)
    hits = [sum(r[k] for r in rows) for k in range(5)]
    found = {"split": split, "task": task, "n": n, "sound": hits[0] / n, "file solver": hits[1] / n,
             "positive first": f"{hits[2]} of {n}", "count-only": hits[3] / n, "histogram-only": hits[4] / n,
             "histogram of": "/".join(sorted({r[5] for r in rows}))}
    failures = []
    if hits[0] < n:
        failures.append(f"{n - hits[0]} unsound problems")
    if hits[1] < n:
        failures.append(f"the file solver misses {n - hits[1]}")
    if abs(hits[2] - n / 2) > 1:  # one positive-first problem per index pair: an odd count leaves one over
        failures.append("the positive test image is not first in half")
    for name, k in (("count-only", 3), ("histogram-only", 4)):
        if task in SHORTCUT_BAR and above_chance(hits[k], n, 0.5):
            failures.append(f"{name} beats chance")
    found["verdict"] = "ok" if not failures else "; ".join(failures)
    return found


AUDIT = Audit(columns=COLUMNS, row=row)
