"""ShapeWorld's samplers: a caption pair first, then a scene that decides it.

1. Whether the item agrees is a fair coin of the item's own seed (its
   index's, not the retry's), drawn before anything else: no other item's
   label says anything about it (no index pair with one agreeing item, which
   a model scoring both could exploit), and agreement is true half the time
   up to binomial noise.
2. A logical form and its near miss are drawn from the task's grammar
   (captions.py), free of held-out combinations outside the test split and
   both using one in it, and kept only if objects deciding it either way
   turn up (tested before the label is looked at); a coin picks which of
   the two is the caption.
3. The object count is drawn with the pair, before the label is looked
   at, and the pair is kept only if objects of that count decide it either
   way: (caption, count) has one law for agreeing and disagreeing items,
   so no quantifier's count tells the label ("no ..." with few objects).
   Objects are drawn uniformly, each attribute on its own, and redrawn
   (every "the D" of the pair with exactly one D) and placed until the
   evaluator finds the caption agreeing as required and its near miss the
   other way, every stated relation clear of the margin. No object is drawn
   towards a description the pair mentions: drawing towards them (0.5.0
   did, six objects in ten) makes the caption's referents share their
   colour and size with other objects more often than the rest of the scene
   does, a marker the audit's referent scan finds (docs/tasks.md).
4. Objects whose canonical key (task, caption, objects' attributes:
   repeats.py; never the agreement) belongs to another split's side are
   rejected before they are placed, so no test item repeats a train or val
   item, and an item's split says nothing about its label.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mewl_gen.scenes.draws import OutOfDraws, redraw
from mewl_gen.scenes.placement import PlacementError, place_scene
from mewl_gen.scenes.quick_draws import QuickDraws
from mewl_gen.scenes.relations import RELATION_MARGIN, separated_in
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER

from ..benchmark import Draw
from ..seeds import draw_seed, split_code
from .captions import has_relation, near_miss, redundant
from .distribution import TEST_SPLIT, AttributeCombination, Distribution, QuantifierCombination, RelationCombination
from .evaluate import World, holds, possible, presupposed, stated_pairs
from .item import OBJECTS, Caption, ShapeWorldItem
from .logic import say
from . import repeats

CAPTION_DRAWS = 1000  # caption pairs drawn for one item (held-out combinations are rare)
OBJECT_DRAWS = 500  # object lists drawn for one placement
EITHER_WAY_DRAWS = 100  # object lists tried per verdict before a caption pair counts as one-sided
PLACEMENTS = 40  # object lists tried in place for a caption about positions
PLACEMENT_ATTEMPTS = 10
AGREEMENT_TAG = 0x5A17  # entropy that sets the label's coin apart from the items' own seeds
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


def item_agreement(d: Draw) -> bool:
    coin = np.random.default_rng([d.root_seed, split_code(d.split), d.code, d.index, AGREEMENT_TAG])
    return bool(coin.integers(2))


def _held_out_ok(task: str, dist: Distribution | None, test: bool):
    """Whether a caption pair suits the split: free of held-out combinations
    outside the test split, both using one in it (when the task can say one)."""
    if dist is None or test and not any(isinstance(c, SAYABLE[task]) for c in dist.held_out):
        return lambda pair: True  # iid, or a test scene carries the held-out combination
    if test:
        return lambda pair: all(dist.in_caption(f) for f in pair)
    return lambda pair: not any(dist.in_caption(f) for f in pair)


def _thing(q: QuickDraws) -> Thing:
    values = {a: vs[q.integers(0, len(vs))] for a, vs in ATTRIBUTES.items()}
    return Thing(*(values[a] for a in TUPLE_ORDER))


class SceneDraw:
    """Scenes for one caption pair (form, miss): the caption agreeing or not
    as asked, the near miss the other way, every stated relation clear of the
    margin, and held-out combinations only where the split allows them."""

    def __init__(self, rng: np.random.Generator, d: Draw, form, miss, dist: Distribution | None, test: bool):
        self.rng, self.form, self.miss, self.dist, self.split = rng, form, miss, dist, d.split
        self.task, self.caption = d.task, say(form)
        self.forbidden = () if dist is None or test else dist.held_out
        self.must_show = test and not any(c.in_caption(form) for c in dist.held_out)  # the scene carries one
        self.positional = has_relation(form) or has_relation(miss) or self.must_show or any(
            isinstance(c, RelationCombination) for c in self.forbidden)
        lo, hi = OBJECTS[d.task]  # the object count goes with the pair, drawn before the label is looked at
        self.count = int(rng.integers(lo, hi + 1))
        self.found: dict[bool, list[Thing]] = {}  # objects either_way found, used first by scene()

    def things(self) -> list[Thing]:
        with QuickDraws(self.rng) as q:  # drawn thousands of times for a pair: NumPy's draws without its cost per call
            return [_thing(q) for _ in range(self.count)]

    def feasible(self, objects: list[Thing], agreement: bool) -> bool:
        """The objects can decide the pair as asked once placed (exactly, if nothing depends on places),
        and their key is on the split's side."""
        world = World(objects)
        return repeats.admits(self.task, self.caption, objects, agreement, self.split) and not any(
            c.in_scene(world) for c in self.forbidden if isinstance(c, AttributeCombination)) and (
            presupposed(self.form, world) and presupposed(self.miss, world)
            and agreement in possible(self.form, world) and (not agreement) in possible(self.miss, world))

    def either_way(self) -> bool:
        """Objects for the caption agreeing and for it disagreeing both turn up within a few draws.
        A pair that passes only one way (one atom entailing another) is redrawn whatever the coin
        says, so which pairs are kept does not depend on the label."""
        for agreement in (True, False):
            try:
                self.found[agreement] = redraw(self.things, lambda o: self.feasible(o, agreement), "objects",
                                               EITHER_WAY_DRAWS)
            except OutOfDraws:
                return False
        return True

    def accept(self, spec, agreement: bool) -> bool:
        world = World.of(spec)
        form, miss = self.form, self.miss
        return (holds(form, world) == agreement and holds(miss, world) != agreement
                and not any(c.in_scene(world, -RELATION_MARGIN) for c in self.forbidden)
                and all(separated_in(world.table, x, y) for x, y in stated_pairs(form, world) + stated_pairs(miss, world))
                and (not self.must_show or bool(self.dist.in_scene(world))))

    def scene(self, agreement: bool):
        def objects() -> list[Thing]:
            if agreement in self.found:
                return self.found.pop(agreement)
            return redraw(self.things, lambda o: self.feasible(o, agreement), "objects", OBJECT_DRAWS)

        if not self.positional:
            return place_scene(draw_seed(self.rng), objects())
        for _ in range(PLACEMENTS):
            try:
                return place_scene(draw_seed(self.rng), objects(), accept=lambda spec: self.accept(spec, agreement),
                                   max_attempts=PLACEMENT_ATTEMPTS)
            except PlacementError:
                continue
        raise OutOfDraws(f"no scene decides {say(self.form)!r} as required in {PLACEMENTS} placements")


