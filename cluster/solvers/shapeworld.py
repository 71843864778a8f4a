"""ShapeWorld: re-evaluate a caption from the released files alone.

Reads an item's `item.json` (its `logical_form`, as JSON) and `image.json`
(the per-image ground truth: objects with shape, color, material, size and
3d_coords, and `clevr_relationships`, where [rel][i] lists every j that lies
in direction rel of object i). It never imports tasks/: it is the second,
independent reading of the semantics in docs/shapeworld.md, and must agree
with every stored `agreement`.
"""
from __future__ import annotations

import json
from pathlib import Path

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
        return any(x != y and _lies(image, x, form["relation"], y) for x in xs for y in ys)
    if kind == "quantifier":
        r = _count(image, form["restrictor"])
        rs = _count(image, _both(form["restrictor"], form["scope"]))
        q, n = form["quantifier"], form.get("number")
        return {"no": rs == 0, "exactly": rs == n, "at-least": n is not None and rs >= n,
                "most": rs * 2 > r, "all": r > 0 and rs == r}[q]
    raise ValueError(f"unknown logical form kind {kind!r}")


def check_folder(folder) -> tuple[bool, bool]:
    """(stored agreement, re-evaluated agreement) of a released item folder."""
    folder = Path(folder)
    item = json.loads((folder / "item.json").read_text())
    image = json.loads((folder / "image.json").read_text())
    return item["agreement"], agrees(item["logical_form"], image)
