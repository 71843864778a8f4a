"""Bongard problems drawn: a concept, seven positives, seven near misses, a proof of fairness.

1. A template of the family, then one of its concepts (item.problem_concepts).
2. Seven positive scenes: objects drawn from small per-scene palettes (so
   shared and distinct attributes both occur), biased towards the values the
   concept names, until the concept holds and one edit can break it.
3. Seven negatives, each a near miss: a fresh positive drawn the same way, with the same number of
   objects, changed by one edit that breaks the concept, which may leave no marker (docs/bongard.md):
   - a concept that names values: two values of one attribute exchanged throughout the scene (shape in
     bongard-basic, shape or material in bongard-abstract): the negative is its positive up to the values'
     names, so every count statistic of the panel is a positive's, and each object keeps its color and
     size (in basic its material too), so each color's area is a positive's;
   - a concept that reads only how objects share values (concepts.SHARING), which no exchange changes, or
     'every object is a cube', which one breaks only by leaving no cube (concepts.TURNED): one object's
     shape or material changed, or two objects' colors (of one size) or sizes (of one color) swapped; its
     negation is drawn as often, with the sides of the same draws turned over;
   - a positional concept: both sides' objects are drawn alike, placeable either way; placement decides.
4. Placement (every pair apart along the axis a positional concept reads);
   then the library proof (concept_library.unfair); a problem that
   fails it is drawn again, a bounded number of times.
5. The test scenes: a coin of the item's generator says whether test_a or
   test_b is the positive one. The record says which edit made each context
   negative, not the negative test's: the test scene that edit could have
   left (object i of shape Y) would be the negative one.
bongard-freeform draws its two programs and its scenes in freeform.py.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations, permutations
from typing import NamedTuple

import numpy as np

from mewl_gen.scenes.draws import OutOfDraws, redraw
from mewl_gen.scenes.placement import PlacementError, place_scene
from mewl_gen.scenes.quick_draws import QuickDraws
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, attribute_of

from ..benchmark import Draw
from ..seeds import draw_seed
from . import freeform
from .concept_library import unfair
from .concepts import TURNED, Concept, Panel, holds, unnegated
from .item import EXCHANGED, SIDE, BongardItem, apart, axis, objects_range, panel, problem_concepts

PROBLEM_DRAWS = 30  # whole sets of fourteen scenes per concept
MENTIONED = 0.7  # chance that a value the concept names joins a scene's palette
PLACEMENT_ATTEMPTS = 150


class Thing(NamedTuple):
    shape: str
    color: str
    material: str
    size: str


@lru_cache(maxsize=None)
def _attributes(t: Thing) -> dict[str, str]:
    """An object's attributes as a panel reads them: one dict for each of the universe's objects, read only."""
    return t._asdict()


def unplaced(things: list[Thing]) -> Panel:
    """A panel before placement: positional concepts are not asked of it."""
    return Panel(tuple(map(_attributes, things)), {})


@lru_cache(maxsize=1024)
def _named_values(c: Concept) -> tuple[str, ...]:
    flat = [x for a in c.args for x in (a if isinstance(a, tuple) else (a,))]
    return tuple(v for v in flat if isinstance(v, str) and v not in ATTRIBUTES)


@lru_cache(maxsize=1024)
def _named_by_attribute(c: Concept) -> tuple[tuple[str, ...], ...]:
    """The values the concept names, of each attribute in tuple order (a value named twice, twice)."""
    named = _named_values(c)
    return tuple(tuple(v for v in named if attribute_of(v) == a) for a in TUPLE_ORDER)


def _things(q: QuickDraws, c: Concept, n: int) -> list[Thing]:
    """Objects from small per-scene palettes: q draws from the item's generator (a redraw loop opens it once,
    _drawing_things)."""
    palettes = []
    for a, named in zip(TUPLE_ORDER, _named_by_attribute(c)):
        values = ATTRIBUTES[a]
        chosen = q.choice(values, q.integers(1, len(values) + 1))
        chosen += [v for v in named if v not in chosen and q.random() < MENTIONED]
        palettes.append(chosen)
    s, k, m, z = palettes  # each object draws its shape, color, material and size, in that order
    return [Thing(s[q.integers(0, len(s))], k[q.integers(0, len(k))], m[q.integers(0, len(m))],
                  z[q.integers(0, len(z))]) for _ in range(n)]


def _drawing_things(rng: np.random.Generator, c: Concept, n: int, ok, what: str) -> list[Thing]:
    """Objects redrawn until ok accepts them: drawn thousands of times for a problem, so NumPy's draws
    without its cost per call (QuickDraws), one block for the whole loop (ok draws nothing)."""
    with QuickDraws(rng) as q:
        return redraw(lambda: _things(q, c, n), ok, what)


class Edit(NamedTuple):
    words: str  # what the record says of it
    things: list[Thing]  # the objects it leaves
    undone: str  # the words of the edit back


def _exchanges(things: list[Thing], attributes: tuple[str, ...], both_shown: bool) -> list[Edit]:
    """Every exchange of two values of one attribute throughout the scene (every cube made a sphere and every
    sphere a cube), both of them shown or only one: the scene is the same up to the two values' names."""
    out = []
    for a in attributes:
        shown = {getattr(t, a) for t in things}
        for u, v in combinations(ATTRIBUTES[a], 2):
            if (u in shown) + (v in shown) == (2 if both_shown else 1):
                other = {u: v, v: u}
                words = f"{a}s {u} and {v} exchanged"
                out.append(Edit(words, [t._replace(**{a: other.get(getattr(t, a), getattr(t, a))}) for t in things],
                                words))
    return out


