"""The one evaluator: does a logical form agree with a scene? (the only source of labels)

Semantics, stated once (docs/shapeworld.md repeats them):
- a description matches an object when every stated attribute is equal;
- exists: some object matches subject and predicate together;
- relation: some subject x and some other object y with x in direction rel of
  y (CLEVR: dot(x - y, dir[rel]) > 0, the camera's ground directions);
  "the D" (a definite description) is Russell's: exactly one object matches
  D, and it is the x (or y); with two or none the statement is false. The
  sampler only draws scenes where every definite description of a caption and
  its near miss has exactly one referent (`presupposed`), so no label turns on
  a failed presupposition;
- quantifiers count R (restrictor matches) and RS (restrictor and scope):
  no: RS = 0; exactly n: RS = n; at least n: RS >= n;
  most: RS > R / 2 (more than half: a tie is false, and so is R = 0);
  all: R >= 1 and RS = R (no objects of the kind: false, existential import);
- not, and, or: as in logic.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mewl_gen.scenes.relations import offset_table
from mewl_gen.scenes.spec import ObjectSpec, SceneSpec

from .logic import Connective, Description, Exists, Not, Quantified, Relation


def matches(d: Description, obj) -> bool:
    return all(getattr(obj, a) == v for a, v in d.stated.items())


def quantify(quantifier: str, number: int | None, restricted: int, both: int) -> bool:
    """The quantifier's truth from the counts R (restricted) and RS (both)."""
    if quantifier == "no":
        return both == 0
    if quantifier == "exactly":
        return both == number
    if quantifier == "at-least":
        return both >= number
    if quantifier == "most":
        return 2 * both > restricted
    if quantifier == "all":
        return restricted >= 1 and both == restricted
    raise ValueError(f"unknown quantifier {quantifier!r}")


class World:
    """The objects of one scene, with their pairwise offsets along the camera's directions."""

    def __init__(self, objects: Sequence[ObjectSpec], table: dict[str, np.ndarray] | None = None):
        self.objects = tuple(objects)
        self.table = table  # None: a scene without positions yet; relations cannot be evaluated

    @classmethod
    def of(cls, scene: SceneSpec) -> "World":
        return cls(scene.objects, offset_table(scene.camera, scene.objects))

    def which(self, d: Description) -> list[int]:
        return [i for i, o in enumerate(self.objects) if matches(d, o)]

    def related(self, x: int, rel: str, y: int, margin: float = 0.0) -> bool:
        """x lies more than `margin` in direction rel of y (a negative margin: not clearly the other way)."""
        if self.table is None:
            raise ValueError("a relation needs the objects' positions")
        return x != y and self.table[rel][x, y] > margin


def holds(form, world: World) -> bool:
    """Whether the statement agrees with the world."""
    if isinstance(form, Exists):
        return bool(world.which(form.subject.joined(form.predicate)))
    if isinstance(form, Relation):
        subjects, objects = _referents(form, world)
        return any(world.related(x, form.relation, y) for x in subjects for y in objects)
    if isinstance(form, Quantified):
        restricted = world.which(form.restrictor)
        both = world.which(form.restrictor.joined(form.scope))
        return quantify(form.quantifier, form.number, len(restricted), len(both))
    if isinstance(form, Not):
        return not holds(form.part, world)
    if isinstance(form, Connective):
        values = [holds(p, world) for p in form.parts]
        return all(values) if form.kind == "and" else any(values)
    raise TypeError(f"not a logical form: {form!r}")


def possible(form, world: World) -> set[bool]:
    """The values the statement can take once the objects are placed: a
    relation between objects that exist may go either way (the sampler
    rejects object lists before placing them with this)."""
    if isinstance(form, Relation):
        subjects, objects = _referents(form, world)
        return {True, False} if any(x != y for x in subjects for y in objects) else {False}
    if isinstance(form, Not):
        return {not v for v in possible(form.part, world)}
    if isinstance(form, Connective):
        first, second = (possible(p, world) for p in form.parts)
        join = all if form.kind == "and" else any
        return {join((a, b)) for a in first for b in second}
    return {holds(form, world)}


def _referents(form: Relation, world: World) -> tuple[list[int], list[int]]:
    """The objects the subject and the object may be: every match of an
    indefinite description, the one match of a definite one (none unless unique)."""
    def of(determiner: str, d: Description) -> list[int]:
        found = world.which(d)
        return found if determiner == "a" or len(found) == 1 else []
    return of(form.subject_determiner, form.subject), of(form.object_determiner, form.object)


def presupposed(form, world: World) -> bool:
    """Every definite description of the statement has exactly one referent."""
    return all(len(world.which(d)) == 1 for r in _relations(form) for d in r.definites())


def stated_pairs(form, world: World) -> list[tuple[int, int]]:
    """Every (subject, object) pair a relation in the statement is about:
    these must be separated by the margin, so no near-tie decides a label."""
    return [(x, y) for atom in _relations(form) for x in world.which(atom.subject)
            for y in world.which(atom.object) if x != y]


def _relations(form) -> list[Relation]:
    if isinstance(form, Relation):
        return [form]
    if isinstance(form, Not):
        return _relations(form.part)
    if isinstance(form, Connective):
        return [r for p in form.parts for r in _relations(p)]
    return []
