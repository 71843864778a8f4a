"""The paper's rules (sections 3, 4 and 7.1), one declaration per task, and the
truth of a sentence computed from sizes alone.

Sizes are half-extents: the object's physical size, whatever its distance to
the camera. A sphere of half-extent s fits exactly in a cube of half-extent s,
so sizes compare across shapes the way CLEVR's 'large' and 'small' do.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from mewl_gen.scenes.universe import COLORS

from .item import OBJECT_COUNTS, SIZE_LEVELS

# A target this close to T (scene units, a tenth of a level step) is never
# queried: its label would hang on float rounding, not on the vagueness the
# paper models by drawing k per scene.
HAIR = 0.005
SET_MIN = 3  # SET+POS: at least three objects share the target's shape


@dataclass(frozen=True)
class Rules:
    superlative: bool = False  # SUP1: biggest/smallest over the scene, else the threshold function
    one_shape: bool = False  # SUP1, POS1: one shape type per scene (the target named by its color)
    noun_is_shape: bool = True  # 'a big cube'; POS says 'a big object'
    shape_reference: bool = False  # SET+POS: the reference set is the objects of the target's shape
    not_scene_extreme: bool = False  # SET+POS (rule 3) and POS-hard: never the biggest or smallest of the scene
    not_reference_extreme: bool = False  # SET+POS-hard: never the biggest or smallest of the reference set


# Each task as the paper builds it, from the one before.
POS1 = Rules(one_shape=True)
SUP1 = replace(POS1, superlative=True)
POS = Rules(noun_is_shape=False)
SETPOS = Rules(shape_reference=True, not_scene_extreme=True)
TASK_RULES: dict[str, Rules] = {
    "sup1": SUP1,
    "pos1": POS1,
    "pos": POS,
    "setpos": SETPOS,
    "pos-hard": replace(POS, not_scene_extreme=True),
    "setpos-hard": replace(SETPOS, not_reference_extreme=True),
}


@dataclass(frozen=True)
class Statement:
    """A scene before placement: what the sentence's truth depends on."""

    shapes: tuple[str, ...]
    colors: tuple[str, ...]
    levels: tuple[int, ...]
    target: int
    k: float | None  # None for the superlative, which is precise

    @property
    def sizes(self) -> tuple[float, ...]:
        return tuple(SIZE_LEVELS[v] for v in self.levels)


def object_counts(rules: Rules) -> tuple[int, ...]:
    """How many objects a scene may hold: the paper's 5 to 9, and in a one-shape task no more than there are
    colors, since every object there is told apart by its color alone (broken_rule)."""
    return tuple(n for n in OBJECT_COUNTS if not rules.one_shape or n <= len(COLORS))


def description(rules: Rules, st: Statement, i: int) -> tuple[str, ...]:
    """What a sentence calls object i by: its color in a one-shape task, else its color and shape."""
    return (st.colors[i],) if rules.one_shape else (st.colors[i], st.shapes[i])


def reference_set(rules: Rules, shapes, target: int) -> tuple[int, ...]:
    if rules.shape_reference:
        return tuple(i for i, s in enumerate(shapes) if s == shapes[target])
    return tuple(range(len(shapes)))


def threshold(sizes, reference, k: float) -> float:
    """Schmidt et al.'s Relative Height by Range: T = Max - k (Max - Min)."""
    ref = [sizes[i] for i in reference]
    return max(ref) - k * (max(ref) - min(ref))


def positive(sizes, reference, target: int, k: float) -> str:
    """'big' for a size within the top k of the reference range (T included), else 'small'."""
    return "big" if sizes[target] >= threshold(sizes, reference, k) else "small"


def extreme(sizes, among, target: int) -> bool:
    """Whether the target is (one of) the biggest or smallest of `among`."""
    ref = [sizes[i] for i in among]
    return sizes[target] in (max(ref), min(ref))


def true_adjective(rules: Rules, st: Statement) -> str | None:
    """The adjective the target deserves; None for a SUP1 target that is neither the only
    biggest nor the only smallest (a false item of either adjective), or one within a hair of T."""
    sizes, t = st.sizes, st.target
    if rules.superlative:
        others = [s for i, s in enumerate(sizes) if i != t]
        return "biggest" if sizes[t] > max(others) else "smallest" if sizes[t] < min(others) else None
    reference = reference_set(rules, st.shapes, t)
    if abs(sizes[t] - threshold(sizes, reference, st.k)) < HAIR:
        return None
    return positive(sizes, reference, t, st.k)


def broken_rule(rules: Rules, st: Statement) -> str | None:
    """The first rule of the task the statement breaks, in words; None if it keeps them all."""
    n, t = len(st.shapes), st.target
    counts = object_counts(rules)
    if n not in counts:
        return f"{n} objects, not {counts[0]} to {counts[-1]}"
    if st.levels[t] not in range(1, len(SIZE_LEVELS) - 1):
        return f"the target's size level {st.levels[t]} is not one of the middle eight"
    if rules.one_shape and len(set(st.shapes)) != 1:
        return "more than one shape type in a one-shape task"
    if not rules.one_shape and len(set(st.shapes)) < 2:
        return "one shape type in a task of several"
    named = [description(rules, st, i) for i in range(n)]
    if named.count(named[t]) != 1:
        return "the target is not uniquely identified by its description"
    if len(set(named)) != n:  # every object could be named: uniqueness marks no object (docs/tasks.md)
        return "two objects share a description"
    reference = reference_set(rules, st.shapes, t)
    if rules.shape_reference and len(reference) < SET_MIN:
        return f"{len(reference)} objects share the target's shape, fewer than {SET_MIN}"
    if rules.not_scene_extreme and extreme(st.sizes, range(n), t):
        return "the target is the biggest or smallest of the scene"
    if rules.not_reference_extreme and extreme(st.sizes, reference, t):
        return "the target is the biggest or smallest of its reference set"
    if (st.k is None) != rules.superlative:
        return "k is drawn for the threshold tasks and only for them"
    if not rules.superlative and true_adjective(rules, st) is None:
        return f"the target lies within {HAIR} of T"
    return None


def may_pair(rules: Rules, st: Statement, j: int) -> bool:
    """Whether object j could be the target's twin by what the rules let a reader see: one level from the
    target, and of its shape where the reference set is the target's shape or the scene has one shape
    (in POS any shape: the sentence's noun is 'object')."""
    t = st.target
    same_shape = rules.shape_reference or rules.one_shape
    return j != t and abs(st.levels[j] - st.levels[t]) == 1 and (not same_shape or st.shapes[j] == st.shapes[t])


def twin(rules: Rules, st: Statement, adjective: str) -> int | None:
    """The object the sampler paired the target with: one level away (may_pair), a valid target itself,
    and on the other side of the adjective (exactly one of the two makes the sentence true). Every item
    has one: which of the two the sentence names is the label's only cause."""
    fits = true_adjective(rules, st) == adjective
    for j in range(len(st.shapes)):
        if not may_pair(rules, st, j):
            continue
        other = replace(st, target=j)
        if broken_rule(rules, other) is None and (true_adjective(rules, other) == adjective) != fits:
            return j
    return None
