"""Bongard: check a problem from its released files and the concept library alone.

Reads `item.json` (the concept's program, `test_positive`) and the fourteen
per-image ground truths `pos_0.json` .. `neg_5.json`, `test_a.json`,
`test_b.json` (objects' attributes, ground points and
`clevr_relationships`). It never imports the sampler: it rebuilds every panel
from the files, enumerates the library (concept_library.py) up to the
concept's complexity, with the free-form program a context image traces, and
reports whatever makes the problem unfair: the concept not among the
separators, a simpler separator, or a separator that answers a test image
otherwise than its label.
"""
from __future__ import annotations

from typing import Mapping

from .concept_library import first_separators, unfair
from .concepts import Concept, holds, panel_of_image

CONTEXT = 6  # images per side besides the tests (docs/bongard.md)
POSITIVES = tuple(f"pos_{i}" for i in range(CONTEXT))
NEGATIVES = tuple(f"neg_{i}" for i in range(CONTEXT))
TESTS = ("test_a", "test_b")
NAMES = POSITIVES + NEGATIVES + TESTS
LARGEST = 5  # the library's largest complexity a problem is drawn at


def check(item: Mapping, images: Mapping[str, Mapping]) -> list[str]:
    """Why the released problem is unfair or mislabelled (empty: it is sound)."""
    concept = Concept.model_validate(item["concept"])
    labels = list(item["test_positive"])
    if sorted(labels) != [False, True]:
        return [f"test_positive {labels} is not one positive and one negative"]
    sides = [(n, True) for n in POSITIVES] + [(n, False) for n in NEGATIVES] + list(zip(TESTS, labels))
    panels = {n: panel_of_image(images[n]) for n, _ in sides}
    reasons = [f"{n} is on the wrong side of '{concept.words()}'" for n, side in sides
               if holds(concept, panels[n]) != side]
    tests = [(panels[n], side) for n, side in zip(TESTS, labels)]
    return reasons + unfair(concept, [panels[n] for n in POSITIVES], [panels[n] for n in NEGATIVES], tests)


def answer(item: Mapping, images: Mapping[str, Mapping]) -> list[bool] | None:
    """A solver's answers to test_a and test_b: does one of the simplest separators of the twelve context
    images put it on the positive side? It reads no concept nor label, only the images; the problem's
    fairness says any simplest separator will do. None: no candidate concept separates them."""
    pos = [panel_of_image(images[n]) for n in POSITIVES]
    neg = [panel_of_image(images[n]) for n in NEGATIVES]
    found = next(iter(first_separators(pos, neg, LARGEST)), None)
    return None if found is None else [found.says(panel_of_image(images[name])) for name in TESTS]