def _object_edits(things: list[Thing]) -> list[Edit]:
    """Every change of one object's shape or material, and every swap of two objects' colors (of one size)
    or sizes (of one color): the object count and each color's area stay."""
    out = []
    for i, t in enumerate(things):
        for a in ("shape", "material"):
            for v in ATTRIBUTES[a]:
                u = getattr(t, a)
                if v != u:
                    changed = things[:i] + [t._replace(**{a: v})] + things[i + 1:]
                    out.append(Edit(f"object {i}: {a} {u} -> {v}", changed, f"object {i}: {a} {v} -> {u}"))
    for a, kept in (("color", "size"), ("size", "color")):
        for i, j in combinations(range(len(things)), 2):
            x, y = things[i], things[j]
            if getattr(x, a) != getattr(y, a) and getattr(x, kept) == getattr(y, kept):
                swapped = list(things)
                swapped[i], swapped[j] = x._replace(**{a: getattr(y, a)}), y._replace(**{a: getattr(x, a)})
                words = f"objects {i} and {j}: {a}s swapped"
                out.append(Edit(words, swapped, words))
    return out


def _edits(things: list[Thing], c: Concept, task: str) -> tuple[list[Edit], ...]:
    """The one-step changes a near miss of the concept is drawn from, in tiers: the first tier with one that
    breaks it. A concept that names values: exchanges of two values (item.EXCHANGED), which keep every count
    statistic of the scene; two values it shows where one of those breaks it (its negative shows the same
    values), else a shown one and another. A TURNED concept, which no exchange breaks fairly: one object's
    change; its problems are about it or its negation alike."""
    if c.kind in TURNED:
        return (_object_edits(things),)
    return tuple(_exchanges(things, EXCHANGED[task], both) for both in (True, False))


@lru_cache(maxsize=None)
def _orders(n: int) -> tuple[dict[str, list[list[int]]], ...]:
    """The relationship table of every order of n objects along one axis (left = front, right = behind)."""
    tables = []
    for order in permutations(range(n)):
        before = [list(order[:order.index(i)]) for i in range(n)]
        after = [list(order[order.index(i) + 1:]) for i in range(n)]
        tables.append({"left": before, "right": after, "front": before, "behind": after})
    return tuple(tables)


def _either_way(c: Concept, things: list[Thing]) -> bool:
    """Some order of the objects along the concept's axis satisfies it and some order does not."""
    objects = tuple(map(_attributes, things))
    seen = set()
    for table in _orders(len(things)):
        seen.add(holds(c, Panel(objects, table)))
        if len(seen) == 2:
            return True
    return False


def _placeable(rng, c: Concept, n: int) -> list[Thing]:
    """Objects that placement alone makes satisfy a positional concept, or fail it: both sides' objects are
    drawn so, and only where they stand tells them apart."""
    return _drawing_things(rng, c, n, lambda t: _either_way(c, t), "objects")


def _positive(rng, c: Concept, n: int) -> list[Thing]:
    if c.positional:
        return _placeable(rng, c, n)
    return _drawing_things(rng, c, n, lambda t: holds(c, unplaced(t)), "positive objects")


