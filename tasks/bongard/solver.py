"""Bongard: check a problem from its released files and the concept library alone.

Reads `item.json` (the concept's program, `test_order`) and the fourteen
per-image ground truths `pos_0.json` .. `neg_6.json` (objects' attributes and
`clevr_relationships`). It never imports the sampler: it rebuilds every panel
from the files, enumerates the library (concept_library.py) up to the
concept's complexity, and reports whatever makes the problem unfair: the
concept not among the separators, a simpler separator, or a separator that
answers a test image otherwise than the positive/negative side it lies on.
"""
from __future__ import annotations

from typing import Mapping

from .concept_library import first_separators, unfair
from .concepts import Concept, holds, panel_of_image

SIDE = 7  # images per side, the test image last (docs/bongard.md)
LARGEST = 5  # the library's largest complexity a problem is drawn at


def check(item: Mapping, images: Mapping[str, Mapping]) -> list[str]:
    """Why the released problem is unfair or mislabelled (empty: it is sound)."""
    concept = Concept.model_validate(item["concept"])
    pos = [panel_of_image(images[f"pos_{i}"]) for i in range(SIDE)]
    neg = [panel_of_image(images[f"neg_{i}"]) for i in range(SIDE)]
    reasons = [f"{name} is on the wrong side of '{concept.words()}'" for name, p, side in
               [(f"pos_{i}", p, True) for i, p in enumerate(pos)] + [(f"neg_{i}", n, False) for i, n in enumerate(neg)]
               if holds(concept, p) != side]
    if sorted(item["test_order"]) != [f"neg_{SIDE - 1}", f"pos_{SIDE - 1}"]:
        reasons.append(f"test_order {item['test_order']} is not the last image of each side")
    return reasons + unfair(concept, pos[:-1], neg[:-1], [(pos[-1], True), (neg[-1], False)])


def answer(item: Mapping, images: Mapping[str, Mapping]) -> list[bool] | None:
    """A solver's answers to the two test images, in test_order: does one of the simplest separators
    of the twelve context images put it on the positive side? It reads no concept, only the images; the
    problem's fairness says any simplest separator will do. None: no library concept separates them."""
    pos = [panel_of_image(images[f"pos_{i}"]) for i in range(SIDE - 1)]
    neg = [panel_of_image(images[f"neg_{i}"]) for i in range(SIDE - 1)]
    found = next(iter(first_separators(pos, neg, LARGEST)), None)
    return None if found is None else [found.says(panel_of_image(images[name])) for name in item["test_order"]]
