"""A dataset as a user's code opens it (`mewl_gen.open_dataset`): its verified items, per split and
task, read through the store's one reader, and a line for each item it could not use."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from .reader import read


@dataclass(frozen=True)
class Dataset:
    folder: Path
    by_task: dict[tuple[str, str], Sequence[StoredItem]]  # (split, task) -> its sound items, by index; splits
    # in name order, tasks in the order `mewl tasks` lists them
    damaged: list[str]  # "split/task/index: why" for each item left out

    @property
    def splits(self) -> list[str]:
        return sorted({split for split, _ in self.by_task})

    @property
    def tasks(self) -> list[str]:
        return list(dict.fromkeys(task for _, task in self.by_task))

    def items(self, split: str | None = None, task: str | None = None) -> Iterator[StoredItem]:
        """The sound items of one split and task (or of all), split by split, task by task."""
        for (s, t), stored in self.by_task.items():
            if split in (None, s) and task in (None, t):
                yield from stored

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_task.values())


def open_dataset(folder: str | Path, tasks: Iterable[str] | None = None, images: bool = True) -> Dataset:
    """A folder made by `mewl render` or `mewl sample`; with `images`, every image's bytes are checked
    against the record too (as export and eval do), not only the JSON files."""
    out = Path(folder)
    found = read(out, tasks, images=images)
    order = {name: k for k, name in enumerate(catalog.tasks())}
    return Dataset(out, dict(sorted(found.items.items(), key=lambda kv: (kv[0][0], order[kv[0][1]]))), found.damaged)
