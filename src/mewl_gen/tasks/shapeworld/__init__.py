"""ShapeWorld in 3D (Kuhnle and Copestake 2017): does the caption agree with the image?

Four tasks, the paper's three datasets and a logical one: each item is one
image and one caption, generated with its logical form; the evaluator alone
decides agreement. The dataset-wide configuration (Draw.config) is a
Distribution: held-out combinations that make up the test split.
"""
from __future__ import annotations

import hashlib
from functools import partial

from ..benchmark import Benchmark, Column, Config, Export, Solver, Task, release_card
from ..gallery import one_image_page, yes_no
from ..item import one_image
from ..stored import StoredItem
from ..study import SENTENCE_WORDS, Study, sentence_trial
from . import captions, explain, solver
from .audit import AUDIT, truth
from .distribution import Distribution, load_distribution
from .item import ShapeWorldItem
from .published import BIBTEX, PUBLISHED
from .sample import sample
from .validate import validate

CONFIG = Distribution  # the model of this benchmark's Draw.config (cluster: --distribution FILE)

HELD_OUT = Config(
    option="--distribution", load=load_distribution,
    help="ShapeWorld: a JSON file of held-out combinations, shown only in the split test and never in the others "
         "(docs/shapeworld-heldout-*.json; docs/shapeworld.md); its content and hash go into the manifest",
    manifest=lambda d, seed: {"content": d.model_dump(mode="json"),
                              "sha256": hashlib.sha256(d.model_dump_json().encode()).hexdigest()},
)


def _solve(stored: StoredItem) -> bool:
    """Whether the caption agrees with the image, by the file-only evaluator."""
    item = stored.record()
    return solver.agrees(item["logical_form"], truth(stored, item))


SOLVER = Solver(_solve, 0.5)  # agreement is a fair coin per item
# What a model is given (the caption) and must answer (whether it agrees with the image).
EXPORT = Export(one_image, lambda item: {"caption": item.caption, "label": int(item.agreement)},
                {"caption": Column("string", "the caption, a statement about the image"),
                 "label": Column("class", "whether the caption agrees with the image", ("false", "true"))},
                answer="label")

# The image, the caption under it, then whether it agrees and the near-miss caption it was made against.
GALLERY = one_image_page(lambda item: item.caption, lambda item: (
    ("agreement", yes_no(item.agreement)), ("near miss", f"{item.near_miss.caption} ({yes_no(not item.agreement)})"),
    ("held-out combinations used", ", ".join(c.label() for c in item.held_out_used) or "none")),
    lambda item: f"{item.caption}: {yes_no(item.agreement)}", roles=explain.roles, why=explain.why)
# A participant sees the image and the caption and says whether they agree.
STUDY = Study(sentence_trial(lambda item: item.caption), SENTENCE_WORDS)


def _task(name: str, summary: str, draw_form) -> Task:
    full = f"shapeworld-{name}"
    return Task(name=full, benchmark="shapeworld", summary=summary, sample=partial(sample, draw_form=draw_form),
                validate=validate, model=ShapeWorldItem, images=1, solver=SOLVER, export=EXPORT,
                gallery=GALLERY, study=STUDY)


SHAPEWORLD = Benchmark(
    "shapeworld", "ShapeWorld: does a caption agree with the image? (near-miss false captions, held-out test combinations)",
    (
        _task("existential", "'there is a red cube', 'a glass sphere is small'", captions.exists),
        _task("relational", "'a red cube is left of a metal sphere' (CLEVR's directions, no near-ties)", captions.relation),
        _task("quantification", "'most cubes are metal', 'no sphere is blue', 'at least two objects are glass'",
              captions.quantified),
        _task("logical", "two statements joined by and/or, or one negated", captions.logical),
    ),
    card=release_card("Each item folder holds `image.png`, `image.json` (the per-image ground truth) and `item.json`: "
                      "the caption, its logical form, `agreement`, the near-miss caption, the distribution and the "
                      "held-out combinations the item uses.", BIBTEX),
    config=HELD_OUT,
    audit=AUDIT,
    published=PUBLISHED,
)

__all__ = ["CONFIG", "SHAPEWORLD", "Distribution", "ShapeWorldItem", "load_distribution"]
