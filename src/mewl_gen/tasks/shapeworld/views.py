"""What the learned view probes read of a ShapeWorld item (tasks.audit.views): the agreement from one
half of the item, the other withheld, featurised without an idea of where a leak could be.

- Caption withheld: the scene alone, its generic statistics (markers.panel_statistics) and each
  object's (markers.object_statistics), with how far it stands from its nearest other object and its
  rank along each ground axis. A scene is drawn before its caption's truth is known to no rule but the
  caption's, so the floor is 1/2.
- Scene withheld: the caption alone, its words (each with its place) and its logical form's fields
  (the parse a reader of the caption has), at 1/2: the caption pair is drawn before the agreement coin,
  which only picks the caption or its near miss, and a near miss reads like a caption.

The marker scan (tasks.audit.markers) reads the caption's referents: the objects that match a
description the caption states (logic.phrases: a subject, a relation's object, a restrictor, each with
its predicate or scope; a description that states nothing, 'objects', matches every object and names
none), which the sampler redraws and places until they make the caption true or false, against the
scene's other objects (the distractors); one of each per item by a coin of the index.

Each view is kept flattened (views.flatten): a worker hands back numbers, not the objects' rows."""
from __future__ import annotations

import math
from typing import Hashable

from pydantic import TypeAdapter

from mewl_gen.scenes.universe import TUPLE_ORDER

from ..audit.markers import coin, object_statistics, panel_statistics
from ..audit.views import flatten
from .logic import Statement, referents

STATEMENT = TypeAdapter(Statement)


def scene_view(scene: dict) -> dict[str, float]:
    objects = scene["objects"]
    rows = object_statistics(objects, TUPLE_ORDER)
    where = [o["position"] for o in objects]
    for k, row in enumerate(rows):
        row["nearest other"] = min((math.dist(where[k], p) for j, p in enumerate(where) if j != k), default=0.0)
        for axis in range(len(where[k])):
            row[f"rank on axis {axis}"] = sum(p[axis] < where[k][axis] for p in where)
    return flatten({**panel_statistics(objects, TUPLE_ORDER), "objects'": rows})


def _fields(form: object, path: str) -> dict[str, object]:
    """A logical form's leaves by their paths (a list's items by their place)."""
    if isinstance(form, dict):
        return {k: v for key, value in form.items() for k, v in _fields(value, f"{path}.{key}").items()}
    if isinstance(form, list):
        return {k: v for i, value in enumerate(form) for k, v in _fields(value, f"{path}[{i}]").items()}
    return {} if form is None else {path: form}


def caption_view(caption: str, logical_form: dict) -> dict[str, float]:
    words = caption.split()
    return flatten({"words": [{"word": w, "at": k, "from the end": len(words) - 1 - k} for k, w in enumerate(words)],
                    **_fields(logical_form, "form")})


def referent_and_distractor(item: dict) -> tuple[dict[str, Hashable], dict[str, Hashable]] | None:
    """A referent's statistics and a distractor's, each by a coin of the index; None where the scene
    lacks either."""
    objects = item["scene"]["objects"]
    about = referents(STATEMENT.validate_python(item["logical_form"]), objects)
    distractors = [k for k in range(len(objects)) if k not in about]
    if not about or not distractors:
        return None
    rows = object_statistics(objects, TUPLE_ORDER)
    index = item["index"]
    return rows[about[coin(index, len(about))]], rows[distractors[coin(index, len(distractors), 1)]]
