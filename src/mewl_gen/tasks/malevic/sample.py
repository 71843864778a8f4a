"""Drawing a MALeViC item: the sentence's class and its label, then a scene
that is the same whichever the label, then which object the sentence names.

The matched construction (docs/malevic.md, "True and false"): every scene holds
a pair of objects of the target's shape at adjacent levels (a, a + 1), a
uniform on 1..7, that the adjective tells apart: the upper one is big and the
lower one small under the scene's T (SUP1: the upper one is the only biggest,
or the lower one the only smallest). The scene, its sizes and k are drawn
before and apart from the label; the label only chooses which of the two the
sentence names. So nothing in the scene without the target's identity tells
the label (1/2), and the target's own level tells it at 4/7, the least any
scene drawn apart from the label allows (docs/malevic.md). Under the
threshold tasks the reference set fills every level of its range, which
reaches past the pair on both sides: either object of the pair has an
object one level below and one above, so its neighbours do not tell which
of the two it is (draw_levels), and every size without k decides the label
no better than floor.py's exact floor. Each index draws its
label from its own seed (item_label): no pair of indexes shares one.
Classes (shape x color x adjective) are uniform and independent of the label.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLORS, SHAPES, SIZE_SCALE
from mewl_gen.scenes.visibility import estimate_visible_pixels, projected_areas

from ..benchmark import IID, Draw
from ..seeds import draw_seed, name_code, split_code
from .item import K_SHARP, K_SPREAD, POSITIVE, SIZE_LEVELS, MalevicItem, sentence
from .rules import (HAIR, SET_MIN, Rules, Statement, broken_rule, object_counts, positive, reference_set,
                    threshold, twin)

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
# The lower level of the pair; both levels (a, a + 1) are query levels (1..8).
PAIR_LOW: tuple[int, ...] = tuple(range(1, 8))
TOP = len(SIZE_LEVELS) - 1
SCENE_DRAWS = 400  # scenes around one pair (cheap: no geometry); the rarest, a = 1, needs k above 1/3 (1 in 5)
RUN_MIN = 4  # a reference set fills the pair's two levels and one more on either side
_LABEL = name_code("malevic label")


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


def item_label(root_seed: int, split: str, code: int, index: int) -> bool:
    """An item's label: a fair coin of its own index (not its pair's, not its retry's)."""
    rng = np.random.default_rng(np.random.SeedSequence([root_seed, split_code(split), code, index, _LABEL]))
    return bool(rng.integers(2))


def range_bounds(a: int, k: float, room: int) -> list[tuple[int, int]]:
    """The reference set's (min, max) levels whose T (with this k) falls between levels a and a + 1, a
    hair clear of both, with a level of the run on either side of the pair (min <= a - 1, max >= a + 2),
    and at most `room` levels (the reference objects that fill them)."""
    def between(lo: int, hi: int) -> bool:
        t = threshold((SIZE_LEVELS[lo], SIZE_LEVELS[hi]), (0, 1), k)
        return SIZE_LEVELS[a + 1] - t >= HAIR and t - SIZE_LEVELS[a] >= HAIR

    return [(lo, hi) for lo in range(a) for hi in range(a + 2, TOP + 1) if hi - lo < room and between(lo, hi)]


def reference_size(rng: np.random.Generator, rules: Rules, n: int) -> int:
    """How many objects the reference set holds: the scene, or (SET+POS) at least RUN_MIN of the target's
    shape and at least one of another."""
    return n if not rules.shape_reference else int(rng.integers(max(SET_MIN, RUN_MIN), n))


