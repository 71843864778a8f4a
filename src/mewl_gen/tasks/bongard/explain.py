"""Why a Bongard problem's tests fall where they do, from its files as its file-only checker reads them:
the concept's program evaluated on every panel's ground truth."""
from __future__ import annotations

from ..stored import StoredItem
from .concepts import holds, panel_of_image
from .solver import NAMES, NEGATIVES, POSITIVES, TESTS


def why(stored: StoredItem) -> tuple[str, ...]:
    item = stored.item()
    sides = {**{n: "a positive" for n in POSITIVES}, **{n: "a negative" for n in NEGATIVES},
             **{n: "a test, positive" if p else "a test, negative" for n, p in zip(TESTS, item.test_positive)}}
    lines = [f"The concept: {item.concept.words()} (complexity {item.complexity})."]
    for name in NAMES:
        truth = stored.image_truth(name)
        if truth is not None:
            verdict = "holds" if holds(item.concept, panel_of_image(truth.as_json())) else "does not hold"
            lines.append(f"{name} ({sides[name]}): the concept {verdict}.")
    return tuple(lines)
