"""A Bongard problem as a participant sees it, after Bongard-LOGO's human study: the six scenes of the
left side (the concept holds), the six of the right side (it does not), and one test scene to place.

Which of the two test scenes a participant places is drawn by the study (its seed), not by the item, so
its place on the page says nothing of its side. Placing one settles the other (exactly one is a
positive), so each button answers both, as `mewl eval` reads a problem's answer: whether test_a and
test_b are positives."""
from __future__ import annotations

import numpy as np

from ..study import Group, Option, Picture, Study, Trial
from .item import NEGATIVES, POSITIVES, TESTS, BongardItem


def trial(item: BongardItem, rng: np.random.Generator) -> Trial:
    shown = int(rng.integers(len(TESTS)))
    left = [k == shown for k in range(len(TESTS))]  # the shown test on the left: it is the positive
    right = [not v for v in left]
    return Trial((Group("Left: these share a rule", tuple(Picture(n) for n in POSITIVES), columns=3),
                  Group("Right: these break it", tuple(Picture(n) for n in NEGATIVES), columns=3),
                  Group("The new picture", (Picture(TESTS[shown]),))),
                 "Which side does the new picture belong to?", (Option("left", left), Option("right", right)))


STUDY = Study(trial, (
    "Each page shows six pictures on the left that all follow one rule, and six pictures on the right that "
    "break it, each only slightly.\n\nFind the rule. Then a new picture appears: click “left” if it follows "
    "the rule, “right” if it does not."))
