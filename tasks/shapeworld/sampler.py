"""ShapeWorld's samplers: a caption pair first, then a scene that decides it.

1. Whether the item agrees is fixed per pair of indices (2k, 2k+1): one
   agrees, the other not, in an order drawn from the pair's own seed; so
   agreement is true exactly half the time.
2. A logical form and its near miss are drawn from the task's grammar
   (captions.py), free of held-out combinations outside the test split and
   both using one in it; a coin picks which one is the caption.
3. Objects are drawn (biased towards the descriptions the captions mention,
   so the counts and relations they talk about occur) and placed until the
   evaluator finds the caption agreeing as required and its near miss the
   other way, every stated relation clear of the margin.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from scenes.draws import OutOfDraws, redraw
from scenes.placement import PlacementError, place_scene
from scenes.relations import separated_in
from scenes.universe import ATTRIBUTES, TUPLE_ORDER

from ..registry import Draw
from ..seeds import draw_seed, split_code, task_code
from .captions import has_relation, near_miss
from .distribution import TEST_SPLIT, AttributeCombination, Distribution, QuantifierCombination, RelationCombination
from .evaluate import World, holds, possible, stated_pairs
from .item import OBJECTS, Caption, ShapeWorldItem
from .logic import phrases, say

CAPTION_DRAWS = 3000  # caption pairs drawn for one item (cheap; held-out combinations are rare)
OBJECT_DRAWS = 500  # object lists drawn for one placement
PLACEMENTS = 12  # object lists tried in place for a caption about positions
PLACEMENT_ATTEMPTS = 40
MENTIONED = 0.6  # chance that an object is drawn from a description the captions mention
PAIR_TAG = 0x5A17  # entropy that sets the pair coin apart from the items' own seeds
# Which tasks can say which kind of held-out combination in a caption.
SAYABLE = {
    "shapeworld-existential": (AttributeCombination,),
    "shapeworld-relational": (AttributeCombination, RelationCombination),
    "shapeworld-quantification": (AttributeCombination, QuantifierCombination),
    "shapeworld-logical": (AttributeCombination, RelationCombination, QuantifierCombination),
}


class Thing(NamedTuple):
    """An object's attributes, before it has a place (MEWL's tuple order)."""

    shape: str
    color: str
    material: str
    size: str


def pair_agreement(d: Draw) -> bool:
    coin = np.random.default_rng([d.root_seed, split_code(d.split), task_code(d.task), d.index // 2, PAIR_TAG])
    return bool(coin.integers(2) == d.index % 2)


def _captions(rng: np.random.Generator, task: str, draw_form, dist: Distribution | None, test: bool):
    def pair():
        form = draw_form(rng)
        return form, near_miss(rng, form)

    if dist is None:
        return pair()
    if test and any(isinstance(c, SAYABLE[task]) for c in dist.held_out):
        return redraw(pair, lambda p: all(dist.in_caption(f) for f in p), "test caption pair", CAPTION_DRAWS)
    if test:
        return pair()  # the scene carries the held-out combination
    return redraw(pair, lambda p: not any(dist.in_caption(f) for f in p), "caption pair", CAPTION_DRAWS)


def _thing(rng: np.random.Generator, mentioned) -> Thing:
    values = {a: vs[int(rng.integers(len(vs)))] for a, vs in ATTRIBUTES.items()}
    if rng.random() < MENTIONED:
        values.update(mentioned[int(rng.integers(len(mentioned)))].stated)
    return Thing(*(values[a] for a in TUPLE_ORDER))


def _scene(rng, task: str, form, miss, agreement: bool, dist: Distribution | None, test: bool):
    forbidden = () if dist is None or test else dist.held_out
    must_show = test and not any(c.in_caption(form) for c in dist.held_out)  # the scene carries one
    positional = has_relation(form) or has_relation(miss) or must_show or any(
        isinstance(c, RelationCombination) for c in forbidden)
    mentioned = phrases(form) + phrases(miss)
    lo, hi = OBJECTS[task]

    def decided(world: World) -> bool:
        return holds(form, world) == agreement and holds(miss, world) != agreement

    def things() -> list[Thing]:
        return [_thing(rng, mentioned) for _ in range(int(rng.integers(lo, hi + 1)))]

    def feasible(objects: list[Thing]) -> bool:
        world = World(objects)
        return not any(c.in_scene(world) for c in forbidden if isinstance(c, AttributeCombination)) and (
            agreement in possible(form, world) and (not agreement) in possible(miss, world))

    def accept(spec) -> bool:
        world = World.of(spec)
        return (decided(world) and not any(c.in_scene(world) for c in forbidden)
                and all(separated_in(world.table, x, y) for x, y in stated_pairs(form, world) + stated_pairs(miss, world))
                and (not must_show or bool(dist.in_scene(world))))

    if not positional:
        return place_scene(draw_seed(rng), redraw(things, feasible, "objects", OBJECT_DRAWS))
    for _ in range(PLACEMENTS):
        try:
            return place_scene(draw_seed(rng), redraw(things, feasible, "objects", OBJECT_DRAWS),
                               accept=accept, max_attempts=PLACEMENT_ATTEMPTS)
        except PlacementError:
            continue
    raise OutOfDraws(f"no scene decides {say(form)!r} as required in {PLACEMENTS} placements")


def sample(rng: np.random.Generator, d: Draw, draw_form) -> ShapeWorldItem:
    dist = d.config
    if dist is not None and not isinstance(dist, Distribution):
        raise TypeError(f"ShapeWorld's config is a Distribution, not {type(dist).__name__}")
    test = dist is not None and d.split == TEST_SPLIT
    agreement = pair_agreement(d)
    form, miss = _captions(rng, d.task, draw_form, dist, test)
    if rng.integers(2):
        form, miss = miss, form
    scene = _scene(rng, d.task, form, miss, agreement, dist, test)
    used = () if dist is None else tuple(dict.fromkeys(dist.in_caption(form) + dist.in_scene(World.of(scene))))
    return ShapeWorldItem(
        task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry,
        caption=say(form), logical_form=form, agreement=agreement,
        near_miss=Caption(caption=say(miss), logical_form=miss),
        distribution=dist, held_out_used=used, scene=scene,
    )
