"""Drawing a MALeViC item: choose the sentence's class, a scene where it holds
(or fails), then place the scene so that every size can be judged.

Exactly one item of each index pair (2j, 2j+1) is true, which one drawn from
the pair's seed (tasks.seeds.balanced_label), so any even number of items is
exactly half true and the index tells nothing. A false item is the adjective swap of its scene's
true sentence: the scene is drawn so that its target deserves the other
adjective. Classes (shape x color x adjective) are uniform and independent of
the label.
"""
from __future__ import annotations

import numpy as np

from scenes.draws import redraw
from scenes.placement import place_scene
from scenes.spec import SceneSpec
from scenes.universe import COLORS, SHAPES, SIZE_SCALE
from scenes.visibility import estimate_visible_pixels, projected_areas

from ..benchmark import IID, Draw
from ..seeds import balanced_label, draw_seed
from .item import K_SHARP, K_SPREAD, OBJECT_COUNTS, POSITIVE, QUERY_LEVELS, SIZE_LEVELS, SWAP, MalevicItem, sentence
from .rules import Rules, Statement, broken_rule, positive, reference_set, threshold, true_adjective

UNSEEN = "malevic-unseen"
# Paper 7.2 held out half the (adjective, noun) pairs, each adjective seen with two
# nouns. With three shapes: each adjective keeps two, the sphere is seen with both,
# and 'big cylinder' and 'small cube' are only ever tested.
HELD_OUT: frozenset[tuple[str, str]] = frozenset({("big", "cylinder"), ("small", "cube")})
SCHEME_SPLITS = {"train": False, "val": False, "test": True}  # split -> draws the held-out pairs
# Rubber and metal only: glass shows the objects behind it and blurs its own
# outline, so its size is harder to judge than the task means it to be.
MATERIALS = ("rubber", "metal")
# MEWL's view at 1.5x its 320x240: the smallest sphere clears placement's pixel
# minimum on 90 % of the stage, not 10 %, so small objects are not pushed towards
# the camera; a level step (0.05) of a far small object spans two pixels.
IMAGE_SIZE = (480, 360)
MIN_VISIBLE_FRACTION = 0.8  # of each object's silhouette, besides placement's own pixel minimum
# Statements per item (cheap: no geometry); the rarest kinds (SUP1 of 9 objects,
# a big SET+POS-hard target among 5) are kept about 1 in 33.
STATEMENT_DRAWS = 2000


def check_split(scheme: str, split: str, task: str = "malevic") -> None:
    """ValueError (one line, for the CLI to show before any work) for a scheme or split this benchmark lacks."""
    if scheme not in (IID, UNSEEN):
        raise ValueError(f"unknown split scheme {scheme!r} for {task} (iid or {UNSEEN})")
    if scheme == UNSEEN and split not in SCHEME_SPLITS:
        raise ValueError(f"split {split!r} has no place in the {UNSEEN} scheme "
                         f"(train and val: seen adjective-noun pairs; test: held-out pairs)")


def sentence_classes(rules: Rules, scheme: str, split: str, task: str) -> list[tuple[str, str]]:
    """The (adjective, shape) pairs this item's sentence may use under its split scheme."""
    check_split(scheme, split, task)
    words = ("biggest", "smallest") if rules.superlative else ("big", "small")
    pairs = [(a, s) for a in words for s in SHAPES]
    if scheme == IID:
        return pairs
    return [(a, s) for a, s in pairs if ((POSITIVE[a], s) in HELD_OUT) == SCHEME_SPLITS[split]]


def draw_statement(rng: np.random.Generator, rules: Rules, n: int, shape: str, color: str) -> Statement:
    """A random scene of n objects around a target of this shape and color (rules checked apart)."""
    target = int(rng.integers(n))
    shapes = [shape if rules.one_shape or i == target else str(rng.choice(SHAPES)) for i in range(n)]
    # Another object of the target's shape never takes its color: drawn from the other seven.
    others = [c for c in COLORS if c != color]
    colors = [color if i == target else str(rng.choice(others if s == shape else COLORS)) for i, s in enumerate(shapes)]
    levels = [int(rng.choice(QUERY_LEVELS)) if i == target else int(rng.integers(len(SIZE_LEVELS))) for i in range(n)]
    k = None if rules.superlative else redraw(lambda: float(rng.normal(K_SHARP, K_SPREAD)), lambda v: 0 <= v <= 1, "k")
    return Statement(tuple(shapes), tuple(colors), tuple(levels), target, k)


def clevr_size(extent: float) -> str:
    """The nearer of CLEVR's two size words, for the ground truth's `size` field."""
    return min(SIZE_SCALE, key=lambda w: abs(SIZE_SCALE[w] - extent))


def visible_fractions(spec: SceneSpec) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per object: projected area (pixels) and the estimated share of it left visible, as item.json stores them."""
    areas = projected_areas(spec)
    seen = estimate_visible_pixels(spec)
    return tuple(round(a, 3) for a in areas), tuple(round(v / a, 4) for v, a in zip(seen, areas))


def judgeable(spec: SceneSpec) -> bool:
    """Every object shows at least MIN_VISIBLE_FRACTION of its silhouette."""
    return min(visible_fractions(spec)[1]) >= MIN_VISIBLE_FRACTION


def draw_sentence(rng: np.random.Generator, d: Draw, rules: Rules) -> tuple[str, bool, Statement]:
    """The sentence's adjective, its label and a statement (no geometry yet) that makes it so."""
    classes = sentence_classes(rules, d.scheme, d.split, d.task)
    adjective, shape = classes[int(rng.integers(len(classes)))]
    color = str(rng.choice(COLORS))
    label = balanced_label(d.root_seed, d.split, d.code, d.index)
    deserved = adjective if label else SWAP[adjective]
    n = int(rng.choice(OBJECT_COUNTS))
    st = redraw(lambda: draw_statement(rng, rules, n, shape, color),
                lambda s: broken_rule(rules, s) is None and true_adjective(rules, s) == deserved,
                f"{d.task} scene with a {deserved} target", limit=STATEMENT_DRAWS)
    return adjective, label, st


def sample(rng: np.random.Generator, d: Draw, rules: Rules) -> MalevicItem:
    adjective, label, st = draw_sentence(rng, d, rules)
    materials = [str(m) for m in rng.choice(MATERIALS, len(st.shapes))]
    props = [(s, c, m, clevr_size(e)) for s, c, m, e in zip(st.shapes, st.colors, materials, st.sizes)]
    scene = place_scene(draw_seed(rng), props, half_extents=st.sizes, image_size=IMAGE_SIZE, accept=judgeable)
    areas, fractions = visible_fractions(scene)
    reference = reference_set(rules, st.shapes, st.target)
    target = scene.objects[st.target]
    noun = target.shape if rules.noun_is_shape else "object"
    return MalevicItem(
        task=d.task, split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, scheme=d.scheme,
        scene=scene, sentence=sentence(target.color, target.shape, adjective, noun), label=label,
        target=st.target, reference=reference, adjective=adjective, noun=noun, sizes=st.sizes, size_levels=st.levels,
        k=st.k, threshold=None if st.k is None else threshold(st.sizes, reference, st.k),
        label_sharp=label if st.k is None else positive(st.sizes, reference, st.target, K_SHARP) == adjective,
        projected_area=areas, visible_fraction=fractions,
    )
