"""A Bongard problem's gallery page, as Bongard-LOGO shows one to a person: the six scenes of the left
side (the concept holds) and the six of the right side (it does not), then the two test scenes in the
order shown, each marked with the side it belongs to; the concept in words and each negative's near miss.

Written against the item's interface: its scene names (`item.scenes()`, the two sides in order) and its
record's fields (`solution()`: whether test_a and test_b are positives), so a change of the record's names
is a change here alone."""
from __future__ import annotations

from ..gallery import Block, Gallery, Shown
from .explain import why
from .item import TESTS, BongardItem


def _sides(item: BongardItem) -> tuple[list[str], list[str]]:
    """The context scenes of the left and of the right side, in order (the tests left out)."""
    names = [n for n in item.scenes() if n not in TESTS]
    return names[:len(names) // 2], names[len(names) // 2:]


def page(item: BongardItem) -> tuple[Block, ...]:
    left, right = _sides(item)
    shown = zip(TESTS, item.solution())
    tests = tuple(Shown(name, f"test {k}", "left: the concept holds" if positive else "right: it does not")
                  for k, (name, positive) in enumerate(shown, 1))
    return (Block("Left: the concept holds", tuple(Shown(n) for n in left), columns=2),
            Block("Right: it does not", tuple(Shown(n, note=miss) for n, miss in zip(right, item.near_misses)),
                  columns=2),
            Block("Tests", tests),
            Block("Concept", facts=(("in words", item.description), ("complexity", str(item.complexity)))))


GALLERY = Gallery(page, lambda item: item.description, lambda item: TESTS[0], why=why)
