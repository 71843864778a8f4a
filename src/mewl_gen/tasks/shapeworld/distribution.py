"""Distributions the experimenter controls: held-out combinations (a JSON file).

A combination held out never occurs in a scene or caption of any split but
"test", and every item of a split named "test" uses one. Three kinds:
- attributes ("red cube"): an object with all the values; in a caption, a
  description (a subject with its predicate, a restrictor with its scope)
  stating all of them;
- relation ("sphere left of cube"): an object matching `subject` in that
  direction of one matching `object` (in a scene); a caption relating such
  descriptions, either way round ("cube right of sphere" is the same fact);
- quantifier ("most with glass"): a caption quantifying with it over a
  restrictor and scope that state the values (quantifiers are not in scenes).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field, ValidationError, field_validator

from mewl_gen.scenes.relations import RELATION_MARGIN
from mewl_gen.scenes.spec import SpecError, first_error, read_json
from mewl_gen.scenes.universe import OPPOSITE, Direction, attribute_of

from .evaluate import World
from .logic import RELATION_WORDS, Description, Form, Quantified, Quantifier, Relation, atoms, phrases

TEST_SPLIT = "test"  # the split made of held-out combinations


def _values(values: tuple[str, ...]) -> tuple[str, ...]:
    kinds = [attribute_of(v) for v in values]
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"{' '.join(values)!r} states one attribute twice")
    return values


def _describes(values: tuple[str, ...]) -> Description:
    return Description(**{attribute_of(v): v for v in values})


def _states(d: Description, values: tuple[str, ...]) -> bool:
    stated = set(d.stated.values())
    return set(values) <= stated


class AttributeCombination(Form):
    kind: Literal["attributes"] = "attributes"
    values: tuple[str, ...] = Field(min_length=2, max_length=4)
    _check = field_validator("values")(classmethod(lambda cls, v: _values(v)))

    def label(self) -> str:
        return " ".join(self.values)

    def in_caption(self, form) -> bool:
        return any(_states(d, self.values) for d in phrases(form))

    def in_scene(self, world: World, margin: float = 0.0) -> bool:
        return bool(world.which(_describes(self.values)))


class RelationCombination(Form):
    kind: Literal["relation"] = "relation"
    subject: tuple[str, ...] = Field(min_length=1, max_length=4)
    relation: Direction
    object: tuple[str, ...] = Field(min_length=1, max_length=4)
    _check = field_validator("subject", "object")(classmethod(lambda cls, v: _values(v)))

    def label(self) -> str:
        return f"{' '.join(self.subject)} {RELATION_WORDS[self.relation]} {' '.join(self.object)}"

    def in_caption(self, form) -> bool:
        ways = ((self.subject, self.relation, self.object), (self.object, OPPOSITE[self.relation], self.subject))
        return any(isinstance(a, Relation) and a.relation == rel and _states(a.subject, s) and _states(a.object, o)
                   for a in atoms(form) for s, rel, o in ways)

    def in_scene(self, world: World, margin: float = 0.0) -> bool:
        objects = world.which(_describes(self.object))
        return any(world.related(x, self.relation, y, margin) for x in world.which(_describes(self.subject))
                   for y in objects)


class QuantifierCombination(Form):
    kind: Literal["quantifier"] = "quantifier"
    quantifier: Quantifier
    values: tuple[str, ...] = Field(min_length=1, max_length=4)
    _check = field_validator("values")(classmethod(lambda cls, v: _values(v)))

    def label(self) -> str:
        return f"quantifier {self.quantifier} with {' '.join(self.values)}"

    def in_caption(self, form) -> bool:
        return any(isinstance(a, Quantified) and a.quantifier == self.quantifier
                   and _states(a.restrictor.joined(a.scope), self.values) for a in atoms(form))

    def in_scene(self, world: World, margin: float = 0.0) -> bool:
        return False  # a scene holds objects, not quantifiers


Combination = Annotated[Union[AttributeCombination, RelationCombination, QuantifierCombination],
                        Field(discriminator="kind")]


class Distribution(Form):
    """The dataset-wide configuration of ShapeWorld: which combinations make up the test split."""

    name: str = Field(min_length=1, description="what is held out, in a few words")
    held_out: tuple[Combination, ...] = Field(min_length=1)

    def in_caption(self, form) -> tuple:
        return tuple(c for c in self.held_out if c.in_caption(form))

    def in_scene(self, world: World) -> tuple:
        """The combinations the scene shows plainly (a relation by more than the margin)."""
        return tuple(c for c in self.held_out if c.in_scene(world, RELATION_MARGIN))

    def near_scene(self, world: World) -> tuple:
        """The combinations the scene shows or nearly shows (a relation within the margin of a tie):
        what a split without held-out combinations must be clear of."""
        return tuple(c for c in self.held_out if c.in_scene(world, -RELATION_MARGIN))


def load_distribution(path) -> Distribution:
    """A distribution file; ValueError in one line naming what is wrong."""
    path = Path(path)
    try:
        data = read_json(path)[1]  # a regular file of a bounded size, JSON of a bounded depth
    except SpecError as err:
        raise ValueError(f"distribution file: {err}") from None
    try:
        return Distribution.model_validate(data)
    except ValidationError as err:
        raise ValueError(f"distribution file {path}: {first_error(err)}") from None
