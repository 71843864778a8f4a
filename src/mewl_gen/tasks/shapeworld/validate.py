"""A ShapeWorld item's validator: every label recomputed by the evaluator from the scene spec."""
from __future__ import annotations

from mewl_gen.scenes.relations import separated_in

from ..validation import require
from .captions import redundant
from .distribution import TEST_SPLIT
from .evaluate import World, holds, presupposed, stated_pairs
from .item import FORMS, OBJECTS, ShapeWorldItem
from .logic import say


def _elements(form) -> dict[str, object]:
    """A form's elements by path; a quantifier and its number are one element."""
    out: dict[str, object] = {}

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            if "quantifier" in value:
                out[f"{path}.quantifier"] = (value["quantifier"], value.get("number"))
            for k, v in value.items():
                if k not in ("quantifier", "number"):
                    walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for k, v in enumerate(value):
                walk(v, f"{path}.{k}")
        elif value is not None:
            out[path] = value

    walk(form.model_dump(mode="json"), "")
    return out


def one_element_apart(a, b) -> bool:
    """b is a with one element changed (the same kind of form)."""
    ea, eb = _elements(a), _elements(b)
    return type(a) is type(b) and sum(ea.get(k) != eb.get(k) for k in set(ea) | set(eb)) == 1


def validate(item: ShapeWorldItem) -> None:
    """Every label recomputed by the evaluator from the scene spec."""
    where = f"{item.task} item {item.index}"
    form, miss = item.logical_form, item.near_miss.logical_form
    lo, hi = OBJECTS[item.task]
    require(lo <= len(item.scene.objects) <= hi, f"{where}: {len(item.scene.objects)} objects, not {lo}-{hi}")
    require(isinstance(form, FORMS[item.task]), f"{where}: a {form.kind} caption")
    require(item.caption == say(form) and item.near_miss.caption == say(miss), f"{where}: a caption is not its form's")
    require(one_element_apart(form, miss), f"{where}: the near miss is not one element away")
    require(not redundant(form) and not redundant(miss), f"{where}: a statement joined with itself")
    world = World.of(item.scene)
    require(presupposed(form, world) and presupposed(miss, world),
            f"{where}: a definite description ('the ...') without exactly one referent")
    require(holds(form, world) == item.agreement, f"{where}: the evaluator says {not item.agreement}")
    require(holds(miss, world) != item.agreement, f"{where}: the near miss agrees as the caption does")
    for x, y in stated_pairs(form, world) + stated_pairs(miss, world):
        require(separated_in(world.table, x, y), f"{where}: objects {x} and {y} of a stated relation are a near-tie")
    dist = item.distribution
    if dist is None:
        require(not item.held_out_used, f"{where}: held-out combinations without a distribution")
        return
    used = tuple(dict.fromkeys(dist.in_caption(form) + dist.in_scene(world)))
    require(item.held_out_used == used, f"{where}: held_out_used is not what the caption and scene use")
    if item.split == TEST_SPLIT:
        require(bool(used), f"{where}: a test item without a held-out combination")
    else:
        require(not used and not dist.in_caption(miss) and not dist.near_scene(world),
                f"{where}: held-out combinations outside the test split")
