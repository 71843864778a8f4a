"""Arrangements made by placement actions: the 3D counterpart of Bongard-LOGO's stroke programs.

An arrangement is a program of actions, each a turn (degrees, left positive
seen from above) and a step (scene units) from the previous object to the
next; `trace` runs it into ground points, listed in the order placed (so a
rendered image's objects, listed in that order, give the program back).
The recognizers read the points alone: turns and steps between consecutive
objects (and, for a closed figure, from the last back to the first), with a
tolerance far below any perturbation the sampler makes. Pure: no bpy.
"""
from __future__ import annotations

import math
from typing import Sequence

TURN_TOLERANCE = 8.0  # degrees
STEP_TOLERANCE = 0.15  # relative to the median step
CHAIN_TURNS = (25.0, 45.0)  # a chain bends one way by this much at every object
ZIGZAG_TURNS = (50.0, 80.0)

Point = tuple[float, float]


def trace(start: Point, heading: float, turns: Sequence[float], steps: Sequence[float]) -> list[Point]:
    """The points an action program visits: before step k, turn by turns[k] degrees."""
    points, (x, y) = [start], start
    for turn, step in zip(turns, steps):
        heading += math.radians(turn)
        x, y = x + step * math.cos(heading), y + step * math.sin(heading)
        points.append((x, y))
    return points


def _turn(a: Point, b: Point, c: Point) -> float:
    h1, h2 = math.atan2(b[1] - a[1], b[0] - a[0]), math.atan2(c[1] - b[1], c[0] - b[0])
    return (math.degrees(h2 - h1) + 180.0) % 360.0 - 180.0


def turns(points: Sequence[Point], closed: bool = False) -> list[float]:
    """The turn at every inner object (at every object, for a closed figure)."""
    p = list(points) + (list(points[:2]) if closed else [])
    return [_turn(p[i], p[i + 1], p[i + 2]) for i in range(len(p) - 2)]


def steps(points: Sequence[Point], closed: bool = False) -> list[float]:
    p = list(points) + ([points[0]] if closed else [])
    return [math.dist(p[i], p[i + 1]) for i in range(len(p) - 1)]


def _even(points, closed: bool) -> bool:
    s = sorted(steps(points, closed))
    median = s[len(s) // 2]
    return all(abs(x - median) <= STEP_TOLERANCE * median for x in s)


def _near(value: float, target: float) -> bool:
    return abs(value - target) <= TURN_TOLERANCE


def is_row(points) -> bool:
    return len(points) >= 4 and _even(points, False) and all(_near(t, 0.0) for t in turns(points))


def is_ring(points) -> bool:
    n = len(points)
    return n >= 5 and _even(points, True) and all(_near(t, 360.0 / n) for t in turns(points, True))


def is_triangle(points) -> bool:
    """Six objects: the corners and the midpoints of an equilateral triangle's sides, in order."""
    if len(points) != 6 or not _even(points, True):
        return False
    t = turns(points, True)
    return any(all(_near(x, 120.0 if (k + shift) % 2 else 0.0) for k, x in enumerate(t)) for shift in (0, 1))


def _chain(points, sign: float) -> bool:
    lo, hi = CHAIN_TURNS
    return len(points) >= 4 and _even(points, False) and all(
        lo - TURN_TOLERANCE <= sign * t <= hi + TURN_TOLERANCE for t in turns(points))


def is_left_chain(points) -> bool:
    return _chain(points, 1.0)


def is_right_chain(points) -> bool:
    return _chain(points, -1.0)


def is_zigzag(points) -> bool:
    lo, hi = ZIGZAG_TURNS
    t = turns(points)
    return len(points) >= 5 and _even(points, False) and all(
        lo - TURN_TOLERANCE <= abs(x) <= hi + TURN_TOLERANCE for x in t) and all(
        a * b < 0 for a, b in zip(t, t[1:]))


RECOGNIZERS = {"row": is_row, "ring": is_ring, "triangle": is_triangle, "left-chain": is_left_chain,
               "right-chain": is_right_chain, "zigzag": is_zigzag}
WORDS = {"row": "the objects stand in a straight row, evenly spaced",
         "ring": "the objects stand in a closed ring, evenly spaced",
         "triangle": "the objects mark the corners and side midpoints of a triangle",
         "left-chain": "the objects form a chain that turns left at every object",
         "right-chain": "the objects form a chain that turns right at every object",
         "zigzag": "the objects form a zigzag, turning left and right by turns"}
