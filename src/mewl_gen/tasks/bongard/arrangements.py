"""Free-form figures made by placement actions: the 3D counterpart of Bongard-LOGO's stroke programs.

A program is a sequence of turns (degrees, left positive seen from above,
each one of TURNS); tracing it places an object, takes a unit step, and
before every further step turns by the next turn: n - 2 turns place n
objects. A panel *follows* a program when its objects' ground points are the
traced points up to rotation, translation and scale (never mirroring), in
whatever order the objects are listed: the concept is the figure a viewer
sees, not the order it was drawn in. A program and its reverse draw one
figure; `canonical` picks one of the two, so a figure has one program.
`read` takes a program back from points in the order listed (the order
placed, which the renderer's `<name>.json` keeps). Pure: no bpy.
"""
from __future__ import annotations

import hashlib
import math
from typing import Sequence

import numpy as np

TURNS = (-120, -90, -60, -30, 0, 30, 60, 90, 120)  # 150 and 180 would put an object on its neighbour's
GRID = 30  # every turn is a multiple of this
TURN_TOLERANCE = 8.0  # degrees, when reading a program back
STEP_TOLERANCE = 0.1  # relative to the first step, when reading a program back
MATCH_TOLERANCE = 0.1  # in steps: a panel follows a program when its points lie this close to the figure
DISTINCT = 0.35  # in steps: how far a negative's figure lies from the positive's (and from its mirror image)
SPACING = 0.99  # in steps: every two objects of a figure at least this far apart

Point = tuple[float, float]


def encode(turns: Sequence[int]) -> str:
    """'+30 -90 +0': the program as item.json's concept stores it."""
    return " ".join(f"{t:+d}" for t in turns)


def decode(program: str) -> tuple[int, ...]:
    return tuple(int(t) for t in program.split())


def reverse(turns: Sequence[int]) -> tuple[int, ...]:
    """The same figure drawn from its other end: every turn the other way, in reverse order."""
    return tuple(-t for t in reversed(turns))


def canonical(turns: Sequence[int]) -> tuple[int, ...]:
    return min(tuple(turns), reverse(turns))


def trace(turns: Sequence[int], heading: float = 0.0, step: float = 1.0) -> list[Point]:
    """The points the program visits from the origin, first heading `heading` degrees."""
    points, (x, y) = [(0.0, 0.0)], (0.0, 0.0)
    h = math.radians(heading)
    for turn in (0,) + tuple(turns):
        h += math.radians(turn)
        x, y = x + step * math.cos(h), y + step * math.sin(h)
        points.append((x, y))
    return points


def _complex(points: Sequence[Point]) -> np.ndarray:
    return np.array([complex(x, y) for x, y in points])


def deviation(points: Sequence[Point], figure: Sequence[Point]) -> float:
    """How far the points are from the figure, in units of the figure's first step: the least, over the
    similarity maps (rotation, scale, translation) taking two of the points onto the figure's first two,
    of the Hausdorff distance between the mapped points and the figure; inf when the counts differ."""
    p, q = _complex(points), _complex(figure)
    if len(p) != len(q) or len(p) < 2:
        return math.inf
    unit = abs(q[1] - q[0])
    best = math.inf
    for i in range(len(p)):
        for j in range(len(p)):
            if i == j or p[j] == p[i]:
                continue
            a = (q[1] - q[0]) / (p[j] - p[i])
            d = np.abs((a * (p - p[i]) + q[0])[:, None] - q[None, :])
            best = min(best, max(d.min(axis=0).max(), d.min(axis=1).max()) / unit)
    return float(best)


def follows(points: Sequence[Point], program: str) -> bool:
    return deviation(points, trace(decode(program))) <= MATCH_TOLERANCE


def mirrored(points: Sequence[Point]) -> list[Point]:
    return [(x, -y) for x, y in points]


def distinct(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether no panel of one program's figure can follow the other, mirrored or not, by a wide margin."""
    fa, fb = trace(a), trace(b)
    return min(deviation(fb, fa), deviation(fa, fb), deviation(mirrored(fb), fa),
               deviation(fa, mirrored(fb))) > DISTINCT


def well_spaced(turns: Sequence[int]) -> bool:
    """No two objects of the figure closer than SPACING steps (no object on top of another)."""
    p = np.array(trace(turns))
    d = np.linalg.norm(p[:, None] - p[None, :], axis=-1)
    return bool(d[np.triu_indices(len(p), 1)].min() >= SPACING)


def figure_key(turns: Sequence[int]) -> str:
    """What every drawing of the figure shares (any order, rotation, scale or mirroring): its pairwise
    distances in steps, sorted; the held-out split hashes it, so a figure is on one side only."""
    p = np.array(trace(turns))
    d = np.linalg.norm(p[:, None] - p[None, :], axis=-1)[np.triu_indices(len(p), 1)]
    return " ".join(f"{x:.3f}" for x in sorted(d))


def held_out(turns: Sequence[int], share: float) -> bool:
    """Whether the figure belongs to the held-out share of all figures (a hash of its key)."""
    digest = hashlib.sha256(figure_key(turns).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < share


def read(points: Sequence[Point]) -> str | None:
    """The canonical program the points trace in the order listed, or None where they trace no program
    (a step unequal to the first, a turn off the grid)."""
    if len(points) < 3:
        return None
    p = _complex(points)
    legs = np.diff(p)
    if np.abs(legs).min() == 0 or np.abs(np.abs(legs) / abs(legs[0]) - 1).max() > STEP_TOLERANCE:
        return None
    turns = []
    for u, v in zip(legs, legs[1:]):
        angle = math.degrees(np.angle(v / u))
        t = GRID * round(angle / GRID)
        if abs(angle - t) > TURN_TOLERANCE or t not in TURNS:
            return None
        turns.append(int(t))
    return encode(canonical(turns))


def words(program: str) -> str:
    parts = [("none" if t == 0 else f"{'left' if t > 0 else 'right'} {abs(t)}") for t in decode(program)]
    return ("the objects stand at equal steps along a path whose turns are " + ", ".join(parts)
            + " (degrees; any rotation and scale)")
