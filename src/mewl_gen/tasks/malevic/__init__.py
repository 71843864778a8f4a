"""MALeViC (Pezzelle and Fernández, EMNLP 2019): size adjectives verified against a visual context, in 3D.

Six tasks, each an image of 5 to 9 objects and a sentence about one object's
size, true or false: SUP1, POS1, POS, SET+POS (section 3) and the hard
diagnostic sets POS-hard and SET+POS-hard (section 7.1). docs/malevic.md.
"""
from __future__ import annotations

from functools import partial

from ..benchmark import IID_SCHEME, Benchmark, Column, Export, Scheme, Solver, Task, release_card
from ..gallery import one_image_page, yes_no
from ..item import one_image
from ..stored import StoredItem
from ..study import Study, sentence_trial
from . import explain, solver
from .audit import AUDIT, truth
from .item import MalevicItem
from .published import BIBTEX, PUBLISHED
from .rules import TASK_RULES
from .sample import SCHEME_SPLITS, UNSEEN, check_split, sample
from .validate import validate

SUMMARIES = {
    "sup1": "'The red cube is the biggest cube': max/min over a scene of one shape type",
    "pos1": "'The red cube is a big cube': the threshold over a scene of one shape type",
    "pos": "'The red cube is a big object': the threshold over a scene of several shape types",
    "setpos": "'The red cube is a big cube': the threshold over the objects of the target's shape",
    "pos-hard": "POS, never querying the scene's biggest or smallest object",
    "setpos-hard": "SET+POS, never querying the biggest or smallest of the reference set",
}


UNSEEN_SCHEME = Scheme(UNSEEN, "paper 7.2: 'big cylinder' and 'small cube' only in test; train and val see the "
                               "other adjective-noun pairs", splits=tuple(SCHEME_SPLITS))
RELEASE = ("Items of MALeViC's tasks (Pezzelle and Fernández, EMNLP 2019) in 3D: each folder `<split>/<task>/<i>/` holds "
           "`image.png` with its ground truth `image.json` (as MEWL's images) and `item.json`: the sentence, its "
           "label, the target, the reference set, every object's size, k, T, the label under k = 0.29, and each "
           "object's projected area and visible fraction. `<split>/<task>.jsonl` lists the complete items, one "
           "per line.")


def _solve(stored: StoredItem) -> bool:
    item = stored.record()
    return solver.solve(item, truth(stored, item))


SOLVER = Solver(_solve, solver.CHANCE)
# What a model is given (the sentence) and must answer (whether it is true of the image).
EXPORT = Export(one_image, lambda item: {"sentence": item.sentence, "label": int(item.label)},
                {"sentence": Column("string", "the sentence about the size of one object in the image"),
                 "label": Column("class", "whether the sentence is true of the image", ("false", "true"))},
                answer="label")


def _facts(item: MalevicItem) -> tuple[tuple[str, str], ...]:
    """The sentence's label and what decides it (docs/malevic.md)."""
    o = item.scene.objects[item.target]
    rule = () if item.k is None else (("k", f"{item.k:.3f}"), ("threshold T", f"{item.threshold:.3f}"),
                                      ("label at k = 0.29", yes_no(item.label_sharp)))
    return (("label", yes_no(item.label)), ("target", f"object {item.target}, {o.color} {o.material} {o.shape}, "
            f"half-extent {item.sizes[item.target]:g}"), ("reference set", f"{len(item.reference)} object(s)"), *rule)


# The image, the sentence under it, then its label.
GALLERY = one_image_page(lambda item: item.sentence, _facts, lambda item: f"{item.sentence}: {yes_no(item.label)}",
                         roles=explain.roles, why=explain.why)
# A participant sees the image and the sentence and says whether it is true (the paper's verification task).
STUDY = Study(sentence_trial(lambda item: item.sentence), (
    "Each page shows a picture of a few objects and a sentence about the size of one of them, such as "
    "“The red cube is a big cube”.\n\nJudge big and small against the other objects the sentence compares "
    "it with, as you would in everyday speech. Click “true” if the sentence is true of the picture, "
    "“false” if it is not."))


def _task(name: str) -> Task:
    rules = TASK_RULES[name]
    return Task(name=f"malevic-{name}", benchmark="malevic", summary=SUMMARIES[name],
                sample=partial(sample, rules=rules), validate=partial(validate, rules=rules),
                model=MalevicItem, images=1, solver=SOLVER, schemes=(IID_SCHEME, UNSEEN_SCHEME), export=EXPORT,
                gallery=GALLERY, study=STUDY)


MALEVIC = Benchmark("malevic", "MALeViC: is the sentence about one object's size true of the image?",
                    tuple(_task(name) for name in TASK_RULES), card=release_card(RELEASE, BIBTEX), audit=AUDIT,
                    published=PUBLISHED)

__all__ = ["MALEVIC", "MalevicItem", "UNSEEN", "check_split"]
