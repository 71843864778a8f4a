"""The concept library, enumerated, and the proof that a Bongard problem is fair.

`library(k)` lists every concept of complexity at most k: each template of
concepts.py with every argument it can take, but the free-form programs
(thousands): `separators` adds the program that the first positive and the
first negative trace (concepts.read_concepts). A problem is fair when,
among every library concept up to its concept's complexity (and the negation
of each, one more in complexity), its concept separates the six positives
from the six negatives, no simpler one does, and every other separator
answers both test images as its concept does: whichever separator a solver
finds, the answer is the same. Pure: the sampler, the validator and the
file-only checker (solver.py) all run `unfair`.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Callable, Iterator, NamedTuple, Sequence

from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, attribute_of

from .concepts import NEGATION, TEMPLATES, VALUES, Concept, Panel, holds, read_concepts, unnegated

# Every description: one value or none per attribute, at least one value, in MEWL's tuple order.
DESCRIPTIONS: tuple[tuple[str, ...], ...] = tuple(sorted(
    (tuple(v for v in choice if v is not None)
     for choice in itertools.product(*((None,) + ATTRIBUTES[a] for a in TUPLE_ORDER))
     if any(v is not None for v in choice)), key=len))
COUNTS = (1, 2, 3)


def _same_attribute(v: str, w: str) -> bool:
    return v != w and attribute_of(v) == attribute_of(w)


# What each signature letter string ranges over (see Template.signature).
ARGUMENTS = {
    "p": lambda k: (),  # free-form programs: read off the panels (concepts.read_concepts), never listed
    "!": lambda k: (),  # negations: every separator is tried both ways
    "a": lambda k: ((a,) for a in ATTRIBUTES),
    "ab": lambda k: ((a, b) for a in ATTRIBUTES for b in ATTRIBUTES if a != b),
    "an": lambda k: ((a, n) for a in ATTRIBUTES for n in range(1, min(len(ATTRIBUTES[a]), 4) + 1)),
    "v": lambda k: ((v,) for v in VALUES),
    "vn": lambda k: ((v, n) for v in VALUES for n in COUNTS),
    "vN": lambda k: ((v, n) for v in VALUES for n in COUNTS[1:]),
    "vw": lambda k: ((v, w) for v in VALUES for w in VALUES if _same_attribute(v, w)),
    "vw<": lambda k: ((v, w) for v in VALUES for w in VALUES if _same_attribute(v, w) and v < w),
    "vx": lambda k: ((v, w) for v in VALUES for w in VALUES if attribute_of(v) != attribute_of(w)),
    "vy": lambda k: ((v, w) for v in VALUES for w in VALUES if v != w),
    "d": lambda k: ((d,) for d in DESCRIPTIONS if len(d) <= k),
    # two categories, neither containing the other (that pair says only the larger one)
    "dd": lambda k: ((d, e) for i, d in enumerate(DESCRIPTIONS) for e in DESCRIPTIONS[i + 1:]
                     if len(d) + len(e) + 1 <= k and not set(d) <= set(e) and not set(e) <= set(d)),
}


@lru_cache(maxsize=8)
def library(max_complexity: int) -> tuple[Concept, ...]:
    """Every concept of complexity at most max_complexity, in a fixed order."""
    out = []
    for kind, template in TEMPLATES.items():
        for args in ARGUMENTS[template.signature](max_complexity):
            if template.complexity(args) <= max_complexity:
                out.append(Concept(kind=kind, args=args))
    return tuple(out)


class Separator(NamedTuple):
    concept: Concept
    positive: bool  # True: holds on the positives; False: its negation does

    @property
    def complexity(self) -> int:
        return self.concept.complexity + (0 if self.positive else NEGATION)

    def says(self, panel: Panel) -> bool:
        """Whether this separator puts the panel on the positive side."""
        return holds(self.concept, panel) == self.positive


# Templates that hold when objects of each description argument exist: read off which panels show each
# description (_shown), not asked of each panel.
CATEGORICAL = ("exists", "both")
Program = tuple[Concept, Callable[..., bool], tuple, bool, bool]
# Every nonempty set of attributes, in tuple order: an object has the description each one reads off it.
_ATTRIBUTE_SETS = tuple(s for k in range(1, len(TUPLE_ORDER) + 1) for s in itertools.combinations(TUPLE_ORDER, k))


def _program(c: Concept) -> Program:
    """The concept with its interpreter, its arguments, whether it reads positions and whether it is
    categorical, looked up once."""
    return c, TEMPLATES[c.kind].holds, c.args, c.positional, c.kind in CATEGORICAL


def _shown(panels: Sequence[Panel]) -> dict[tuple[str, ...], int]:
    """Description -> the panels with an object of it, as bits (panel i: 1 << i); a description none shows
    is left out."""
    shown: dict[tuple[str, ...], int] = {}
    for i, p in enumerate(panels):
        for d in {tuple(o[a] for a in s) for o in p.objects for s in _ATTRIBUTE_SETS}:
            shown[d] = shown.get(d, 0) | 1 << i
    return shown


@lru_cache(maxsize=8)
def _programs(max_complexity: int) -> tuple[Program, ...]:
    """The library's concepts as _program gives them."""
    return tuple(map(_program, library(max_complexity)))