def _caption_pair(rng: np.random.Generator, d: Draw, draw_form, dist: Distribution | None, test: bool) -> SceneDraw:
    suits = _held_out_ok(d.task, dist, test)
    # The form's kind (a connective, 'not', an atom's) is drawn once, and a pair that cannot go either
    # way is redrawn within it: the grammar's kinds keep their shares, where redrawing every pair
    # afresh would thin out those that are harder to decide both ways ('and').
    kind = draw_form(rng).kind

    def pair() -> SceneDraw:
        form = draw_form(rng)
        while form.kind != kind:
            form = draw_form(rng)
        miss = near_miss(rng, form)
        if rng.integers(2):  # which of the two is the caption
            form, miss = miss, form
        return SceneDraw(rng, d, form, miss, dist, test)

    def ok(p: SceneDraw) -> bool:
        return not redundant(p.form) and not redundant(p.miss) and suits((p.form, p.miss)) and p.either_way()

    return redraw(pair, ok, "caption pair", CAPTION_DRAWS)


def sample(rng: np.random.Generator, d: Draw, draw_form) -> ShapeWorldItem:
    dist = d.config
    if dist is not None and not isinstance(dist, Distribution):
        raise TypeError(f"ShapeWorld's config is a Distribution, not {type(dist).__name__}")
    test = dist is not None and d.split == TEST_SPLIT
    agreement = item_agreement(d)
    draw = _caption_pair(rng, d, draw_form, dist, test)
    form, miss = draw.form, draw.miss
    scene = draw.scene(agreement)
    used = () if dist is None else tuple(dict.fromkeys(dist.in_caption(form) + dist.in_scene(World.of(scene))))
    return ShapeWorldItem(
        task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry,
        caption=say(form), logical_form=form, agreement=agreement,
        near_miss=Caption(caption=say(miss), logical_form=miss),
        distribution=dist, held_out_used=used, scene=scene,
    )
