"""Drawing captions: a logical form per task, and its near miss.

A caption pair is drawn before any scene: a form and its near miss, which
differs from it by one element (an attribute value, the relation, the
quantifier or the number). The scene is drawn afterwards to
make one of the two true and the other false. Every near miss below can go
either way (neither form entails the other), so which of the two is shown
and whether it agrees are independent: the caption alone predicts nothing.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.universe import ATTRIBUTES, DIRECTIONS, OPPOSITE, TUPLE_ORDER

from .logic import COUNTED, NUMBERS, Connective, Description, Exists, Not, Quantified, Quantifier, Relation, atoms

QUANTIFIERS: tuple[str, ...] = Quantifier.__args__  # type: ignore[attr-defined]
DEFINITE = 0.3  # chance that a relation's subject (and, apart, its object) is said with "the"


def _pick(rng: np.random.Generator, values):
    return values[int(rng.integers(len(values)))]


def description(rng: np.random.Generator, count: int, exclude: tuple[str, ...] = ()) -> Description:
    """`count` attributes (none of `exclude`), each with a random value."""
    free = [a for a in TUPLE_ORDER if a not in exclude]
    chosen = rng.choice(len(free), size=count, replace=False)
    return Description(**{free[k]: _pick(rng, ATTRIBUTES[free[k]]) for k in sorted(chosen)})


def exists(rng: np.random.Generator) -> Exists:
    """'there is a red cube' or 'a glass sphere is small'."""
    subject = description(rng, int(rng.integers(1, 3)))
    if rng.random() < 0.5:
        return Exists(subject=subject)
    return Exists(subject=subject, predicate=description(rng, 1, tuple(subject.stated)))


def relation(rng: np.random.Generator) -> Relation:
    """'a red cube is left of a metal sphere', 'the big cylinder is behind a cube'."""
    subject, direction, obj = description(rng, int(rng.integers(1, 3))), _pick(rng, DIRECTIONS), \
        description(rng, int(rng.integers(1, 3)))
    the = rng.random(2) < DEFINITE
    return Relation(subject_determiner="the" if the[0] else "a", subject=subject, relation=direction,
                    object_determiner="the" if the[1] else "a", object=obj)


def quantified(rng: np.random.Generator) -> Quantified:
    """'most cubes are metal', 'at least three objects are glass'."""
    q = _pick(rng, QUANTIFIERS)
    restrictor = description(rng, int(rng.integers(0, 2)))
    return Quantified(quantifier=q, number=int(_pick(rng, NUMBERS)) if q in COUNTED else None,
                      restrictor=restrictor, scope=description(rng, 1, tuple(restrictor.stated)))


ATOMS = (exists, relation, quantified)


def logical(rng: np.random.Generator):
    """Two atoms joined by and/or, or one atom negated."""
    kind = _pick(rng, ("and", "or", "not"))
    if kind == "not":
        return Not(part=_pick(rng, ATOMS)(rng))
    return Connective(kind=kind, parts=(_pick(rng, ATOMS)(rng), _pick(rng, ATOMS)(rng)))


# -- near misses: one element changed ----------------------------------------

def _other_value(rng: np.random.Generator, d: Description, attribute: str) -> Description:
    values = [v for v in ATTRIBUTES[attribute] if v != getattr(d, attribute)]
    return Description(**{**d.stated, attribute: _pick(rng, values)})


def _description_changes(form, field: str) -> list:
    d = getattr(form, field)
    return [] if d is None else [(field, a) for a in d.stated]


def _atom_miss(rng: np.random.Generator, atom):
    """The atom with one element changed. A quantifier is only swapped with
    'no' (and the number only between 'exactly's): 'all' entails 'most' and
    'at least three' entails 'at least two', so those pairs could not go both ways."""
    fields = {Exists: ("subject", "predicate"), Relation: ("subject", "object"), Quantified: ("restrictor", "scope")}
    changes = [c for f in fields[type(atom)] for c in _description_changes(atom, f)]
    if isinstance(atom, Relation):
        changes.append(("relation", None))
    if isinstance(atom, Quantified):
        changes.append(("quantifier", None))
        if atom.quantifier == "exactly":
            changes.append(("number", None))
    field, attribute = _pick(rng, changes)
    if field == "relation":
        return atom.model_copy(update={"relation": OPPOSITE[atom.relation]})
    if field == "number":
        return atom.model_copy(update={"number": _pick(rng, [n for n in NUMBERS if n != atom.number])})
    if field == "quantifier":
        q = "no" if atom.quantifier != "no" else _pick(rng, QUANTIFIERS[1:])
        return Quantified(quantifier=q, number=int(_pick(rng, NUMBERS)) if q in COUNTED else None,
                          restrictor=atom.restrictor, scope=atom.scope)
    return atom.model_copy(update={field: _other_value(rng, getattr(atom, field), attribute)})


def near_miss(rng: np.random.Generator, form):
    """The form with exactly one element changed."""
    if isinstance(form, Not):
        return Not(part=_atom_miss(rng, form.part))
    if isinstance(form, Connective):
        k = int(rng.integers(2))
        parts = list(form.parts)
        parts[k] = _atom_miss(rng, parts[k])
        return form.model_copy(update={"parts": tuple(parts)})
    return _atom_miss(rng, form)


def redundant(form) -> bool:
    """'there is a cube and there is a cube': a statement joined with itself."""
    return isinstance(form, Connective) and form.parts[0] == form.parts[1]


def has_relation(form) -> bool:
    return any(isinstance(a, Relation) for a in atoms(form))