def separators(positives: Sequence[Panel], negatives: Sequence[Panel], max_complexity: int,
               positions: bool = True) -> list[Separator]:
    """Every candidate concept (the library's and the programs the first panel of each side traces), or its
    negation, up to max_complexity, true on all positives and no negative;
    positions=False leaves out the concepts that read positions (a check before objects are placed)."""
    found = []
    read = dict.fromkeys(read_concepts(positives[0]) + read_concepts(negatives[0]))  # programs: never listed
    candidates = _programs(max_complexity) + tuple(map(_program, read))
    others = tuple(positives[1:])
    shown = _shown(tuple(positives) + tuple(negatives))
    every = (1 << (len(positives) + len(negatives))) - 1
    on_positives = (1 << len(positives)) - 1  # true on every positive and no negative
    for concept, program, args, positional, categorical in candidates:
        if positional and not positions:
            continue
        if categorical:  # the panels where it holds: those showing each of its descriptions
            truth = every
            for d in args:
                truth &= shown.get(d, 0)
            if truth != on_positives and truth != every ^ on_positives:
                continue
            side = truth == on_positives
        else:
            side = program(positives[0], *args)
            if not all(program(p, *args) == side for p in others) or any(program(n, *args) == side for n in negatives):
                continue
        separator = Separator(concept, side)
        if separator.complexity <= max_complexity:
            found.append(separator)
    return found


def unfair(concept: Concept, positives: Sequence[Panel], negatives: Sequence[Panel],
           tests: Sequence[tuple[Panel, bool]], positions: bool = True) -> list[str]:
    """Why the problem is not fair (empty: it is). tests: (panel, is it positive)."""
    found = separators(positives, negatives, concept.complexity, positions)
    reasons = []
    if Separator(*unnegated(concept)) not in found and (positions or not concept.positional):
        reasons.append(f"'{concept.words()}' does not separate the positives from the negatives")
    simpler = [s for s in found if s.complexity < concept.complexity]
    if simpler:
        reasons.append(f"a simpler concept separates them: {'not ' * (not simpler[0].positive)}"
                       f"'{simpler[0].concept.words()}'")
    for s in found:
        if any(s.says(panel) != answer for panel, answer in tests):
            reasons.append(f"'{'not ' * (not s.positive)}{s.concept.words()}' also separates them but answers a "
                           "test image the other way")
            break
    return reasons


def first_separators(positives, negatives, max_complexity: int) -> Iterator[Separator]:
    """The simplest separators, for a report: those of the lowest complexity found."""
    found = separators(positives, negatives, max_complexity)
    low = min((s.complexity for s in found), default=None)
    return (s for s in found if s.complexity == low)
