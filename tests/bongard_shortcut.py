"""How often a solver that sees only per-image object counts, or only each
image's color histogram, answers a Bongard problem's two test images right.

    python -m tests.bongard_shortcut TASK N     # e.g. bongard-abstract 200

Each solver averages its feature over the six context positives and the six
context negatives and calls positive the test image nearer the positives'
mean than the negatives' (a tie: the second one shown). The histogram is the
scene's colors weighted by object area, what an image's color histogram sees
near enough (from the specs, not the pixels)."""
from __future__ import annotations

import sys

import numpy as np

from scenes.universe import COLORS
from tasks.bongard.problem import NEGATIVES, POSITIVES, BongardItem


def count(spec) -> np.ndarray:
    return np.array([len(spec.objects)], float)


def histogram(spec) -> np.ndarray:
    h = np.zeros(len(COLORS))
    for o in spec.objects:
        h[COLORS.index(o.color)] += o.scale ** 2
    return h / h.sum()


SOLVERS = {"count": count, "histogram": histogram}


def right(item: BongardItem, feature) -> bool:
    """Whether the solver on this feature answers both test images right."""
    scenes = item.scenes()
    mp = np.mean([feature(scenes[n]) for n in POSITIVES[:-1]], axis=0)
    mn = np.mean([feature(scenes[n]) for n in NEGATIVES[:-1]], axis=0)

    def score(spec) -> float:  # nearer the positives' mean than the negatives'
        f = feature(spec)
        return float(np.linalg.norm(f - mn) - np.linalg.norm(f - mp))

    first, second = (scenes[n] for n in item.test_order)
    return (score(first) > score(second)) == (item.test_order[0] == POSITIVES[-1])


def main(task: str, n: int) -> None:
    from tasks import sample_item

    items = [sample_item(task, 0, "train", i) for i in range(n)]
    first = sum(item.test_order[0] == POSITIVES[-1] for item in items)
    scores = {name: sum(right(item, f) for item in items) / n for name, f in SOLVERS.items()}
    print(f"{task}, {n} problems: positive test shown first {first}; "
          + ", ".join(f"{name}-only solver {s:.3f}" for name, s in scores.items()))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
