"""`mewl audit malevic OUT`: what MALeViC's items test, measured from the files.

Reads each item's item.json (sampled or rendered; never the sampler) and,
where the item is rendered, its image.json. Per split and task: the
independent oracle (the threshold rule on the sizes: must get every label),
the text-only guesser (sentence only), the 2D shortcut (the same rule on
projected areas, blind to depth), the ceiling of a solver that uses the sharp
k = 0.29, the share of true labels, the class balance (shape x color x
adjective x label), and how size correlates with projected area and with
distance to the camera within a scene, and the share of items redrawn from a
derived seed (their first draw ran out of placements), and the leak probes of
tasks.malevic.probes (the neighbour rule, neighbours, sizes without k and
target-relative features on the threshold tasks; target size only, scene
statistics only, the no-target rule, index parity, retried, pair partner), each "accuracy [95 % interval] /
floor", fitted on `--train` items where given, else on the first half by index,
the learned probe of the target's neighbours (views.py: a generic view of the
objects at the target's level and one level either side, floor 1/2; not SUP1),
the marker scan of the twin against the objects a solver could take for it
(tasks.audit.markers), and the rule-aware solver (tasks.audit.rules: the
sampler's rules replayed under both labels, floor 1/2).
Exit 1 when the oracle misses an item, text-only beats chance, the Bayes solver without k lands below
the floor it defines (so the floor is not one), the true share
is off 1/2, classes are unbalanced, a probe is above its floor or the twin stands out.
"""
from __future__ import annotations

import json
import math

import numpy as np

from mewl_gen.scenes.universe import COLORS

from ..audit import BALANCE_P, Z_VERDICT, Audit, AuditRun, Findings, Probe, leaking, measured, uniform_p, wilson
from ..audit.markers import scan
from ..audit.rules import consistent, rule_column
from ..audit.views import halves_probe
from ..stored import StoredItem
from . import solver
from .probes import Seen, below_its_floor, level_of, probes
from .rules import TASK_RULES
from .sample import sentence_classes
from .views import neighbours_view, twin_and_pool

PROBES = ("neighbour rule", "neighbours", "sizes without k", "target-relative", "target size only",
          "scene statistics only", "no-target rule", "index parity", "retried", "pair partner")
COLUMNS = ("n", "oracle", "text-only", "area shortcut", "sharp k ceiling", "true share", "class balance p",
           "corr(size, area)", "corr(size, distance)", "redrawn", *PROBES, "neighbours view", "twin markers",
           "rule-aware")


def truth(stored: StoredItem, item: dict) -> dict:
    """image.json when rendered; else the same fields from the item's scene spec."""
    rendered = stored.truth("image")
    if rendered is not None:
        return rendered
    objs = item["scene"]["objects"]
    return {"objects": [{"shape": o["shape"], "color": o["color"], "3d_coords": [*o["position"], o["half_extent"]]}
                        for o in objs]}


def _corr(a: list[float], b: list[float]) -> float | None:
    return None if len(set(a)) == 1 else float(np.corrcoef(a, b)[0, 1])


def _measure(items: list[StoredItem]) -> list[tuple]:
    rows = []
    for stored in items:
        item = stored.record()
        image = truth(stored, item)
        target, _ = solver.described(item["sentence"], image)
        o = image["objects"][target]
        eye = item["scene"]["camera"]["location"]
        distance = [math.dist(p["3d_coords"], eye) for p in image["objects"]]
        levels = tuple(level_of(p["3d_coords"][2]) for p in image["objects"])
        rules = TASK_RULES[item["task"].removeprefix("malevic-")]
        seen = Seen(item["label"], solver.parse(item["sentence"])[2], levels[target], levels, item["index"],
                    item["retry"], tuple(item["reference"]))
        rows.append((item["label"], solver.solve(item, image), solver.text_only_guess(item["sentence"]),
                     solver.area_guess(item, image), item["label_sharp"], (o["shape"], o["color"], item["adjective"]),
                     _corr(item["sizes"], item["projected_area"]), _corr(item["sizes"], distance), item["retry"] > 0,
                     seen, consistent(item, (True, False), admits), twin_and_pool(rules, item),
                     neighbours_view(rules, item)))
    return rows


