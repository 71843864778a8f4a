"""What MEWL's marker scan reads (tasks.audit.markers): per task, the objects a construction places among
others a solver could take for them (a role), each against its pool, from the episode alone.

- pragmatic: the pointed object against the other object that stands out by a value of its own (the
  background, built to stand out as the target does), in the query and in one context panel (a coin).
  The base stands out by nothing, by the task's rule, so no solver takes it for the pointed one.
- relation: in the query, an object of the answer's statement (a coin of the two) against the object it
  leaves out, which the other statements name; in one context panel, an object of the stated pair
  against the panel's unnamed one.
- bootstrap: in one context panel and in the query, a named object (a coin of the two) against the
  scene's unnamed distractor.
- shape, color, material: each scene shows one object, so the pool is the context's: an object of the
  answer's two panels against one of the other heard words' four, each among the context's six and
  beside the query's (markers.object_statistics, the query the anchor). The named attribute is left
  out: the answer's objects share it with the query, which is the task.
- composite: the same, an object of a panel that utters one of the answer's words against one of a
  panel that utters neither, the two named attributes left out.
- number: an object of the answer's panel against one of another offered word's panel, each among its
  own panel's objects, with how many query objects share each of its values.
- object: none. Every object of every scene is named, and the answer's objects are the query's.

Per item one role object and one pool object, each a coin of the index (markers.coin)."""
from __future__ import annotations

from typing import Callable, Hashable, Sequence

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import TUPLE_ORDER, attribute_of

from ..audit.markers import Scan, coin, object_statistics, scan
from .item import Episode
from .sample.relation import parse

Row = dict[str, Hashable]
Pair = tuple[Row, Row]
Objects = list[dict[str, str]]


def _objects(scene: SceneSpec, attributes: Sequence[str] = TUPLE_ORDER) -> Objects:
    return [{a: getattr(o, a) for a in attributes} for o in scene.objects]


def _pick(index: int, salt: int, rows: list[Row], role: list[int], pool: list[int]) -> Pair | None:
    """One role object's row and one pool object's, each by a coin of the index."""
    if not role or not pool:
        return None
    return rows[role[coin(index, len(role), salt)]], rows[pool[coin(index, len(pool), salt + 1)]]


def _in_scene(index: int, salt: int, scene: SceneSpec, role: list[int], pool: list[int]) -> Pair | None:
    return _pick(index, salt, object_statistics(_objects(scene), TUPLE_ORDER), role, pool)


def _panel(ep: Episode, salt: int):
    return ep.context_panels[coin(ep.index, len(ep.context_panels), salt)]


def _apart(n: int, named: Sequence[int | None]) -> tuple[list[int], list[int]]:
    """(the named objects, the others) of a scene of n."""
    role = sorted({i for i in named if i is not None})
    return role, [i for i in range(n) if i not in role]


# -- roles within a scene ------------------------------------------------------

def _standing_out(scene: SceneSpec) -> tuple[list[int], list[int]]:
    """(the pointed object, the other objects that hold a value no other object holds)."""
    props = [o.properties for o in scene.objects]
    alone = [i for i, p in enumerate(props) if any(sum(v in q for q in props) == 1 for v in p)]
    pointed = scene.hand.target if scene.hand is not None else None
    return [] if pointed is None else [pointed], [i for i in alone if i != pointed]


def pragmatic(ep: Episode) -> dict[str, Pair | None]:
    panel = _panel(ep, 2).scene
    return {"query's pointed": _in_scene(ep.index, 0, ep.query, *_standing_out(ep.query)),
            "a panel's pointed": _in_scene(ep.index, 3, panel, *_standing_out(panel))}


def _stated(scene: SceneSpec, statement: str) -> tuple[list[int], list[int]]:
    a, _, b = parse(scene, statement)
    return _apart(len(scene.objects), (a, b))


def relation(ep: Episode) -> dict[str, Pair | None]:
    panel = _panel(ep, 2)
    return {"answer's objects": _in_scene(ep.index, 0, ep.query, *_stated(ep.query, ep.answer)),
            "a panel's stated": _in_scene(ep.index, 3, panel.scene, *_stated(panel.scene, panel.utterance))}


