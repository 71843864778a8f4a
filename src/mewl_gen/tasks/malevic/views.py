"""What the marker scan and the learned view probe read of a MALeViC item (tasks.audit.markers, .views).

The role is the twin: the object the sampler paired the target with, one size level away on the other
side of the threshold (rules.twin, recovered from the record: the target, the levels, k). Its pool is
the objects a solver could take for it: the other objects one level from the target that every rule of
a target would admit (its shape where the reference set is the shape or the scene has one shape, any
shape in POS and POS-hard), whatever their descriptions. The rules ask the twin's description to be
unique, not the pool's, so where the pool's repeat (the old sampler's shape-mates drew their colours
with replacement, the twin one no other had) uniqueness marks the twin, and the scan says so.

The view of the learned probe is what a solver deprived of the context beyond the target's immediate
size neighbours sees: the adjective, the target's own attributes and statistics (not its level, which
alone reads 4/7: the probe `target size only`), and the objects at the target's level and one level
below and above it, each with its generic statistics. Below and above are read toward the adjective
(for 'small', below is the side above), so one rule serves both. Threshold tasks only: each side's
counts have one law for either object of the pair (sample.draw_levels), so the floor is 1/2; in SUP1
an object above the target makes 'biggest' false, which is the task, not a marker, and the probe is
left out there (its twin is still scanned)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Hashable

from ..audit.markers import coin, object_statistics
from ..audit.views import View
from .item import POSITIVE
from .rules import Rules, Statement, broken_rule, true_adjective, twin

ATTRIBUTES = ("shape", "color", "material")  # what describes an object; levels are what the task is about
SIDES = {-1: "below", 0: "level", 1: "above"}


def statement(item: dict) -> Statement:
    objects = item["scene"]["objects"]
    return Statement(tuple(o["shape"] for o in objects), tuple(o["color"] for o in objects),
                     tuple(item["size_levels"]), item["target"], item["k"])


def described_apart(st: Statement) -> Statement:
    """The statement with every object's color made its own: the rules asked of it are every rule but
    those on descriptions, which the scan measures instead of assuming."""
    return replace(st, colors=tuple(f"#{i}" for i in range(len(st.colors))))


def admissible(rules: Rules, apart: Statement, j: int) -> bool:
    """Whether every rule of a twin but its description admits object j of `apart` (described_apart):
    one level from the target, of its shape where the reference set or the scene needs it, a valid
    target otherwise."""
    t = apart.target
    if j == t or abs(apart.levels[j] - apart.levels[t]) != 1:
        return False
    if (rules.shape_reference or rules.one_shape) and apart.shapes[j] != apart.shapes[t]:
        return False
    return broken_rule(rules, replace(apart, target=j)) is None


def the_twin(rules: Rules, st: Statement, adjective: str) -> int | None:
    """The twin as rules.twin finds it; in a record whose descriptions break the rules (a sampler before
    them, a planted marker), the admissible object on the other side of the adjective, one whose
    description is unique first."""
    found = twin(rules, st, adjective)
    if found is not None:
        return found
    apart = described_apart(st)
    fits = true_adjective(rules, apart) == adjective
    named = Counter(zip(st.colors, st.shapes))
    others = [j for j in range(len(st.shapes)) if admissible(rules, apart, j)
              and (true_adjective(rules, replace(apart, target=j)) == adjective) != fits]
    return min(others, key=lambda j: (named[st.colors[j], st.shapes[j]] > 1, j), default=None)


def twin_and_pool(rules: Rules, item: dict) -> tuple[dict[str, Hashable], dict[str, Hashable]] | None:
    """The twin's statistics and one pool object's (a coin of the index); None where either is missing."""
    st = statement(item)
    role, apart = the_twin(rules, st, item["adjective"]), described_apart(st)
    pool = [j for j in range(len(st.shapes)) if j != role and admissible(rules, apart, j)]
    if role is None or not pool:
        return None
    rows = object_statistics(item["scene"]["objects"], ATTRIBUTES, anchor=st.target)
    return rows[role], rows[pool[coin(item["index"], len(pool))]]


def neighbours_view(rules: Rules, item: dict) -> View | None:
    """The view of a solver told nothing beyond the target's neighbours; None in SUP1."""
    if rules.superlative:
        return None
    objects, levels, t = item["scene"]["objects"], item["size_levels"], item["target"]
    rows = object_statistics(objects, ATTRIBUTES, anchor=t)
    toward = 1 if POSITIVE[item["adjective"]] == "big" else -1
    sides = {name: [rows[j] for j in range(len(objects)) if j != t and (levels[j] - levels[t]) * toward == d]
             for d, name in SIDES.items()}
    return {"adjective": item["adjective"], **{f"target {k}": v for k, v in rows[t].items()}, **sides}
