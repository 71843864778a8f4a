"""bongard-freeform: figures drawn by action programs, as Bongard-LOGO's free-form shapes are.

1. Two programs of the same size (arrangements.py): one drawn at random, the
   other the same with one turn changed by 60 degrees or more, their figures
   far apart (mirrored too). Both are of the split's share of figures: the
   split `test` draws only held-out figures (a hash of the figure), every
   other split only the rest, so no test concept is ever seen in training.
2. A fair coin says which of the two is the concept: positives and negatives
   are drawn alike (every figure of one, every figure of the other), so no
   classifier of single panels that never sees a problem's examples can
   tell the sides apart.
3. Each panel: the program traced at a drawn heading and step (its free
   parameters), centred on the stage, small objects of drawn attributes.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import PlacementError, place_scene
from mewl_gen.scenes.universe import COLORS, MATERIALS, SHAPES

from ..seeds import draw_seed
from . import arrangements
from .concepts import Concept

OBJECTS = (4, 6)  # objects per figure
STEP = (1.3, 1.6)  # scene units between consecutive objects: small objects, clear of each other
REACH = 2.6  # every object centre this close to the stage's middle
HELD_OUT = 0.25  # the share of figures only the split `test` shows
HELD_OUT_SPLIT = "test"
CHANGE = 60  # degrees: the least change of the one turn the other program differs in
PLACEMENT_ATTEMPTS = 40
PAIR_DRAWS = 3000  # a held-out pair is both programs in a quarter of the figures: cheap draws, often rejected
FITS_TRIES = 24  # headings tried when asking whether a figure fits the stage at all


def program_concept(turns) -> Concept:
    return Concept(kind="program", args=(arrangements.encode(arrangements.canonical(turns)),))


def in_split(turns, split: str) -> bool:
    return arrangements.held_out(turns, HELD_OUT) == (split == HELD_OUT_SPLIT)


def _centred(turns, heading: float, step: float) -> np.ndarray | None:
    raw = np.array(arrangements.trace(turns, heading, step))
    centred = raw - (raw.max(axis=0) + raw.min(axis=0)) / 2
    return None if np.abs(centred).max() > REACH else centred


def usable(turns, split: str) -> bool:
    """Of the split's share, no object on another, and the figure fits the stage at some heading."""
    return (in_split(turns, split) and arrangements.well_spaced(turns)
            and any(_centred(turns, h, STEP[0]) is not None for h in np.linspace(0, 360, FITS_TRIES, endpoint=False)))


def _changed(rng: np.random.Generator, turns: tuple[int, ...]) -> tuple[int, ...]:
    k = int(rng.integers(len(turns)))
    options = [t for t in arrangements.TURNS if abs(t - turns[k]) >= CHANGE]
    return turns[:k] + (int(options[int(rng.integers(len(options)))]),) + turns[k + 1:]


def programs(rng: np.random.Generator, split: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the concept's program, the negatives' program), canonical, the concept chosen by a fair coin."""
    sizes = np.arange(OBJECTS[0], OBJECTS[1] + 1)
    weights = float(len(arrangements.TURNS)) ** (sizes - 2)  # every program of every size alike
    n = int(rng.choice(sizes, p=weights / weights.sum()))

    def pair():
        a = tuple(int(t) for t in rng.choice(arrangements.TURNS, size=n - 2))
        if not usable(a, split):
            return None
        b = _changed(rng, a)
        return (a, b) if usable(b, split) and arrangements.distinct(a, b) else None

    a, b = redraw(pair, lambda drawn: drawn is not None, "pair of programs", limit=PAIR_DRAWS)
    if rng.random() < 0.5:
        a, b = b, a
    return arrangements.canonical(a), arrangements.canonical(b)


NEAR_MISS = "the program {}: one turn of the concept's program changed"


def near_miss(concept: tuple[int, ...], other: tuple[int, ...]) -> str:
    return NEAR_MISS.format(arrangements.encode(other))


def near_miss_program(text: str) -> str | None:
    """The negatives' program a near miss names (near_miss), None for another text."""
    head, _, tail = NEAR_MISS.partition("{}")
    return text[len(head):len(text) - len(tail)] if text.startswith(head) and text.endswith(tail) else None


def _things(rng: np.random.Generator, n: int) -> list[tuple[str, str, str, str]]:
    return [(str(rng.choice(SHAPES)), str(rng.choice(COLORS)), str(rng.choice(MATERIALS)), "small") for _ in range(n)]


def scene(rng: np.random.Generator, turns: tuple[int, ...]):
    """The program's figure at a drawn heading and step, placed: a scene spec."""
    def draw():
        points = _centred(turns, float(rng.uniform(0, 360)), float(rng.uniform(*STEP)))
        if points is None:
            return None
        try:
            return place_scene(draw_seed(rng), _things(rng, len(points)), positions=[tuple(p) for p in points],
                               max_attempts=PLACEMENT_ATTEMPTS)
        except PlacementError:
            return None

    return redraw(draw, lambda spec: spec is not None, "figure")
