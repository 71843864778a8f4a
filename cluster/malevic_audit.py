"""`mewl audit malevic OUT`: what MALeViC's items test, measured from the files.

Reads every OUT/<split>/<malevic-task>/<i>/item.json (sampled or rendered;
never tasks/) and, where the item is rendered, its image.json. Per task: the
independent oracle (the threshold rule on the sizes: must get every label),
the text-only guesser (sentence only), the 2D shortcut (the same rule on
projected areas, blind to depth), the ceiling of a solver that uses the sharp
k = 0.29, the share of true labels, the class balance (shape x color x
adjective x label), and how size correlates with projected area and with
distance to the camera within a scene, and the share of items redrawn from a
derived seed (their first draw ran out of placements). Exit 1 when the oracle misses an item,
text-only beats chance or labels or classes are unbalanced.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from scenes.universe import COLORS

from . import options
from .audit_table import BALANCE_P, Z_VERDICT, print_verdicts, read_json, uniform_p, wilson
from .errors import UserError
from .solvers import malevic as solver

COLUMNS = ("task", "n", "oracle", "text-only", "area shortcut", "sharp k ceiling", "true share",
           "class balance p", "corr(size, area)", "corr(size, distance)", "redrawn", "verdict")


def item_paths(out: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in sorted(out.glob("*/malevic-*/*/item.json")):
        if options.SPLIT_PATTERN.match(path.parts[-4]):
            found.setdefault(path.parts[-3], []).append(path)
    return found


def _truth(path: Path, item: dict) -> dict:
    """image.json when rendered; else the same fields from the item's scene spec."""
    rendered = path.with_name("image.json")
    if rendered.is_file():
        return read_json(rendered)
    objs = item["scene"]["objects"]
    return {"objects": [{"shape": o["shape"], "color": o["color"], "3d_coords": [*o["position"], o["half_extent"]]}
                        for o in objs]}


def _corr(a: list[float], b: list[float]) -> float | None:
    return None if len(set(a)) == 1 else float(np.corrcoef(a, b)[0, 1])


def _measure(paths: list[Path]) -> list[tuple]:
    rows = []
    for path in paths:
        item = read_json(path)
        truth = _truth(path, item)
        target, _ = solver.described(item["sentence"], truth)
        o = truth["objects"][target]
        eye = item["scene"]["camera"]["location"]
        distance = [math.dist(p["3d_coords"], eye) for p in truth["objects"]]
        rows.append((item["label"], solver.solve(item, truth), solver.text_only_guess(item["sentence"]),
                     solver.area_guess(item, truth), item["label_sharp"], (o["shape"], o["color"], item["adjective"]),
                     _corr(item["sizes"], item["projected_area"]), _corr(item["sizes"], distance), item["retry"] > 0))
    return rows


def audit_task(task: str, paths: list[Path], workers: int) -> dict:
    batches = [paths[k:k + 200] for k in range(0, len(paths), 200)]
    rows = [r for b in Parallel(n_jobs=workers)(delayed(_measure)(b) for b in batches) for r in b]
    n = len(rows)
    labels = [r[0] for r in rows]

    def rate(k: int) -> float:
        return sum(r[k] == r[0] for r in rows) / n

    # Colors and labels are uniform over the (shape, adjective) pairs the split draws (all of them under iid).
    pairs = sorted({(shape, adjective) for shape, _, adjective in (r[5] for r in rows)})
    support = tuple((s, c, a, lab) for s, a in pairs for c in COLORS for lab in (True, False))
    classes = [(*r[5], r[0]) for r in rows]
    text_hits = sum(r[2] == r[0] for r in rows)
    row = {"task": task, "n": n, "oracle": rate(1), "text-only": text_hits / n, "area shortcut": rate(3),
           "sharp k ceiling": rate(4), "true share": sum(labels) / n, "class balance p": uniform_p(classes, support),
           "corr(size, area)": float(np.mean([r[6] for r in rows if r[6] is not None])),
           "corr(size, distance)": float(np.mean([r[7] for r in rows if r[7] is not None])),
           "redrawn": sum(r[8] for r in rows) / n}
    failures = []
    if row["oracle"] < 1:
        failures.append("oracle misses")
    if wilson(text_hits, n, Z_VERDICT)[0] > solver.CHANCE:
        failures.append("text-only beats chance")
    if abs(sum(labels) - n / 2) > 1:  # one true item per index pair: an odd count leaves one over
        failures.append("labels not half true")
    if row["class balance p"] < BALANCE_P:
        failures.append("classes unbalanced")
    row["verdict"] = "ok" if not failures else "; ".join(failures)
    return row


def main(out: Path, workers: int | None = None) -> int:
    found = item_paths(out)
    if not found:
        raise UserError(f"{out} holds no MALeViC items (no <split>/malevic-<task>/<i>/item.json)")
    rows = [audit_task(task, paths, options.workers(workers)) for task, paths in found.items()]
    return print_verdicts(COLUMNS, rows)