def _markers(rows: list[tuple], train: list[tuple] | None, found: dict) -> list[str]:
    """The learned probe on the view of the target's neighbours (floor 1/2), and the marker scan of the
    twin against the objects a solver could take for it (views.py); their cells, and the verdict's words."""
    view = halves_probe([(r[9].index, r[12], r[0]) for r in rows if r[12] is not None],
                        [(r[12], r[0]) for r in train if r[12] is not None] if train else None, 1 / 2)
    pairs = [r[11] for r in rows if r[11] is not None]
    twin = scan([role for role, _ in pairs], [pool for _, pool in pairs])
    found["neighbours view"], found["twin markers"] = view.cell(), twin.cell()
    return [*leaking({"neighbours view": view}), *twin.failures("the twin")]


def admits(item: dict, label: bool) -> bool:
    """The sampler's rules that keep or place an item, on its released fields with `label` as its
    answer: its sentence's class (adjective, shape) is one its split's scheme draws. Nothing else it keeps,
    redraws or places reads the label: the scene and its redraws come first, then the label names one
    object of the pair, and the label is the index's own coin."""
    rules = TASK_RULES[item["task"].removeprefix("malevic-")]
    shape = item["scene"]["objects"][item["target"]]["shape"]
    return (item["adjective"], shape) in sentence_classes(rules, item["scheme"], item["split"], item["task"])


def key(stored: StoredItem) -> str:
    """What an item shows a model up to camera, lights, positions and seeds: the sentence, the label and
    every object's shape, color, material and size level (as a multiset)."""
    item = stored.record()
    objects = sorted(json.dumps([o["shape"], o["color"], o["material"], level])
                     for o, level in zip(item["scene"]["objects"], item["size_levels"]))
    return json.dumps([item["task"], item["sentence"], item["label"], objects])


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    rows = measured(_measure, items, run.workers)
    n = len(rows)
    labels = [r[0] for r in rows]

    def rate(k: int) -> float:
        return sum(r[k] == r[0] for r in rows) / n

    # Colors and labels are uniform over the (shape, adjective) pairs the split draws (all of them under iid).
    pairs = sorted({(shape, adjective) for shape, _, adjective in (r[5] for r in rows)})
    support = tuple((s, c, a, lab) for s, a in pairs for c in COLORS for lab in (True, False))
    classes = [(*r[5], r[0]) for r in rows]
    text_hits = sum(r[2] == r[0] for r in rows)
    text_only = Probe(text_hits, n, solver.CHANCE)
    found = {"n": n, "oracle": rate(1), "text-only": text_only.cell(),
             "area shortcut": rate(3), "sharp k ceiling": rate(4), "true share": sum(labels) / n,
             "class balance p": uniform_p(classes, support),
             "corr(size, area)": float(np.mean([r[6] for r in rows if r[6] is not None])),
             "corr(size, distance)": float(np.mean([r[7] for r in rows if r[7] is not None])),
             "redrawn": sum(r[8] for r in rows) / n}
    train_rows = measured(_measure, run.train, run.workers) if run.train else None
    train = [r[9] for r in train_rows] if train_rows else None
    found_probes = probes([r[9] for r in rows], train, TASK_RULES[task.removeprefix("malevic-")])
    found.update({name: found_probes[name].cell() if name in found_probes else "-" for name in PROBES})
    failures = []
    if found["oracle"] < 1:
        failures.append("oracle misses")
    if text_only.leaks:
        failures.append("text-only above its floor")
    low, high = wilson(sum(labels), n, Z_VERDICT)
    if not low <= 1 / 2 <= high:  # each index's own fair coin
        failures.append("labels not half true")
    if found["class balance p"] < BALANCE_P:
        failures.append("classes unbalanced")
    failures += leaking(found_probes)
    if "sizes without k" in found_probes and below_its_floor(found_probes["sizes without k"]):
        failures.append("sizes without k below its floor: the floor is not one")
    failures += _markers(rows, train_rows, found)
    aware, replayed = rule_column(labels, [r[10] for r in rows], [s.index for s in items], 1 / 2)
    found["rule-aware"] = aware.cell()
    failures += replayed
    return Findings(found, failures)


AUDIT = Audit(COLUMNS, findings, key, learns=True)
