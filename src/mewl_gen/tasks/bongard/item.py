"""A Bongard problem: six positives, six negatives, two test scenes; its families (validate.py checks one).

The context scenes are named as Bongard-LOGO's release numbers its images:
`pos_0` .. `pos_5` (its folder 0, the positive side) and `neg_0` .. `neg_5`
(folder 1). The two test scenes are named `test_a` and `test_b`, whichever
side each is on (a coin of the item's generator decides which one is the
positive): a file name or the order shown says nothing; `test_positive` in
item.json says which is which (docs/bongard.md).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field

from mewl_gen.scenes.relations import RELATION_MARGIN, offset_table, relationships
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ATTRIBUTES, attribute_of

from ..item import Item
from .concept_library import library
from .concepts import (ABSTRACT_TEMPLATES, BASIC_TEMPLATES, FREEFORM_TEMPLATES, TURNED, Concept, Panel, negation,
                       unnegated)

TaskName = Literal["bongard-basic", "bongard-abstract", "bongard-freeform"]
SIDE = 7  # six context scenes and one test scene of each side
CONTEXT = SIDE - 1
POSITIVES = tuple(f"pos_{i}" for i in range(CONTEXT))
NEGATIVES = tuple(f"neg_{i}" for i in range(CONTEXT))
TESTS = ("test_a", "test_b")
OBJECTS = (3, 5)  # objects per scene
DISTINCT_OBJECTS = (3, 3)  # 'no two objects share a shape': three of three shapes at most
ARRANGED_OBJECTS = (4, 6)  # freeform: figures of four to six objects (freeform.OBJECTS)
FAMILIES = {"bongard-basic": BASIC_TEMPLATES, "bongard-abstract": ABSTRACT_TEMPLATES,
            "bongard-freeform": FREEFORM_TEMPLATES}
# Templates whose truth is a function of one attribute's multiset: never about color, or an image's color
# histogram would carry the concept (the fairness bar; the near misses keep count and color areas).
MULTISET = ("same", "distinct", "all", "none", "exactly", "at-least", "most", "more", "equal", "kinds", "odd-one-out")
# What a near miss changes (sample.py): each object keeps its color and size, so each color's area is kept; in
# basic, shapes only (each object keeps its material too).
EXCHANGED = {"bongard-basic": ("shape",), "bongard-abstract": ("shape", "material")}
# The templates whose truth is which objects show each value they name (not positional).
NAMING = ("exists", "both", "all", "none", "exactly", "at-least", "most", "more", "equal", "implies")


def _values_attribute(arg) -> str:
    return arg if arg in ATTRIBUTES else attribute_of(arg)


def fair_to_histograms(c: Concept) -> bool:
    """The concept can be violated without changing the multiset of colors."""
    if c.kind == "distinct":  # three objects cannot differ in one of two sizes
        return c.args[0] in ("shape", "material")
    if c.kind in MULTISET:
        return _values_attribute(c.args[0]) != "color"
    if c.kind == "same-within":
        return c.args[1] != "color"
    if c.kind == "exists":
        return any(attribute_of(v) == "shape" for v in c.args[0])
    if c.kind == "both":  # two shape categories, each with one adjective at most
        return all(any(attribute_of(v) == "shape" for v in d) and len(d) <= 2 for d in c.args)
    return True


def edit_breaks(task: str, c: Concept) -> bool:
    """A near miss of the family can break the concept: it names a value of an attribute the near misses
    change (else none touches what it reads), or it is not about named values."""
    if c.kind not in NAMING:
        return True
    named = [v for a in c.args for v in (a if isinstance(a, tuple) else (a,)) if isinstance(v, str)]
    return any(attribute_of(v) in EXCHANGED[task] for v in named)


@lru_cache(maxsize=4)
def problem_concepts(task: str) -> dict[str, tuple[Concept, ...]]:
    """Template -> the concepts a problem of the family may be about (none for freeform: its programs are drawn,
    freeform.py). A TURNED concept comes with its negation, as likely as it: what it reads is a count
    statistic of a panel, which a model of single panels would learn were the positives always its side."""
    kinds = FAMILIES[task]
    out: dict[str, list[Concept]] = {k: [] for k in kinds}
    for c in library(5):
        if (c.kind in out and fair_to_histograms(c) and edit_breaks(task, c)
                and not (c.kind == "kinds" and c.args[1] == 1)):  # = 'same'
            out[c.kind] += [c, negation(c)] if c.kind in TURNED else [c]
    return {k: tuple(v) for k, v in out.items() if v}


def objects_range(c: Concept) -> tuple[int, int]:
    c = unnegated(c)[0]
    if c.kind in FREEFORM_TEMPLATES:
        return ARRANGED_OBJECTS
    return DISTINCT_OBJECTS if c.kind == "distinct" else OBJECTS


def axis(c: Concept) -> str:
    """The ground direction a positional concept reads (its pairs stay apart along it)."""
    return "behind" if c.kind in ("frontmost", "backmost") else "left"


def apart(spec: SceneSpec, direction: str) -> bool:
    """Every pair of objects more than the relation margin apart along the direction: no near-tie decides."""
    table = offset_table(spec.camera, spec.objects)[direction]
    n = len(spec.objects)
    return all(abs(table[i, j]) > RELATION_MARGIN for i in range(n) for j in range(i + 1, n))


def panel(spec: SceneSpec) -> Panel:
    objects = tuple({a: getattr(o, a) for a in ATTRIBUTES} for o in spec.objects)
    return Panel(objects, relationships(spec.camera, spec.objects), tuple(o.position for o in spec.objects))


class BongardItem(Item):
    task: TaskName
    concept: Concept = Field(description="the program every positive satisfies and every negative violates")
    description: str = Field(description="the concept in words")
    complexity: int = Field(ge=1, description="the concept's complexity in the library (concepts.py)")
    positives: tuple[SceneSpec, ...] = Field(min_length=CONTEXT, max_length=CONTEXT, description="pos_0..pos_5")
    negatives: tuple[SceneSpec, ...] = Field(min_length=CONTEXT, max_length=CONTEXT, description="neg_0..neg_5")
    tests: tuple[SceneSpec, SceneSpec] = Field(description="test_a, test_b: one positive, one negative")
    test_positive: tuple[bool, bool] = Field(description="whether test_a and test_b are positives (one of each)")
    # A record of mewl-gen 0.3.0 or before holds a seventh, the negative test's (still read: a dataset already
    # made stays readable); this version never writes it.
    near_misses: tuple[str, ...] = Field(min_length=CONTEXT, max_length=CONTEXT + 1, description="the one change "
                                         "that made each context negative from a positive: neg_0..neg_5 (never "
                                         "the negative test's: matched against the test scenes, it would name it; "
                                         "records of mewl-gen 0.3.0 and before add it last)")

    def scenes(self) -> dict[str, SceneSpec]:
        return dict(zip(POSITIVES + NEGATIVES + TESTS, self.positives + self.negatives + self.tests))

    def overlay_captions(self) -> dict[str, str]:
        """Each panel by its side; a test panel with the side it belongs to (the answer)."""
        captions = {n: f"{n}: positive" for n in POSITIVES} | {n: f"{n}: negative" for n in NEGATIVES}
        return captions | {n: f"{n}: {'positive' if p else 'negative'}" for n, p in zip(TESTS, self.test_positive)}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "BongardItem":
        return self.model_copy(update={"positives": tuple(scenes[n] for n in POSITIVES),
                                       "negatives": tuple(scenes[n] for n in NEGATIVES),
                                       "tests": tuple(scenes[n] for n in TESTS)})

    def solution(self) -> list[bool]:
        """Whether each test image, test_a then test_b, is a positive."""
        return list(self.test_positive)

    def read_answer(self, value: object) -> list[bool]:
        """Where a model puts test_a and test_b: two truth values (a positive?) or two sides ("left": the
        concept holds, "right": it does not), one for each test image."""
        sides = {"left": True, "right": False, True: True, False: False}
        if not isinstance(value, list) or len(value) != len(TESTS) or any(
                not isinstance(v, (bool, str)) or v not in sides for v in value):
            raise ValueError('expected two of true/false or "left"/"right", for test_a and test_b')
        return [sides[v] for v in value]

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index, "concept": self.concept.kind,
                "description": self.description, "complexity": self.complexity}
