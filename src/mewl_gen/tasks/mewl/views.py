"""The learned probe of a MEWL episode with the channel its task tests withheld (tasks.audit.views,
.choices): each choice is described generically, a model fitted on other episodes scores it, and the
episode's guess is its best-scored choice. The probe is not told where a leak could be.

What each task withholds (docs/tasks.md, "Necessary ingredients"):

- shape, color, material: the named attribute in the context's objects (the word-to-value evidence);
  the query is whole, so a channel that teaches the words another way (MEWL's universe-index panel
  names) answers. Floor 1/3: the two fresh words are never uttered, the three heard ones alike.
- object, composite, relation, bootstrap, number: the context's scenes (the word-to-referent
  evidence); the utterances, the panels' names, the query and the choices stay. Floor: the task's
  text-only chance (1/5, 1/3 composite, 1/4 relation, whose balanced choices set it).
- pragmatic: the query's hand, the lexicon given as a perfect learner of the context has it. Floor 1/2,
  proved: two objects stand out by offered words.

A choice's view: its words (how many panels utter each, where, in how many other choices, how many of
the query's objects hold the value a word names in English or by the given lexicon), the panels that
carry its words (their names' '#k', their objects' generic statistics and what they share with the
query's objects, each panel's statistics), and the query's objects and statistics (markers.py's)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import TUPLE_ORDER

from ..audit import Probe
from ..audit.choices import Choices, choices, halves_choices
from ..audit.markers import object_statistics, panel_statistics
from ..audit.views import View
from .item import Episode
from .solver import SOLVERS
from .solver.features import suffix
from .solver.learned import MIN_TRAIN
from .solver.pragmatic import NO_HAND_CHANCE

BASIC = ("shape", "color", "material")
CONTEXT_SCENES = ("object", "composite", "relation", "bootstrap", "number")
TITLE = "learned, channel withheld"
Objects = list[dict[str, str]]


def floor(task: str) -> float:
    return NO_HAND_CHANCE if task == "pragmatic" else SOLVERS[task].chance


@dataclass(frozen=True)
class Seen:
    """What the deprived solver sees: each panel's (name, utterance, objects or None where withheld),
    the query's objects and their places, its pointed object (None: no hand, or withheld), the choices,
    and the meanings it is given (pragmatic's lexicon)."""

    panels: tuple[tuple[str, str, Objects | None], ...]
    query: Objects
    places: list[tuple[float, float]]
    pointed: int | None
    choices: tuple[str, ...]
    meanings: dict[str, str]


def _objects(scene: SceneSpec, hidden: tuple[str, ...] = ()) -> Objects:
    return [{a: v for a, v in zip(TUPLE_ORDER, o.properties) if a not in hidden} for o in scene.objects]


def seen(ep: Episode) -> Seen:
    """The episode less its task's channel."""
    hidden = (ep.task,) if ep.task in BASIC else ()
    panels = tuple((p.name, p.utterance, None if ep.task in CONTEXT_SCENES else _objects(p.scene, hidden))
                   for p in ep.context_panels)
    pointed = None if ep.task == "pragmatic" or ep.query.hand is None else ep.query.hand.target
    meanings = {w: str(c) for w, c in ep.lexicon.items()} if ep.task == "pragmatic" else {}
    places = [tuple(o.position) for o in ep.query.objects]
    return Seen(panels, _objects(ep.query), places, pointed, ep.choices, meanings)


def _statistics(objects: Objects) -> list[dict[str, Hashable]]:
    """markers.object_statistics over the attributes the objects show, grouped by the first of them."""
    shown = [a for a in TUPLE_ORDER if objects and a in objects[0]]
    return object_statistics(objects, shown, group=shown[0]) if shown else [{"objects": len(objects)}] * len(objects)


def _ranks(places: list[tuple[float, float]]) -> list[dict[str, float]]:
    """Each object's rank along each ground axis and its distance to the nearest other."""
    return [{**{f"rank on axis {a}": sum(q[a] < p[a] for q in places) for a in range(2)},
             "nearest other": min((math.dist(p, q) for q in places if q is not p), default=0.0)} for p in places]


def _beside_query(objects: Objects, query: Objects) -> list[dict[str, Hashable]]:
    """Each object's statistics and, per attribute it shows, whether a query object shares it, and
    whether a query object shows its whole description."""
    rows = _statistics(objects)
    for o, row in zip(objects, rows):
        for a, v in o.items():
            row[f"{a} in the query"] = any(q.get(a) == v for q in query)
        row["described in the query"] = any(all(q.get(a) == v for a, v in o.items()) for q in query)
    return rows


def _named(token: str, s: Seen) -> set[str]:
    """The values a word names: itself (an English value, 'red') and its given meaning."""
    return {token, *([s.meanings[token]] if token in s.meanings else [])}


def _named_ranks(token: str, s: Seen, query_rows: list[dict[str, Hashable]]) -> dict[str, float]:
    """Where the query's objects a word names stand (their mean rank along each ground axis; -1: none)."""
    rows = [r for q, r in zip(s.query, query_rows) if _named(token, s) & set(q.values())]
    return {f"named {key}": sum(r[key] for r in rows) / len(rows) if rows else -1.0
            for key in ("rank on axis 0", "rank on axis 1")}


def choice_view(s: Seen, choice: str, query_rows: list[dict[str, Hashable]]) -> View:
    tokens = choice.split()
    said = [u.split() for _, u, _ in s.panels]
    words = [{"panels": sum(t in u for u in said), "at": k,
              "other choices": sum(t in c.split() for c in s.choices if c != choice),
              "first place": min((u.index(t) for u in said if t in u), default=-1),
              "last place": max((len(u) - 1 - u[::-1].index(t) for u in said if t in u), default=-1),
              "query objects it names": sum(bool(_named(t, s) & set(q.values())) for q in s.query),
              **_named_ranks(t, s, query_rows)}
             for k, t in enumerate(tokens)]
    carrying = [(name, objects, sum(t in u for t in tokens)) for (name, _, objects), u in zip(s.panels, said)
                if set(tokens) & set(u)]
    named = {v for t in tokens for v in _named(t, s)}
    view: dict[str, object] = {
        **{f"word {k}: {key}": value for k, row in enumerate(words) for key, value in row.items()},
        "words": len(tokens), "uttered whole": sum(u == tokens for u in said), "its words": words,
        "names carrying it": [{"#k": -1 if suffix(n) is None else suffix(n), "words shared": k}
                              for n, _, k in carrying],
        "query's objects": query_rows,
        "query's objects it names": [r for q, r in zip(s.query, query_rows) if named & set(q.values())],
        **{f"query {k}": v for k, v in panel_statistics(s.query, [a for a in TUPLE_ORDER if a in s.query[0]]).items()},
    }
    shown = [objects for _, objects, _ in carrying if objects]
    if shown:
        view["its panels' objects"] = [r for objects in shown for r in _beside_query(objects, s.query)]
        view["its panels"] = [panel_statistics(objects, list(objects[0])) for objects in shown]
    return view


def episode_choices(ep: Episode) -> Choices:
    """An episode as the probe keeps it: each choice's view, flattened, and the answer's position."""
    s = seen(ep)
    query_rows = [row | ranks for row, ranks in zip(_statistics(s.query), _ranks(s.places))]
    for k, row in enumerate(query_rows):
        if s.pointed is not None:
            row["pointed"] = k == s.pointed
    return choices(ep.index, [choice_view(s, c, query_rows) for c in s.choices], ep.answer_index)


def probe(task: str, items: list[Choices], train: list[Choices] | None) -> Probe:
    """The probe fitted on `train` (another seed's episodes) and scored on `items`, or fitted on the
    first half of `items` by index and scored on the rest; none fitted on fewer than the learned
    baselines' MIN_TRAIN episodes (its cell '-', as theirs)."""
    if (len(train) if train else len(items) // 2) < MIN_TRAIN:
        return Probe(0, 0, floor(task))
    return halves_choices(items, train, floor(task))