def _named(ep: Episode, scene: SceneSpec) -> tuple[list[int], list[int]]:
    named = {tuple(c) for c in ep.lexicon.values()}
    return _apart(len(scene.objects), [i for i, o in enumerate(scene.objects) if o.properties in named])


def bootstrap(ep: Episode) -> dict[str, Pair | None]:
    panel = _panel(ep, 2).scene
    return {"query's named": _in_scene(ep.index, 0, ep.query, *_named(ep, ep.query)),
            "a panel's named": _in_scene(ep.index, 3, panel, *_named(ep, panel))}


# -- roles among the context's panels ----------------------------------------

def beside_query(objects: Objects, query: Objects, attributes: Sequence[str]) -> list[Row]:
    """Each object's statistics among `objects`, and per attribute how many query objects share its
    value, and whether a query object shows its whole description (grouped by the first attribute: shape
    where it is shown)."""
    rows = object_statistics(objects, attributes, group=attributes[0])
    for o, row in zip(objects, rows):
        row |= {f"{a} in the query": sum(q[a] == o[a] for q in query) for a in attributes}
        row["described in the query"] = any(all(q[a] == o[a] for a in attributes) for q in query)
    return rows


def _answer_panels(ep: Episode, hidden: set[str], answers: Callable[[str], bool],
                   others: Callable[[str], bool]) -> Pair | None:
    """The one-object panels: an object of a panel whose utterance `answers` against one whose utterance
    is of the `others`, among the context's objects beside the query's, the `hidden` attributes left out."""
    shown = [a for a in TUPLE_ORDER if a not in hidden]
    context = [o for p in ep.context_panels for o in _objects(p.scene, shown)]
    rows = beside_query(context, _objects(ep.query, shown), shown)
    said = [p.utterance for p in ep.context_panels]
    return _pick(ep.index, 0, rows, [k for k, u in enumerate(said) if answers(u)],
                 [k for k, u in enumerate(said) if others(u)])


def basic(ep: Episode) -> dict[str, Pair | None]:
    return {"answer's panels": _answer_panels(ep, {ep.task}, lambda u: u == ep.answer, lambda u: u != ep.answer)}


def composite(ep: Episode) -> dict[str, Pair | None]:
    words = set(ep.answer.split())
    hidden = {attribute_of(str(ep.lexicon[w])) for w in words}
    return {"answer's panels": _answer_panels(ep, hidden, lambda u: bool(words & set(u.split())),
                                              lambda u: not words & set(u.split()))}


def number(ep: Episode) -> dict[str, Pair | None]:
    """The answer's panel against one of another offered word's (a coin), an object of each by a coin."""
    query = _objects(ep.query)
    panels = {p.utterance: p.scene for p in ep.context_panels}
    others = [c for c in ep.choices if c != ep.answer and c in panels]
    if ep.answer not in panels or not others:
        return {"answer's panel": None}
    role = beside_query(_objects(panels[ep.answer]), query, TUPLE_ORDER)
    pool = beside_query(_objects(panels[others[coin(ep.index, len(others), 0)]]), query, TUPLE_ORDER)
    return {"answer's panel": (role[coin(ep.index, len(role), 1)], pool[coin(ep.index, len(pool), 2)])}


ROLES: dict[str, Callable[[Episode], dict[str, Pair | None]]] = {
    "shape": basic, "color": basic, "material": basic, "composite": composite, "relation": relation,
    "bootstrap": bootstrap, "number": number, "pragmatic": pragmatic}


def roles(ep: Episode) -> dict[str, Pair]:
    """Each role of the episode's task that it shows with a pool: its object's row and a pool object's."""
    found = ROLES[ep.task](ep) if ep.task in ROLES else {}
    return {name: pair for name, pair in found.items() if pair is not None}


def scanned(pairs: dict[str, list[Pair]]) -> Scan:
    """Every role's scan as one, its statistics named by their role, Bonferroni over all of them; n: the
    fewest items a role was read on."""
    found = {name: scan([r for r, _ in rows], [p for _, p in rows]) for name, rows in pairs.items()}
    p = {f"{name}: {k}": v for name, s in found.items() for k, v in s.p.items()}
    return Scan(p, min((s.n for s in found.values()), default=(0, 0)))
