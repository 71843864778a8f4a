"""What the marker scans and the learned panel probe read of a Bongard problem (tasks.audit.markers,
.views), from item.json alone.

- The edit's role: the object(s) a near miss changed (`near_misses`: "object 3: shape cube -> sphere",
  "objects 1 and 4: shapes swapped"), against the same negative's other objects; per problem one
  context negative, one edited object and one other object, each by a coin of the index. Placement
  keeps the objects' order, so the numbers name the scene spec's objects. Positional near misses and
  freeform's other program edit no object and give no role.
- The panels: a context negative against a context positive of the same problem (one of each by a coin),
  by the panel's generic statistics (markers.panel_statistics), pooled over problems.
- The learned probe, denied the problem's examples: one panel's generic statistics (its own, and each
  object's, aggregated); fitted on the labelled panels of other problems, it calls positive the test
  scene it scores higher. Floor 1/2: the coin that puts the positive at test_a or test_b reads nothing.
- The distinct-values rule: for one attribute, the test scene showing fewer distinct values is the
  positive (a tie: a coin), or the reverse; the best of the eight, its bound corrected for the eight."""
from __future__ import annotations

import re
from typing import Hashable


from mewl_gen.scenes.universe import TUPLE_ORDER

from ..audit import Probe
from ..audit.markers import coin, object_statistics, panel_statistics
from ..audit.views import View, fitted
from .solver import NEGATIVES, POSITIVES, TESTS

ATTRIBUTES = TUPLE_ORDER  # shape, color, material, size
EDITED = re.compile(r"^objects? (\d+)(?: and (\d+))?:")


def edited(near_miss: str) -> tuple[int, ...]:
    """The objects a near miss changed, by their index in the scene; () for one that changed none."""
    found = EDITED.match(near_miss)
    return tuple(int(g) for g in found.groups() if g is not None) if found else ()


def _objects(scene: dict) -> list[dict]:
    return scene["objects"]


def edit_and_other(item: dict) -> tuple[dict[str, Hashable], dict[str, Hashable]] | None:
    """An edited object's statistics and another object's of the same context negative; None where no
    near miss edited an object that has others beside it."""
    usable = [(k, e) for k, (scene, miss) in enumerate(zip(item["negatives"], item["near_misses"]))
              if (e := edited(miss)) and len(_objects(scene)) > len(e) and max(e) < len(_objects(scene))]
    if not usable:
        return None
    k, roles = usable[coin(item["index"], len(usable))]
    objects = _objects(item["negatives"][k])
    rows = object_statistics(objects, ATTRIBUTES)
    others = [j for j in range(len(objects)) if j not in roles]
    return rows[roles[coin(item["index"], len(roles), 1)]], rows[others[coin(item["index"], len(others), 2)]]


def positive_and_negative(item: dict) -> tuple[dict[str, Hashable], dict[str, Hashable]]:
    """A context positive's panel statistics and a context negative's, each by a coin of the index."""
    pos = item["positives"][coin(item["index"], len(item["positives"]), 3)]
    neg = item["negatives"][coin(item["index"], len(item["negatives"]), 4)]
    return panel_statistics(_objects(pos), ATTRIBUTES), panel_statistics(_objects(neg), ATTRIBUTES)


def panel_view(scene: dict) -> View:
    """One panel as a solver without the problem's examples sees it: its statistics and its objects'."""
    objects = _objects(scene)
    return {**panel_statistics(objects, ATTRIBUTES), "objects'": object_statistics(objects, ATTRIBUTES)}


def labelled_panels(item: dict) -> list[tuple[View, bool]]:
    """The fourteen panels of a problem with their sides (the tests' from `test_positive`)."""
    scenes = [*item["positives"], *item["negatives"], *item["tests"]]
    sides = [True] * len(POSITIVES) + [False] * len(NEGATIVES) + list(item["test_positive"])
    return [(panel_view(s), side) for s, side in zip(scenes, sides)]


def panels_probe(score: list[dict], fit: list[dict]) -> Probe:
    """Per scored problem: does the model of single panels, fitted on the `fit` problems' labelled
    panels, score its positive test scene above its negative one?"""
    predict = fitted(*zip(*[p for item in fit for p in labelled_panels(item)])) if fit else None
    if predict is None or not score:
        return Probe(0, 0, 0.5)
    p = predict([panel_view(s) for item in score for s in item["tests"]]).reshape(-1, len(TESTS))
    first = p[:, 0] > p[:, 1]
    return Probe(int(sum(f == item["test_positive"][0] for f, item in zip(first, score))), len(score), 0.5)


def distinct_rules(items: list[dict]) -> dict[str, Probe]:
    """Each attribute's distinct-values rule and its reverse: the test scene with fewer (more) distinct
    values is the positive, a tie a coin of the index."""
    found = {}
    for a in ATTRIBUTES:
        hits = 0
        for item in items:
            a_values, b_values = (len({o[a] for o in _objects(s)}) for s in item["tests"])
            first = a_values < b_values if a_values != b_values else bool(coin(item["index"], 2, 5))
            hits += first == item["test_positive"][0]
        found[f"fewer {a}s"] = Probe(hits, len(items), 0.5)
        found[f"more {a}s"] = Probe(len(items) - hits, len(items), 0.5)
    return found


def halves(items: list[dict], train: list[dict] | None) -> tuple[list[dict], list[dict]]:
    """(fit, score): `train` and every item, or the first and second half by index."""
    if train:
        return train, items
    ordered = sorted(items, key=lambda item: item["index"])
    return ordered[:len(ordered) // 2], ordered[len(ordered) // 2:]




def best_distinct_rule(items: list[dict]) -> tuple[str, Probe]:
    """The distinct-values rule that scores highest, its verdict's bound divided among all eight."""
    rules = distinct_rules(items)
    name = max(rules, key=lambda k: rules[k].hits)
    return name, Probe(rules[name].hits, rules[name].n, 0.5, tests=len(rules))


def slim(item: dict) -> dict:
    """What these views read of a problem: its index, test_positive, near misses and each scene's objects'
    attributes (a worker process hands back this, not the whole record)."""
    scenes = {side: [{"objects": [{a: o[a] for a in ATTRIBUTES} for o in _objects(s)]} for s in item[side]]
              for side in ("positives", "negatives", "tests")}
    return {"index": item["index"], "test_positive": list(item["test_positive"]),
            "near_misses": list(item["near_misses"]), **scenes}
