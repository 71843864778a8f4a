"""Bongard's near-miss markers planted back and found: a negative whose edit brings a shape no object of
its panel had (Bongard-basic before its fix) is flagged by the scan of the edited objects, by the scan of
negative panels against positive ones, by the distinct-values rule and by the learned probe of single
panels; negatives drawn like positives, with the edit's object drawn like any other, by none of them.
The problems are built here (only what item.json holds that the views read), not sampled."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from mewl_gen.scenes.universe import ATTRIBUTES as VALUES
from mewl_gen.tasks.audit.markers import scan
from mewl_gen.tasks.bongard.views import (ATTRIBUTES, best_distinct_rule, edit_and_other, edited, halves,
                                          panels_probe, positive_and_negative)

PROBLEMS = 600


def panel(rng: np.random.Generator) -> list[dict]:
    """3 to 5 objects from small per-panel palettes, as the sampler draws a scene."""
    n, columns = int(rng.integers(3, 6)), {}
    for a in ATTRIBUTES:
        values = VALUES[a]
        palette = [values[i] for i in rng.permutation(len(values))[:int(rng.integers(1, len(values) + 1))]]
        columns[a] = [palette[i] for i in rng.integers(0, len(palette), n)]
    return [{a: columns[a][k] for a in ATTRIBUTES} for k in range(n)]


def negative(rng: np.random.Generator, planted: bool) -> tuple[dict, str]:
    """Honest: a panel drawn as a positive is, one of its objects named as the edit's (one in three, a
    swap of two). Planted: a panel lacking some shape, one object's shape changed to one the panel lacks."""
    while True:
        objects = panel(rng)
        missing = [s for s in VALUES["shape"] if all(o["shape"] != s for o in objects)]
        if not planted:
            i, j = map(int, rng.choice(len(objects), 2, replace=False))
            return {"objects": objects}, (f"objects {min(i, j)} and {max(i, j)}: shapes swapped" if rng.random() < 1 / 3
                                          else f"object {i}: shape {objects[i]['shape']} -> {objects[i]['shape']}")
        if missing:
            i, new = int(rng.integers(len(objects))), str(rng.choice(missing))
            miss = f"object {i}: shape {objects[i]['shape']} -> {new}"
            objects[i] = {**objects[i], "shape": new}
            return {"objects": objects}, miss


@functools.cache
def problems(planted: bool, seed: int = 5) -> list[dict]:
    rng, out = np.random.default_rng(seed), []
    for index in range(PROBLEMS):
        negatives = [negative(rng, planted) for _ in range(7)]
        first = bool(rng.integers(2))
        pos_test, neg_test = {"objects": panel(rng)}, negatives[-1][0]
        out.append({"index": index, "positives": [{"objects": panel(rng)} for _ in range(6)],
                    "negatives": [s for s, _ in negatives[:6]], "near_misses": [m for _, m in negatives[:6]],
                    "tests": [pos_test, neg_test] if first else [neg_test, pos_test], "test_positive": [first, not first]})
    return out


def test_the_edited_objects_are_read_from_the_near_misses_that_edit_objects():
    assert edited("object 3: shape cube -> sphere") == (3,)
    assert edited("objects 1 and 4: shapes swapped") == edited("objects 1 and 4: colors swapped") == (1, 4)
    # A scene-wide exchange of two values (the negative is its positive up to their names), a positional
    # near miss and freeform's other program edit no one object: the panels' scan reads them.
    for words in ("shapes cube and sphere exchanged", "objects placed so the concept fails",
                  "the other program: 0,60,120"):
        assert edited(words) == ()


def scans(items: list[dict]):
    pairs = [p for p in map(edit_and_other, items) if p is not None]
    sides = [positive_and_negative(item) for item in items]
    return scan(*zip(*pairs)), scan([n for _, n in sides], [p for p, _ in sides])


def test_the_scans_flag_an_edit_from_outside_the_palette():
    edits, panels = scans(problems(planted=True))
    print(edits.cell(), edits.flagged, panels.cell(), panels.flagged)
    assert {"shape unique", "shape distinct"} & set(edits.flagged) and "shape distinct" in panels.flagged


def test_the_scans_pass_negatives_drawn_like_positives():
    edits, panels = scans(problems(planted=False))
    print(edits.cell(), panels.cell())
    assert edits.n == (PROBLEMS, PROBLEMS) and not edits.flagged and not panels.flagged


def test_the_distinct_values_rule_flags_an_edit_from_outside_the_palette():
    planted, honest = best_distinct_rule(problems(True)), best_distinct_rule(problems(False))
    print(planted, honest)
    assert planted[0] == "fewer shapes" and planted[1].leaks and not honest[1].leaks


@pytest.mark.slow
def test_the_learned_panel_probe_flags_an_edit_from_outside_the_palette():
    planted, honest = (panels_probe(*reversed(halves(problems(p), None))) for p in (True, False))
    print(planted.cell(), honest.cell())
    assert planted.n == PROBLEMS // 2 and planted.leaks and not honest.leaks
    fit = problems(True, seed=6)
    assert panels_probe(problems(True), fit).n == PROBLEMS  # --train: fitted on another set, scored on all
