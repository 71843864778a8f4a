"""bongard-freeform: arrangements drawn as action programs; each negative perturbs one action.

A positive is the concept's program (scenes/arrangements.py) with drawn
lengths and angles, started at a drawn heading and centred on the stage; a
negative is a fresh program of the same concept with one action changed: a
row gets one bend, a ring or a triangle one step too long or too short (it no
longer closes), a chain one turn the other way, a zigzag one turn repeated.
Objects are small (the steps are short) and drawn at random: only the
arrangement tells the sides apart.
"""
from __future__ import annotations

import math

import numpy as np

from scenes.draws import redraw
from scenes.placement import PlacementError, place_scene
from scenes.universe import COLORS, MATERIALS, SHAPES

from ..seeds import draw_seed
from . import arrangements
from .concepts import Concept, holds
from .problem import panel

STEP = (1.3, 1.6)  # scene units between consecutive objects: small objects, clear of each other
REACH = 2.6  # every object centre this close to the stage's middle
PLACEMENT_ATTEMPTS = 40


def program(rng: np.random.Generator, kind: str) -> tuple[list[float], list[float]]:
    """(turns, steps) of one arrangement; turns[0] only sets off, it bends nothing."""
    step = float(rng.uniform(*STEP))
    if kind == "row":
        turns = [0.0] * int(rng.integers(3, 5))
    elif kind == "ring":
        n = int(rng.integers(5, 7))
        turns = [0.0] + [360.0 / n] * (n - 2)
        step = min(step, 2 * 2.1 * math.sin(math.pi / n))  # the ring's radius fits the stage
    elif kind == "triangle":
        turns = [0.0, 0.0, 120.0, 0.0, 120.0]
    elif kind in ("left-chain", "right-chain"):
        sign = 1.0 if kind == "left-chain" else -1.0
        turns = [0.0] + [sign * float(rng.uniform(*arrangements.CHAIN_TURNS)) for _ in range(int(rng.integers(2, 4)))]
    else:  # zigzag
        sign = float(rng.choice([-1.0, 1.0]))
        turns = [0.0] + [sign * (-1) ** k * float(rng.uniform(*arrangements.ZIGZAG_TURNS))
                         for k in range(int(rng.integers(3, 5)))]
    return turns, [step] * len(turns)


def perturb(rng: np.random.Generator, kind: str, turns: list[float], steps: list[float]):
    """One action changed: (what changed, turns, steps)."""
    turns, steps = list(turns), list(steps)
    if kind in ("ring", "triangle"):
        k = int(rng.integers(1, len(steps)))
        factor = float(rng.choice([0.6, 1.5]))
        steps[k] *= factor
        return f"action {k}: step x{factor}", turns, steps
    k = int(rng.integers(1, len(turns)))
    old = turns[k]
    if kind == "row":
        turns[k] = float(rng.choice([-1.0, 1.0]) * rng.uniform(30.0, 50.0))
    else:  # a chain or a zigzag: this turn the other way
        turns[k] = -old
    return f"action {k}: turn {old:.0f} -> {turns[k]:.0f} degrees", turns, steps


def _points(rng: np.random.Generator, turns, steps) -> list[tuple[float, float]] | None:
    raw = np.array(arrangements.trace((0.0, 0.0), float(rng.uniform(0, 360)), turns, steps))
    centred = raw - (raw.max(axis=0) + raw.min(axis=0)) / 2
    return None if np.abs(centred).max() > REACH else [tuple(p) for p in centred]


def _things(rng: np.random.Generator, n: int) -> list[tuple[str, str, str, str]]:
    return [(str(rng.choice(SHAPES)), str(rng.choice(COLORS)), str(rng.choice(MATERIALS)), "small") for _ in range(n)]


def scene(rng: np.random.Generator, c: Concept, positive: bool):
    """(what made it, spec): a placed arrangement on the side asked."""
    def draw():
        turns, steps = program(rng, c.kind)
        made = "the concept's program"
        if not positive:
            made, turns, steps = perturb(rng, c.kind, turns, steps)
        points = _points(rng, turns, steps)
        if points is None or arrangements.RECOGNIZERS[c.kind](points) != positive:
            return None
        try:
            return made, place_scene(draw_seed(rng), _things(rng, len(points)), positions=points,
                                     max_attempts=PLACEMENT_ATTEMPTS)
        except PlacementError:
            return None

    return redraw(draw, lambda d: d is not None and holds(c, panel(d[1])) == positive, "arrangement")