def draw_levels(rng: np.random.Generator, rules: Rules, n: int, adjective: str, a: int
                ) -> tuple[list[int], int, float | None] | None:
    """Levels of n objects, the pair (a + 1, a) first, then the rest of the reference set, then the
    objects outside it; the reference set's size; k. None where no reference range fits this k.

    Threshold tasks: the reference set fills every level of its range (min..max), each once, and its
    other objects fall uniformly on the range; the range reaches at least a level past each end of the
    pair. So both objects of the pair have an object one level below and one level above, and the counts
    at those levels have one law for either (levels drawn alike are exchangeable): nothing next to the
    target tells which of the two it is. Of the ranges that put T between the pair under the drawn k, one
    uniformly: none preferred for the sharp k, so the sizes without k decide the label no better than
    the spread of k allows (floor.py)."""
    if rules.superlative:  # the upper one the only biggest, or the lower one the only smallest
        others = rng.integers(0, a + 1, n - 2) if adjective == "biggest" else rng.integers(a + 1, TOP + 1, n - 2)
        return [a + 1, a, *map(int, others)], n, None
    k = redraw(lambda: float(rng.normal(K_SHARP, K_SPREAD)), lambda v: 0 <= v <= 1, "k")
    m = reference_size(rng, rules, n)
    bounds = range_bounds(a, k, m)
    if not bounds:
        return None
    lo, hi = bounds[int(rng.integers(len(bounds)))]
    run = [v for v in range(lo, hi + 1) if v not in (a, a + 1)]
    rest = rng.integers(lo, hi + 1, m - 2 - len(run))
    outside = rng.integers(0, TOP + 1, n - m)
    return [a + 1, a, *run, *map(int, rest), *map(int, outside)], m, k


def draw_scene(rng: np.random.Generator, rules: Rules, n: int, shape: str, color: str, adjective: str, a: int,
               upper: bool) -> Statement | None:
    """A scene around the pair at levels (a + 1, a); the target, a `color` `shape`, is the upper one
    or the lower one. Everything but which of the two the sentence names is drawn alike either way, and
    the twin is drawn like the objects around it (docs/tasks.md, "Constructions leave no marker"): its
    shape like any object's that may share the target's level range, and every object's color without
    replacement among the objects of its shape, so that no description repeats and being uniquely named
    marks no object. None where a shape has more objects than there are colors."""
    drawn = draw_levels(rng, rules, n, adjective, a)
    if drawn is None:
        return None
    levels, m, k = drawn
    target = 0 if upper else 1
    shapes = [shape if i == target else object_shape(rng, rules, shape, i < m) for i in range(n)]
    colors = distinct_colors(rng, shapes, target, color)
    if colors is None:
        return None
    order = rng.permutation(n)
    return Statement(tuple(shapes[i] for i in order), tuple(colors[i] for i in order),
                     tuple(levels[i] for i in order), int(np.flatnonzero(order == target)[0]), k)


def object_shape(rng: np.random.Generator, rules: Rules, shape: str, in_reference: bool) -> str:
    """A shape for an object other than the target: the target's in a one-shape task and inside a SET+POS
    reference set, another outside it, and in POS any, uniformly."""
    if rules.one_shape or rules.shape_reference and in_reference:
        return shape
    return str(rng.choice([s for s in SHAPES if s != shape] if rules.shape_reference else SHAPES))


def distinct_colors(rng: np.random.Generator, shapes: list[str], target: int, color: str) -> list[str] | None:
    """Colors, distinct within each shape, the target's `color`: each shape's other objects draw without
    replacement from the colors left (for the target's shape, every color but `color`). None where a shape
    has more objects than colors."""
    colors: list[str] = [color] * len(shapes)
    for s in dict.fromkeys(shapes):
        members = [i for i, x in enumerate(shapes) if x == s and i != target]
        free = [c for c in COLORS if s != shapes[target] or c != color]
        if len(members) > len(free):
            return None
        for i, c in zip(members, rng.choice(free, len(members), replace=False)):
            colors[i] = str(c)
    return colors


def matched(rules: Rules, st: Statement | None, adjective: str) -> bool:
    """Both objects of the pair are valid targets that the adjective tells apart."""
    return st is not None and broken_rule(rules, st) is None and twin(rules, st, adjective) is not None


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
    label = item_label(d.root_seed, d.split, d.code, d.index)
    upper = (POSITIVE[adjective] == "big") == label
    n = int(rng.choice(object_counts(rules)))
    a = int(rng.choice(PAIR_LOW))
    st = redraw(lambda: draw_scene(rng, rules, n, shape, color, adjective, a, upper),
                lambda s: matched(rules, s, adjective), f"{d.task} scene around levels {a} and {a + 1}",
                limit=SCENE_DRAWS)
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
