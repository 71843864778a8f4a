"""ShapeWorld's captions: logical forms and the grammar that says them.

Every caption is generated as a logical form (a frozen pydantic model, stored
as JSON in item.json) and only then put into words by `say`; the evaluator
(tasks.shapeworld.evaluate) decides agreement from the form, never from the
words. Atoms are the paper's three kinds (existential, relational,
quantified); the logical task joins two atoms with and/or or negates one.
"""
from __future__ import annotations

from functools import cached_property
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mewl_gen.scenes.universe import TUPLE_ORDER, Color, Direction, Material, Shape, Size

Quantifier = Literal["no", "exactly", "at-least", "most", "all"]
Determiner = Literal["a", "the"]  # "the D": exactly one object matches D (Russell), which the sampler presupposes
COUNTED: tuple[str, ...] = ("exactly", "at-least")  # the quantifiers that take a number
NUMBERS = (1, 2, 3)
NUMBER_WORDS = {1: "one", 2: "two", 3: "three"}
# CLEVR's relation words, read "subject is <words> object".
RELATION_WORDS = {"left": "left of", "right": "right of", "front": "in front of", "behind": "behind"}
ADJECTIVE_ORDER = ("size", "color", "material")  # CLEVR's reading order before the noun


class Form(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Description(Form):
    """An object description: every stated attribute must match; no shape = 'object'."""

    shape: Optional[Shape] = None
    color: Optional[Color] = None
    material: Optional[Material] = None
    size: Optional[Size] = None

    @cached_property
    def stated(self) -> dict[str, str]:
        """Attribute -> value of every stated attribute (cached: the evaluator asks a lot;
        so a changed description is built anew, never by model_copy, which would copy the cache)."""
        return {a: getattr(self, a) for a in TUPLE_ORDER if getattr(self, a) is not None}

    def joined(self, other: "Description | None") -> "Description":
        """Both descriptions at once (a subject with its predicate)."""
        return self if other is None else Description(**{**self.stated, **other.stated})


class Exists(Form):
    """'there is a red cube' (no predicate) or 'a glass sphere is small': some subject has the predicate."""

    kind: Literal["exists"] = "exists"
    subject: Description
    predicate: Optional[Description] = None


class Relation(Form):
    """'a red cube is left of a metal sphere': some subject lies in `relation` from some other object;
    'the big cylinder is behind a cube': the one big cylinder there is lies behind some cube."""

    kind: Literal["relation"] = "relation"
    subject_determiner: Determiner = "a"
    subject: Description
    relation: Direction
    object_determiner: Determiner = "a"
    object: Description

    def definites(self) -> list[Description]:
        """The descriptions said with 'the'."""
        return [d for det, d in ((self.subject_determiner, self.subject), (self.object_determiner, self.object))
                if det == "the"]


class Quantified(Form):
    """'most cubes are metal': the quantifier over the restrictor's objects that are also the scope."""

    kind: Literal["quantifier"] = "quantifier"
    quantifier: Quantifier
    number: Optional[int] = Field(None, ge=1, le=max(NUMBERS))
    restrictor: Description
    scope: Description

    @model_validator(mode="after")
    def _number_iff_counted(self) -> "Quantified":
        if (self.number is not None) != (self.quantifier in COUNTED):
            raise ValueError(f"quantifier {self.quantifier!r} {'takes' if self.quantifier in COUNTED else 'takes no'} number")
        return self


Atom = Annotated[Union[Exists, Relation, Quantified], Field(discriminator="kind")]


class Not(Form):
    kind: Literal["not"] = "not"
    part: Atom


class Connective(Form):
    kind: Literal["and", "or"]
    parts: tuple[Atom, Atom]


Statement = Annotated[Union[Exists, Relation, Quantified, Not, Connective], Field(discriminator="kind")]


def atoms(form) -> list:
    """The atoms of a statement, in order."""
    if isinstance(form, Not):
        return [form.part]
    if isinstance(form, Connective):
        return list(form.parts)
    return [form]


def phrases(form) -> list[Description]:
    """The descriptions a statement is about, each subject also joined with its predicate."""
    out: list[Description] = []
    for a in atoms(form):
        if isinstance(a, Exists):
            out += [a.subject, a.subject.joined(a.predicate)]
        elif isinstance(a, Relation):
            out += [a.subject, a.object]
        else:
            out += [a.restrictor, a.restrictor.joined(a.scope)]
    return out


def referents(form, objects: list[dict]) -> list[int]:
    """The objects (attribute -> value) a statement is about: each matching a description it states."""
    stated = [d.stated for d in phrases(form) if d.stated]
    return [k for k, o in enumerate(objects) if any(all(o[a] == v for a, v in d.items()) for d in stated)]


# -- saying it ---------------------------------------------------------------

def noun_phrase(d: Description, plural: bool = False) -> str:
    words = [getattr(d, a) for a in ADJECTIVE_ORDER if getattr(d, a) is not None]
    noun = d.shape or "object"
    return " ".join(words + [noun + ("s" if plural else "")])


def indefinite(d: Description) -> str:
    phrase = noun_phrase(d)
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def determined(determiner: str, d: Description) -> str:
    """'a red cube' or 'the red cube'."""
    return indefinite(d) if determiner == "a" else f"the {noun_phrase(d)}"


def predicate(d: Description, plural: bool = False) -> str:
    """'is small', 'are red glass', 'is a cube', 'are cubes'."""
    verb = "are" if plural else "is"
    if d.shape is not None:
        return f"{verb} {noun_phrase(d, plural) if plural else indefinite(d)}"
    return f"{verb} {' '.join(getattr(d, a) for a in ADJECTIVE_ORDER if getattr(d, a) is not None)}"


def say(form) -> str:
    """The caption of a logical form."""
    if isinstance(form, Exists):
        if form.predicate is None:
            return f"there is {indefinite(form.subject)}"
        return f"{indefinite(form.subject)} {predicate(form.predicate)}"
    if isinstance(form, Relation):
        return (f"{determined(form.subject_determiner, form.subject)} is {RELATION_WORDS[form.relation]} "
                f"{determined(form.object_determiner, form.object)}")
    if isinstance(form, Quantified):
        q = form.quantifier
        if q == "no":
            return f"no {noun_phrase(form.restrictor)} {predicate(form.scope)}"
        head = {"exactly": "exactly", "at-least": "at least"}.get(q, q)
        count = f" {NUMBER_WORDS[form.number]}" if form.number is not None else ""
        plural = form.number != 1
        return f"{head}{count} {noun_phrase(form.restrictor, plural)} {predicate(form.scope, plural)}"
    if isinstance(form, Not):
        return f"it is not the case that {say(form.part)}"
    if isinstance(form, Connective):
        first, second = (say(p) for p in form.parts)
        return f"{first} and {second}" if form.kind == "and" else f"either {first} or {second}"
    raise TypeError(f"not a logical form: {form!r}")