def _breakable(rng, c: Concept, n: int, task: str) -> tuple[list[Thing], Edit]:
    """A positive of n objects that one edit can break, and that edit: positives and the scenes negatives
    are made from are drawn alike, so nothing but the concept tells the sides apart (a positive with
    two red cubes, which one edit cannot break, would make red commoner among positives)."""
    if c.positional:
        words = "objects placed so the concept fails"
        return _placeable(rng, c, n), Edit(words, _placeable(rng, c, n), words)

    def attempt():
        things = _positive(rng, c, n)
        breaking = ([e for e in tier if not holds(c, unplaced(e.things))] for tier in _edits(things, c, task))
        edits = next((tier for tier in breaking if tier), [])
        return things, edits[int(rng.integers(len(edits)))] if edits else None

    return redraw(attempt, lambda drawn: drawn[1] is not None, "near miss")


def _sides(rng, c: Concept, counts: list[int], task: str) -> tuple[list, list, tuple[str, ...]]:
    """Seven positives and seven near misses, each of a fresh breakable positive. For 'not c' the sides turn
    over: its positives are c's near misses, its negatives c's positives, each one edit (undone) from one."""
    concept, kept = unnegated(c)
    shown = [_breakable(rng, concept, n, task) for n in counts]
    made = [_breakable(rng, concept, n, task) for n in counts]
    if kept:
        return [t for t, _ in shown], [e.things for _, e in made], tuple(e.words for _, e in made)
    return [e.things for _, e in shown], [t for t, _ in made], tuple(e.undone for _, e in made)


def _place(rng, c: Concept, things: list[Thing], positive: bool):
    if not c.positional:
        return place_scene(draw_seed(rng), things)
    return place_scene(draw_seed(rng), things, max_attempts=PLACEMENT_ATTEMPTS,
                       accept=lambda s: apart(s, axis(c)) and holds(c, panel(s)) == positive)


def _problem(rng, c: Concept, task: str):
    lo, hi = objects_range(c)
    counts = [int(rng.integers(lo, hi + 1)) for _ in range(SIDE)]
    pos, neg, misses = _sides(rng, c, counts, task)
    early = unfair(c, [unplaced(t) for t in pos[:-1]], [unplaced(t) for t in neg[:-1]],
                   [(unplaced(pos[-1]), True), (unplaced(neg[-1]), False)], positions=False)
    if early:
        return None
    try:
        pos_specs = [_place(rng, c, t, True) for t in pos]
        neg_specs = [_place(rng, c, t, False) for t in neg]
    except PlacementError:
        return None
    p, q = [panel(s) for s in pos_specs], [panel(s) for s in neg_specs]
    if unfair(c, p[:-1], q[:-1], [(p[-1], True), (q[-1], False)]):
        return None
    return pos_specs, neg_specs, misses


def _arranged(rng, split: str):
    """A freeform problem: two programs (freeform.programs), seven figures of each."""
    turns, other = freeform.programs(rng, split)
    c = freeform.program_concept(turns)
    for _ in range(PROBLEM_DRAWS):
        pos = [freeform.scene(rng, turns) for _ in range(SIDE)]
        neg = [freeform.scene(rng, other) for _ in range(SIDE)]
        p, q = [panel(s) for s in pos], [panel(s) for s in neg]
        if not unfair(c, p[:-1], q[:-1], [(p[-1], True), (q[-1], False)]):
            return c, (pos, neg, (freeform.near_miss(turns, other),) * SIDE)
    raise OutOfDraws(f"no fair problem for '{c.words()}' in {PROBLEM_DRAWS} draws")


def _concept_problem(rng, task: str):
    concepts = problem_concepts(task)
    kinds = sorted(concepts)
    options = concepts[kinds[int(rng.integers(len(kinds)))]]
    c = options[int(rng.integers(len(options)))]
    for _ in range(PROBLEM_DRAWS):
        try:
            drawn = _problem(rng, c, task)
        except OutOfDraws:
            drawn = None
        if drawn is not None:
            return c, drawn
    raise OutOfDraws(f"no fair problem for '{c.words()}' in {PROBLEM_DRAWS} draws")


def sample(rng: np.random.Generator, d: Draw) -> BongardItem:
    c, (pos_specs, neg_specs, misses) = (_arranged(rng, d.split) if d.task == "bongard-freeform"
                                         else _concept_problem(rng, d.task))
    positive_first = bool(rng.integers(2))  # which test scene, test_a or test_b, is the positive one
    tests = (pos_specs[-1], neg_specs[-1]) if positive_first else (neg_specs[-1], pos_specs[-1])
    # The context negatives' edits only: the negative test's names the object it changed, and of the two
    # test scenes only that one surely shows the value it gave there.
    return BongardItem(task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry,
                       concept=c, description=c.words(), complexity=c.complexity, positives=tuple(pos_specs[:-1]),
                       negatives=tuple(neg_specs[:-1]), tests=tests, test_positive=(positive_first, not positive_first),
                       near_misses=misses[:-1])
