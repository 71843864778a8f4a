"""ShapeWorld: re-evaluate a caption from the released files alone.

Reads an item's `item.json` (its `logical_form`, as JSON) and `image.json`
(the per-image ground truth: objects with shape, color, material, size and
3d_coords, and `clevr_relationships`, where [rel][i] lists every j that lies
in direction rel of object i). It never imports the sampler: it is the second,
independent reading of the semantics in docs/shapeworld.md, and must agree
with every stored `agreement`, and finds the held-out combinations of the
item's `distribution` in its caption and image the same way.
"""
from __future__ import annotations

from mewl_gen.scenes.universe import OPPOSITE

ATTRIBUTES = ("shape", "color", "material", "size")


def _objects(image: dict) -> list[dict]:
    return [o for o in image["objects"] if o["shape"] != "arrow"]  # a pointing hand is not an object


def _fits(description: dict, obj: dict) -> bool:
    return all(description.get(a) in (None, obj[a]) for a in ATTRIBUTES)


def _both(first: dict, second: dict | None) -> dict:
    merged = dict(first)
    merged.update({k: v for k, v in (second or {}).items() if v is not None})
    return merged


def _count(image: dict, description: dict) -> int:
    return sum(_fits(description, o) for o in _objects(image))


def _lies(image: dict, x: int, rel: str, y: int) -> bool:
    return x in image["clevr_relationships"][rel][y]


def agrees(form: dict, image: dict) -> bool:
    """The truth of a logical form (item.json's `logical_form`) in an image (image.json)."""
    kind = form["kind"]
    if kind == "not":
        return not agrees(form["part"], image)
    if kind in ("and", "or"):
        values = [agrees(p, image) for p in form["parts"]]
        return all(values) if kind == "and" else any(values)
    if kind == "exists":
        return _count(image, _both(form["subject"], form.get("predicate"))) > 0
    if kind == "relation":
        objs = _objects(image)
        xs = [i for i, o in enumerate(objs) if _fits(form["subject"], o)]
        ys = [j for j, o in enumerate(objs) if _fits(form["object"], o)]
        # "the D" refers only when exactly one object is a D (Russell: otherwise false)
        xs = xs if form.get("subject_determiner", "a") == "a" or len(xs) == 1 else []
        ys = ys if form.get("object_determiner", "a") == "a" or len(ys) == 1 else []
        return any(x != y and _lies(image, x, form["relation"], y) for x in xs for y in ys)
    if kind == "quantifier":
        r = _count(image, form["restrictor"])
        rs = _count(image, _both(form["restrictor"], form["scope"]))
        q, n = form["quantifier"], form.get("number")
        return {"no": rs == 0, "exactly": rs == n, "at-least": n is not None and rs >= n,
                "most": rs * 2 > r, "all": r > 0 and rs == r}[q]
    raise ValueError(f"unknown logical form kind {kind!r}")


# -- held-out combinations (docs/shapeworld.md, "Distributions") ---------------

def atoms(form: dict) -> list[dict]:
    if form["kind"] == "not":
        return [form["part"]]
    if form["kind"] in ("and", "or"):
        return list(form["parts"])
    return [form]


def _phrases(form: dict) -> list[dict]:
    """The descriptions a caption states: a subject alone and with its predicate,
    a relation's two ends, a restrictor alone and with its scope."""
    out = []
    for a in atoms(form):
        if a["kind"] == "exists":
            out += [a["subject"], _both(a["subject"], a.get("predicate"))]
        elif a["kind"] == "relation":
            out += [a["subject"], a["object"]]
        else:
            out += [a["restrictor"], _both(a["restrictor"], a["scope"])]
    return out


def _states(description: dict, values) -> bool:
    return set(values) <= {v for v in description.values() if v is not None}


def _has(obj: dict, values) -> bool:
    return set(values) <= {obj[a] for a in ATTRIBUTES}


def in_caption(combination: dict, form: dict) -> bool:
    kind = combination["kind"]
    if kind == "attributes":
        return any(_states(d, combination["values"]) for d in _phrases(form))
    if kind == "relation":
        ways = ((combination["subject"], combination["relation"], combination["object"]),
                (combination["object"], OPPOSITE[combination["relation"]], combination["subject"]))
        return any(a["kind"] == "relation" and a["relation"] == rel and _states(a["subject"], s)
                   and _states(a["object"], o) for a in atoms(form) for s, rel, o in ways)
    if kind == "quantifier":
        return any(a["kind"] == "quantifier" and a["quantifier"] == combination["quantifier"]
                   and _states(_both(a["restrictor"], a["scope"]), combination["values"]) for a in atoms(form))
    raise ValueError(f"unknown held-out combination kind {kind!r}")


def in_image(combination: dict, image: dict) -> bool:
    """Whether the image shows the combination (a relation: CLEVR's, without a margin)."""
    objs = _objects(image)
    if combination["kind"] == "attributes":
        return any(_has(o, combination["values"]) for o in objs)
    if combination["kind"] == "relation":
        xs = [i for i, o in enumerate(objs) if _has(o, combination["subject"])]
        ys = [j for j, o in enumerate(objs) if _has(o, combination["object"])]
        return any(x != y and _lies(image, x, combination["relation"], y) for x in xs for y in ys)
    return False  # a scene holds objects, not quantifiers


def held_out_found(item: dict, image: dict) -> list[dict]:
    """The item's distribution's combinations in its caption, near miss or image."""
    forms = (item["logical_form"], item["near_miss"]["logical_form"])
    return [c for c in (item.get("distribution") or {}).get("held_out", [])
            if any(in_caption(c, f) for f in forms) or in_image(c, image)]
