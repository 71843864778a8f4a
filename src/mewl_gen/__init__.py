"""mewl-gen: few-shot grounded-language benchmarks (MEWL, with MALeViC, ShapeWorld, Bongard and ICY
beside it) rendered as 3D scenes with Blender Cycles, with per-image ground truth.

The public surface, for code that reads a dataset or scores a model (docs/api.md); every other
module is internal and may change between versions:

    import mewl_gen

    data = mewl_gen.open_dataset("data")             # only items whose files match their record
    for stored in data.items(split="train", task="pragmatic"):
        stored.record()                               # the item's own file (episode.json, item.json)
        stored.truth("question")                      # one image's ground truth
        stored.image("question")                      # the path of its PNG
        stored.item()                                 # the item model (pydantic)
    scores, problems = mewl_gen.score("data", "predictions.jsonl")   # what `mewl eval` prints

The command line is `mewl` (or `python -m mewl_gen`). Imports happen on first use, so that
`import mewl_gen` stays cheap in Blender's child process and in a user's training job.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from mewl_gen.results.scoring import Problems, Score
    from mewl_gen.scenes.spec import SceneSpec
    from mewl_gen.store.dataset import Dataset
    from mewl_gen.tasks.item import Item

__all__ = ["open_dataset", "read_item", "item_model", "task_names", "score", "version"]


def open_dataset(folder: str | Path, tasks: Iterable[str] | None = None, images: bool = True) -> Dataset:
    """A dataset's verified items (`Dataset.items(split, task)`) and a line for each item left out
    (`Dataset.damaged`); a folder that is not a dataset raises `mewl_gen.errors.UserError`."""
    from mewl_gen.store.dataset import open_dataset as opened

    return opened(folder, tasks, images)


def read_item(path: str | Path) -> Item | SceneSpec:
    """An item (or a scene spec) from its JSON file or its folder, validated by its model."""
    from mewl_gen.tasks.catalog import read_item as read

    return read(Path(path))


def item_model(task: str) -> type[Item]:
    """The pydantic model of a task's items (its JSON Schema: `item_model(task).model_json_schema()`)."""
    from mewl_gen.tasks.catalog import task as find

    return find(task).model


def task_names() -> list[str]:
    """Every task this version generates, in the order `mewl tasks` lists them."""
    from mewl_gen.tasks.catalog import tasks

    return list(tasks())


def score(folder: str | Path, predictions: str | Path) -> tuple[list[Score], Problems]:
    """A predictions file (one JSON object a line, docs/eval.md) scored against a dataset's verified
    items: a score per split and task, and the problems found in the file."""
    from mewl_gen.results.scoring import score as scored

    return scored(Path(folder), Path(predictions))


def version() -> str:
    """This generator's version, as its items record it."""
    from mewl_gen.scenes.spec import GENERATOR_VERSION

    return GENERATOR_VERSION
