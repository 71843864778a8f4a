"""Every benchmark, listed once: adding one is a folder under tasks/ and one line here, its import.

The shared code (farm, store, command line) finds tasks and benchmarks
through these functions, which read `BENCHMARKS` when called.
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from mewl_gen.errors import UserError, is_link, shown
from mewl_gen.scenes.spec import SceneSpec, SpecError, parse_json, read_json, validate_json

from .benchmark import IID, Benchmark, Task, draw_item
from .item import Item
from .stored import open_leaf

# Every benchmark, one line each, in the order of `mewl tasks` (a new one goes last):
from .mewl import MEWL
from .malevic import MALEVIC
from .shapeworld import SHAPEWORLD
from .icy import ICY
from .bongard import BONGARD

# The Benchmarks imported above, in their order: the import is the one line that lists one.
BENCHMARKS: tuple[Benchmark, ...] = tuple(b for b in dict(globals()).values() if isinstance(b, Benchmark))


class UnknownTask(UserError, ValueError):
    """A task or benchmark name that is not registered."""


def benchmarks() -> dict[str, Benchmark]:
    return {b.name: b for b in BENCHMARKS}


def tasks() -> dict[str, Task]:
    """Every task by name, in the order of BENCHMARKS."""
    return {t.name: t for b in BENCHMARKS for t in b.tasks}


def task(name: str) -> Task:
    return tasks()[name]


def benchmark_names(task_names) -> set[str]:
    """The benchmarks the tasks belong to."""
    return {task(t).benchmark for t in task_names}


def noun(task_names) -> str:
    """What the tasks call one item in messages: their benchmarks' word ("episode") where they agree, else "item"."""
    known = tasks()
    nouns = {benchmarks()[known[t].benchmark].noun if t in known else "item" for t in task_names}
    return nouns.pop() if len(nouns) == 1 else "item"


def record_files() -> list[str]:
    """The names of the files that hold an item itself (episode.json, item.json), in the order of BENCHMARKS."""
    return list(dict.fromkeys(t.model.RECORD_FILE for t in tasks().values()))


def item_files() -> set[str]:
    """The names of every item's own release files (its record and the others)."""
    return {name for t in tasks().values() for name in (t.model.RECORD_FILE, *t.model.OTHER_FILES)}


def resolve(value: str) -> list[str]:
    """'all', a benchmark's name, a task's name, or a comma list of those -> task names, in the order given."""
    by_benchmark, by_task = benchmarks(), tasks()
    found: list[str] = []
    for name in value.split(","):
        if name == "all":
            names = tuple(by_task)
        elif name in by_benchmark:
            names = tuple(t.name for t in by_benchmark[name].tasks)
        elif name in by_task:
            names = (name,)
        else:
            close = difflib.get_close_matches(name, [*by_task, *by_benchmark, "all"], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownTask(f"unknown task {name!r}; `mewl tasks` lists them ({', '.join(by_benchmark)} "
                              f"or all for a set){hint}")
        found += [t for t in names if t not in found]
    return found


def sample_item(task_name: str, root_seed: int, split: str, index: int, first_retry: int = 0, scheme: str = IID,
                config: object | None = None) -> Item:
    return draw_item(task(task_name), root_seed, split, index, first_retry, scheme, config)


def read_item(path) -> Item | SceneSpec:
    """A registered task's item (or a scene spec) from a JSON file or an item folder; SpecError in one line."""
    path = Path(path)
    if path.is_dir():  # the folder is the caller's; a file in it is data: a link in its place is not followed
        record = path / record_file(path)
        try:
            fd, size = open_leaf(record)
        except OSError as err:
            why = "it is a symbolic link, which is not followed" if is_link(err) else err.strerror
            raise SpecError(f"cannot read {shown(record)}: {why}") from None
        with os.fdopen(fd, "rb") as f:
            return parse_item(*parse_json(f.read(size), record), record)
    return parse_item(*read_json(path), path)


def record_file(folder: Path) -> str:
    """The name of the file that holds the item of an item's folder: the first record name that is there
    (as it is: a link is there too), else the first."""
    records = record_files()
    return next((r for r in records if os.path.lexists(folder / r)), records[0])


def parse_item(text: str, data: object, path: Path) -> Item | SceneSpec:
    """read_item of a file's text and JSON, read by its caller (the store's door, for a file of an item's
    folder)."""
    models = {name: t.model for name, t in tasks().items()}
    name = data.get("task") if isinstance(data, dict) else None
    if name is None:
        return validate_json(SceneSpec, text, path)
    if not isinstance(name, str) or name not in models:
        raise SpecError(f"{path}: unknown task {name!r}; `mewl tasks` lists them")
    return validate_json(models[name], text, path)
