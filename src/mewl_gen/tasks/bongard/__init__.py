"""Bongard problems in 3D (after Bongard-LOGO, Nie et al. 2020): few-shot concept induction.

A problem shows six scenes that satisfy a concept and six near misses that
violate it, and asks for two test scenes; a concept is a program over objects,
attributes, counts and relations (concepts.py), and every problem is
proven fair by enumerating the concept library (concept_library.py).
"""
from __future__ import annotations

from ..benchmark import Benchmark, Column, Export, Solver, Task, release_card
from ..stored import StoredItem
from . import solver
from .audit import AUDIT, truths
from .gallery import GALLERY
from .item import NEGATIVES, POSITIVES, TESTS, BongardItem
from .published import BIBTEX, PUBLISHED
from .sample import sample
from .validate import validate
from .study import STUDY


def _solve(stored: StoredItem) -> list[bool] | None:
    """Whether each test image is a positive, by a simplest separator of the context's images (of its
    specs where the problem is not rendered); None where no library concept separates them."""
    item = stored.record()
    return solver.answer(item, truths(stored, item))


SOLVER = Solver(_solve, 0.5)  # a coin of each problem's generator says whether test_a or test_b is the positive


def _panels(item: BongardItem) -> list[tuple[str, str, str]]:
    """Exported in Bongard-LOGO's order: the left side (the concept holds), the right side, the two tests."""
    return [*((f"left{k}", n, "") for k, n in enumerate(POSITIVES)), *((f"right{k}", n, "") for k, n in
            enumerate(NEGATIVES)), *((n, n, "") for n in TESTS)]


# The answer: which test image belongs to the left side (a class of two), and the concept as the answer's reason.
EXPORT = Export(_panels, lambda item: {"label": item.test_positive.index(True), "concept": item.description},
                {"label": Column("class", "which test image (the last two panels) belongs with the left side "
                                          "(`left0` ... `left5`, the six images the concept holds of)", TESTS),
                 "concept": Column("string", "the concept the left side shares, in words: why the answer is right")},
                answer="label")


def _task(name: str, summary: str) -> Task:
    return Task(name=f"bongard-{name}", benchmark="bongard", summary=summary, sample=sample, validate=validate,
                model=BongardItem, images=14, solver=SOLVER, export=EXPORT, gallery=GALLERY,
                study=STUDY)


BONGARD = Benchmark(
    "bongard", "Bongard problems: six positives, six near-miss negatives, two test scenes; concepts as programs",
    (
        _task("basic", "a category of object, or two present together: 'there is a large metal cylinder'"),
        _task("abstract", "20 attribute-, set- and relation-level concepts: 'all objects share a material'"),
        _task("freeform", "figures drawn by action programs (turns between equal steps); negatives: another program"),
    ),
    card=release_card("Each item folder holds `pos_0.png` .. `pos_5.png` (Bongard-LOGO's positive side), `neg_0.png` "
            ".. `neg_5.png` (the negative side), the two test images `test_a.png` and `test_b.png` (names that "
            "say nothing of their side), a `<name>.json` per image (the per-image ground truth) and `item.json`: "
            "the concept's program, its words, its complexity, the near miss that made each negative and "
            "`test_positive`, which test image is the positive.", BIBTEX),
    audit=AUDIT,
    published=PUBLISHED,
)

__all__ = ["BONGARD", "BongardItem"]
