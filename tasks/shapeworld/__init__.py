"""ShapeWorld in 3D (Kuhnle and Copestake 2017): does the caption agree with the image?

Four tasks, the paper's three datasets and a logical one: each item is one
image and one caption, generated with its logical form; the evaluator alone
decides agreement. The dataset-wide configuration (Draw.config) is a
Distribution: held-out combinations that make up the test split.
"""
from __future__ import annotations

import hashlib
from functools import partial

from ..benchmark import Benchmark, Config, Solver, Task, release_card
from ..stored import StoredItem
from . import captions, solver
from .audit import AUDIT, truth
from .distribution import Distribution, load_distribution
from .item import ShapeWorldItem, validate
from .sampler import sample

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


def _task(name: str, summary: str, draw_form) -> Task:
    full = f"shapeworld-{name}"
    return Task(name=full, benchmark="shapeworld", summary=summary, sample=partial(sample, draw_form=draw_form),
                validate=validate, model=ShapeWorldItem, images=1, solver=SOLVER)


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
                      "held-out combinations the item uses (docs/shapeworld.md)."),
    config=HELD_OUT,
    audit=AUDIT,
)

__all__ = ["CONFIG", "SHAPEWORLD", "Distribution", "ShapeWorldItem", "load_distribution"]
