"""Bongard concepts as programs over a scene's objects, with the one interpreter.

A concept is a template (`kind`) and its arguments: attribute values ('red',
'cube'), attribute names ('shape'), counts, or descriptions (tuples of
values, every one of which an object must have). The interpreter reads a
`Panel`: the objects' attributes and CLEVR's exact relationship table
(`relationships[rel][i]` lists every j that lies in direction rel of i), which
a SceneSpec and a rendered image's `<name>.json` both give, so the sampler,
the validator and the file-only checker all run this one program.

Each template has a complexity (about the number of symbols in its program);
concept_library.py enumerates every concept up to a complexity and proves
a problem fair with it. A problem may also be about a negation, `not c`
(kind "not", args: c's kind and args), one more in complexity: the library
never lists those, since every separator is tried both ways. Pure: no
sampler, no bpy.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Mapping, NamedTuple, Sequence, Union

from pydantic import BaseModel, ConfigDict, field_validator

from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, attribute_of

from . import arrangements

Arg = Union[str, int, tuple[str, ...]]
NEGATION = 1  # 'not c' is one symbol more than c
NOT = "not"


class Concept(BaseModel):
    """A program: a template and its arguments (item.json's `concept`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: str
    args: tuple[Arg, ...]

    @field_validator("args")
    @classmethod
    def _descriptions_in_tuple_order(cls, args: tuple) -> tuple:
        """('red', 'cube') and ('cube', 'red') are one description: MEWL's tuple order, so equal concepts compare equal."""
        return tuple(tuple(sorted(a, key=lambda v: TUPLE_ORDER.index(attribute_of(v)))) if isinstance(a, tuple) else a
                     for a in args)

    @property
    def complexity(self) -> int:
        return TEMPLATES[self.kind].complexity(self.args)

    @property
    def positional(self) -> bool:
        """Whether the concept reads positions (its problems keep every pair apart by the margin)."""
        return TEMPLATES[self.kind].positional

    def words(self) -> str:
        return TEMPLATES[self.kind].words(*self.args)


class Panel:
    """What a concept reads of a scene: the objects' attributes, CLEVR's relationship table and the ground
    points. The library asks thousands of concepts of one panel: it keeps what it found of its objects."""

    __slots__ = ("objects", "relationships", "positions", "_found", "_kinds")

    def __init__(self, objects: tuple[Mapping[str, str], ...], relationships: Mapping[str, Sequence[Sequence[int]]],
                 positions: tuple[tuple[float, float], ...] = ()):
        self.objects = objects
        self.relationships = relationships
        self.positions = positions  # ground (x, y), in the order the objects are listed
        self._found: dict[tuple[str, ...], tuple[int, ...]] = {}  # values -> the objects that have them
        self._kinds: dict[str, Counter] = {}  # attribute -> how many objects have each of its values

    def left_of(self, x: int, y: int) -> bool:
        return x in self.relationships["left"][y]

    def extreme(self, rel: str) -> int | None:
        """The one object no other lies in direction rel of (the leftmost for 'left')."""
        ends = [i for i in range(len(self.objects)) if not self.relationships[rel][i]]
        return ends[0] if len(ends) == 1 else None

    def having(self, values: tuple[str, ...]) -> tuple[int, ...]:
        """The objects that have every one of the values, in the order listed."""
        found = self._found.get(values)
        if found is None:
            if len(values) > 1:  # a description: the objects of its first value that have the rest
                rest = self.having(values[1:])
                found = tuple(i for i in self.having(values[:1]) if i in rest)
            elif values and self.objects:  # one value: one attribute to read
                a, v = attribute_of(values[0]), values[0]
                found = tuple(i for i, o in enumerate(self.objects) if o[a] == v)
            else:
                found = tuple(range(len(self.objects)))  # no value: every object has them all
            self._found[values] = found
        return found

    def kinds(self, attribute: str) -> Counter:
        """How many objects have each value of the attribute (read only: it is kept)."""
        counts = self._kinds.get(attribute)
        if counts is None:
            counts = self._kinds[attribute] = Counter(o[attribute] for o in self.objects)
        return counts


def matches(obj: Mapping[str, str], values: Sequence[str]) -> bool:
    return all(obj[attribute_of(v)] == v for v in values)


def _which(p: Panel, *values: str) -> tuple[int, ...]:
    found = p._found.get(values)  # the library asks again and again: what the panel kept, without a call
    return p.having(values) if found is None else found


def _kinds(p: Panel, attribute: str) -> Counter:
    return p.kinds(attribute)


def _phrase(values: Sequence[str], plural: bool = False) -> str:
    """'large metal cylinder', 'metal objects': CLEVR's adjective order before the noun."""
    order = ("size", "color", "material")
    words = [v for a in order for v in values if attribute_of(v) == a]
    noun = next((v for v in values if attribute_of(v) == "shape"), "object")
    return " ".join(words + [noun + ("s" if plural else "")])


def _a(values: Sequence[str]) -> str:
    phrase = _phrase(values)
    return ("an " if phrase[0] in "aeiou" else "a ") + phrase


def _extreme_is(rel: str) -> Callable:
    return lambda p, v: (lambda i: i is not None and matches(p.objects[i], (v,)))(p.extreme(rel))


def _some_before_every(p: Panel, v: str, w: str) -> bool:
    ws = _which(p, w)
    return any(ws and all(y == x or p.left_of(x, y) for y in ws) and set(ws) - {x} for x in _which(p, v))


def _every_before_every(p: Panel, v: str, w: str) -> bool:
    vs, ws = _which(p, v), _which(p, w)
    return bool(vs) and bool(ws) and all(x != y and p.left_of(x, y) for x in vs for y in ws)


def _odd_one_out(p: Panel, a: str) -> bool:
    counts = sorted(_kinds(p, a).values())
    return len(counts) == 2 and counts[0] == 1 and counts[1] >= 2


def _same_within(p: Panel, a: str, b: str) -> bool:
    # two objects by their places in the list: alike objects may share one dict (sample.unplaced)
    pairs = [(x, y) for i, x in enumerate(p.objects) for j, y in enumerate(p.objects) if i != j and x[a] == y[a]]
    return bool(pairs) and all(x[b] == y[b] for x, y in pairs)


def _ends_match(p: Panel, a: str) -> bool:
    left, right = p.extreme("left"), p.extreme("right")
    return left is not None and right is not None and left != right and p.objects[left][a] == p.objects[right][a]


class Template(NamedTuple):
    holds: Callable[..., bool]  # (panel, *args) -> bool
    complexity: Callable[[tuple], int]
    words: Callable[..., str]
    # The arguments' kinds, for enumeration (concept_library.ARGUMENTS says what each letter ranges over).
    signature: str
    positional: bool = False


def _fixed(c: int) -> Callable[[tuple], int]:
    return lambda args: c


def _is(v: str) -> str:
    return f"is {_a((v,))}" if attribute_of(v) == "shape" else f"is {v}"


def _are(v: str) -> str:
    return f"are {v}s" if attribute_of(v) == "shape" else f"are {v}"


TEMPLATES: dict[str, Template] = {
    # basic: categories of object
    "exists": Template(lambda p, d: bool(_which(p, *d)), lambda args: len(args[0]),
                       lambda d: f"there is {_a(d)}", "d"),
    "both": Template(lambda p, d, e: bool(_which(p, *d)) and bool(_which(p, *e)),
                     lambda args: len(args[0]) + len(args[1]) + 1,
                     lambda d, e: f"there is {_a(d)} and there is {_a(e)}", "dd"),
    # abstract: attribute-level and set-level properties
    "same": Template(lambda p, a: len(_kinds(p, a)) == 1, _fixed(2), lambda a: f"all objects share a {a}", "a"),
    "distinct": Template(lambda p, a: len(_kinds(p, a)) == len(p.objects), _fixed(2),
                         lambda a: f"no two objects share a {a}", "a"),
    "all": Template(lambda p, v: len(_which(p, v)) == len(p.objects), _fixed(2), lambda v: f"every object {_is(v)}", "v"),
    "none": Template(lambda p, v: not _which(p, v), _fixed(2), lambda v: f"no object {_is(v)}", "v"),
    "exactly": Template(lambda p, v, n: len(_which(p, v)) == n, _fixed(3),
                        lambda v, n: f"exactly {n} {_phrase((v,), n != 1)}", "vn"),
    "at-least": Template(lambda p, v, n: len(_which(p, v)) >= n, _fixed(3),
                         lambda v, n: f"at least {n} {_phrase((v,), True)}", "vN"),
    "most": Template(lambda p, v: 2 * len(_which(p, v)) > len(p.objects), _fixed(3),
                     lambda v: f"most objects {_are(v)}", "v"),
    "more": Template(lambda p, v, w: len(_which(p, v)) > len(_which(p, w)), _fixed(3),
                     lambda v, w: f"more {_phrase((v,), True)} than {_phrase((w,), True)}", "vw"),
    "equal": Template(lambda p, v, w: len(_which(p, v)) == len(_which(p, w)) > 0, _fixed(3),
                      lambda v, w: f"as many {_phrase((v,), True)} as {_phrase((w,), True)}", "vw<"),
    "implies": Template(lambda p, v, w: bool(_which(p, v)) and _which(p, v) == _which(p, v, w), _fixed(3),
                        lambda v, w: f"every {_phrase((v,))} {_is(w)}", "vx"),
    "kinds": Template(lambda p, a, n: len(_kinds(p, a)) == n, _fixed(3),
                      lambda a, n: f"exactly {n} different {a}s", "an"),
    "odd-one-out": Template(_odd_one_out, _fixed(3),
                            lambda a: f"one object differs in {a} from the others, which share it", "a"),
    "same-within": Template(_same_within, _fixed(3), lambda a, b: f"objects that share a {a} share a {b}", "ab"),
    "leftmost": Template(_extreme_is("left"), _fixed(3), lambda v: f"the leftmost object {_is(v)}", "v", True),
    "rightmost": Template(_extreme_is("right"), _fixed(3), lambda v: f"the rightmost object {_is(v)}", "v", True),
    "frontmost": Template(_extreme_is("front"), _fixed(3), lambda v: f"the frontmost object {_is(v)}", "v", True),
    "backmost": Template(_extreme_is("behind"), _fixed(3), lambda v: f"the backmost object {_is(v)}", "v", True),
    "ends-match": Template(_ends_match, _fixed(4), lambda a: f"the leftmost and the rightmost object share a {a}",
                           "a", True),
    "some-left-of-every": Template(_some_before_every, _fixed(4),
                                   lambda v, w: f"some {_phrase((v,))} is left of every {_phrase((w,))}", "vy", True),
    "every-left-of-every": Template(_every_before_every, _fixed(4),
                                    lambda v, w: f"every {_phrase((v,))} is left of every {_phrase((w,))}", "vy", True),
}
# a negation: a problem's concept (item.problem_concepts), never enumerated (the library tries each concept both ways)
TEMPLATES[NOT] = Template(lambda p, kind, *args: not TEMPLATES[kind].holds(p, *args),
                          lambda args: TEMPLATES[args[0]].complexity(args[1:]) + NEGATION,
                          lambda kind, *args: f"not ({TEMPLATES[kind].words(*args)})", "!")
# freeform: figures drawn by action programs (arrangements.py); never enumerated, read off the panels instead
TEMPLATES["program"] = Template(lambda p, program: arrangements.follows(p.positions, program), _fixed(2),
                                arrangements.words, "p", True)
BASIC_TEMPLATES = ("exists", "both")
FREEFORM_TEMPLATES = ("program",)
ABSTRACT_TEMPLATES = tuple(k for k in TEMPLATES if k not in BASIC_TEMPLATES + FREEFORM_TEMPLATES + (NOT,))
# Templates that read only which objects share values, never which values: exchanging two values of an attribute
# throughout a scene keeps their truth, so no near miss that keeps every count statistic breaks them (sample.py).
SHARING = ("same", "distinct", "kinds", "odd-one-out", "same-within")
# Templates drawn with their negation, as likely, their near misses one object's edit (sample.py): SHARING, and
# 'all', which an exchange breaks only by leaving none of its value ("there is a cube" would tell the sides apart).
TURNED = SHARING + ("all",)
VALUES: tuple[str, ...] = tuple(v for vs in ATTRIBUTES.values() for v in vs)


def negation(c: Concept) -> Concept:
    return Concept(kind=NOT, args=(c.kind, *c.args))


def unnegated(c: Concept) -> tuple[Concept, bool]:
    """The concept a negation negates and False, or the concept itself and True."""
    return (Concept(kind=c.args[0], args=c.args[1:]), False) if c.kind == NOT else (c, True)


def holds(concept: Concept, panel: Panel) -> bool:
    return TEMPLATES[concept.kind].holds(panel, *concept.args)


def read_concepts(panel: Panel) -> list[Concept]:
    """The free-form program the panel's points trace in the order listed, if any: a candidate concept that the
    library cannot list (there are thousands), read off a positive as a solver would."""
    program = arrangements.read(panel.positions)
    return [] if program is None else [Concept(kind="program", args=(program,))]


def panel_of_image(image: Mapping) -> Panel:
    """A rendered image's ground truth (`<name>.json`) as a panel; a pointing hand is not an object."""
    listed = [o for o in image["objects"] if o["shape"] != "arrow"]
    objects = tuple({a: o[a] for a in ATTRIBUTES} for o in listed)
    return Panel(objects, image["clevr_relationships"], tuple((o["3d_coords"][0], o["3d_coords"][1]) for o in listed))
