"""A Bongard problem's validator: every label recomputed by the interpreter, and the fairness proof run again."""
from __future__ import annotations

from ..validation import require
from . import arrangements
from .concept_library import unfair
from .concepts import FREEFORM_TEMPLATES, Concept, holds, unnegated
from .freeform import usable
from .item import BongardItem, apart, axis, objects_range, panel, problem_concepts


def program_of_split(program: str, split: str) -> bool:
    """A canonical program of allowed turns that freeform would draw in the split (freeform.usable)."""
    turns = arrangements.decode(program)
    return (arrangements.encode(arrangements.canonical(turns)) == program
            and all(t in arrangements.TURNS for t in turns) and usable(turns, split))


def concept_of_family(task: str, split: str, c: Concept) -> bool:
    """The rule that picks a problem's concept: one of the family's (item.problem_concepts), or for
    freeform a program of the split's share of figures."""
    if task != "bongard-freeform":
        return c in problem_concepts(task).get(unnegated(c)[0].kind, ())
    return c.kind == "program" and len(c.args) == 1 and program_of_split(c.args[0], split)


def validate(item: BongardItem) -> None:
    """Every label recomputed by the interpreter, and the fairness proof run again."""
    where = f"{item.task} item {item.index}"
    c = item.concept
    require(concept_of_family(item.task, item.split, c),
            f"{where}: '{c.kind}' {c.args} is not a concept of this family and split")
    require(item.description == c.words() and item.complexity == c.complexity, f"{where}: description or "
                                                                                "complexity is not the concept's")
    require(sorted(item.test_positive) == [False, True], f"{where}: test_positive is not one positive, one negative")
    pos_test, neg_test = (item.tests if item.test_positive[0] else item.tests[::-1])
    lo, hi = objects_range(c)
    for p, n in zip(item.positives + (pos_test,), item.negatives + (neg_test,)):
        require(lo <= len(p.objects) <= hi and lo <= len(n.objects) <= hi, f"{where}: not {lo}-{hi} objects")
        require(len(p.objects) == len(n.objects), f"{where}: a positive and its negative differ in object count")
        if c.positional and c.kind not in FREEFORM_TEMPLATES:
            require(apart(p, axis(c)) and apart(n, axis(c)), f"{where}: a near-tie along '{axis(c)}'")
    pos, neg = [panel(s) for s in item.positives + (pos_test,)], [panel(s) for s in item.negatives + (neg_test,)]
    require(all(holds(c, p) for p in pos), f"{where}: a positive violates '{item.description}'")
    require(not any(holds(c, n) for n in neg), f"{where}: a negative satisfies '{item.description}'")
    reasons = unfair(c, pos[:-1], neg[:-1], [(pos[-1], True), (neg[-1], False)])
    require(not reasons, f"{where}: not fair: {'; '.join(reasons)}")
