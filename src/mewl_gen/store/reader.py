"""The one reader of an output folder: every command that reads items goes through it.

`item_folders` walks the layout (every split, task and item folder, sound or
not: what status, verify and index look at). `read` yields the sound items
of registered tasks, per split and task in index order, as the StoredItems a
benchmark reads (tasks.stored): an item is sound when its record of
checksums is complete, every JSON file's sha256 agrees with it (every file's,
images and passes included, with `images=True`), each image has the passes
OUT's manifest names (render.passes; `pass_files` finds them), its record
file holds the item of its own folder (`foreign`: split, task and index) and
`mewl verify` has not noted it damaged. The others, and folders whose names
are no index (`listed`), are named, one line each; `sound_items` refuses a
folder that holds any in one line.
"""
from __future__ import annotations

import os
from array import array
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from mewl_gen.errors import UserError, shown
from mewl_gen.render.passes import file_name
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from . import damage, door
from .layout import SPLIT, item_dir, item_index
from .manifest import passes_of, read_manifest
from .record import RECORD, full_problem, missing_pass

# Threads checking items at once: hashing and PNG decoding release the GIL, and a second thread a core
# covers a read's wait. More cost CPU in contention for the GIL: on 2 cores, 8 threads took 10 to 17 %
# more CPU per item than 4, and more wall time too (issue 41).
CHECKERS = min(32, 2 * len(os.sched_getaffinity(0)))
AHEAD = 4  # items each thread or process of a pool may be given before the caller takes their results


def ahead(pool: Executor, work: Callable, items: Iterable, limit: int) -> Iterator:
    """work(item) of each item, in the items' order, made by `pool` with at most `limit` items given to it and
    not yet taken: memory stays flat in the number of items (Executor.map makes a task of every item first)."""
    pending: deque = deque()
    for item in items:
        pending.append(pool.submit(work, item))
        if len(pending) >= limit:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def item_folders(out: Path, tasks: Iterable[str] | None = None, splits: Iterable[str] | None = None) -> list[tuple[str, str, int]]:
    """(split, task, index) of every item folder under OUT (of these tasks and splits), sorted. Names
    this tool never writes ('007', '.staging', 'train.jsonl') are no item anywhere (`listed` names the
    folders among them). Nothing is followed: a link where a split's or task's folder would be stops the
    command in one line; one where an item's would be is listed, and its readers find it damaged."""
    return listed(out, tasks, splits)[0]


def listed(out: Path, tasks: Iterable[str] | None = None,
           splits: Iterable[str] | None = None) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, str]]]:
    """item_folders, and (split, task, name) of each folder (or link) in a task's folder whose name is not an
    item's index as this tool writes one ('007', '7 ', '+7'): a copy of an item under such a name is no
    item, nothing in it is read, and every reader names it as damaged (MISNAMED). Hidden names (a writer's
    temporary files, NFS's) are passed over."""
    if not out.is_dir():
        return [], []
    wanted_tasks = None if tasks is None else set(tasks)
    wanted_splits = None if splits is None else set(splits)
    found, misnamed = [], []
    for split, what in door.entries(out, out):
        if not SPLIT.fullmatch(split) or what not in ("folder", "link") or (wanted_splits is not None and split not in wanted_splits):
            continue
        if what == "link":
            raise door.link_refused(out / split)
        for task, kind in door.entries(out, out / split):
            if kind not in ("folder", "link") or (wanted_tasks is not None and task not in wanted_tasks):
                continue
            if kind == "link":
                raise door.link_refused(out / split / task)
            for name, k in door.entries(out, out / split / task):
                if k in ("folder", "link") and (i := item_index(name)) is not None:
                    found.append((split, task, i))
                elif k in ("folder", "link") and not name.startswith("."):
                    misnamed.append((split, task, name))
    return sorted(found), sorted(misnamed)


MISNAMED = "its folder's name is not an item's index as this tool writes one: no item (nothing in it is read; remove it)"


def foreign(out: Path, split: str, task: str, index: int, model: type) -> str | None:
    """The one rule of every reader: an item's record file must hold the item of its own folder (split, task
    and index); a copy under another name is no item, left out and named wherever it is read. An item
    without one (MEWL's own release files, which its record of checksums does not list) has none to disagree."""
    name = model.RECORD_FILE
    try:
        held = door.read_json(out, item_dir(out, split, task, index) / name, "json")
    except FileNotFoundError:
        return None
    except door.Refused as err:
        return f"{name}: {err.why}"
    except OSError as err:
        return f"{name}: unreadable ({err.strerror})"
    who = tuple(held.get(k) for k in ("split", "task", "index")) if isinstance(held, dict) else None
    if who is None:
        return f"{name}: not a JSON object"
    if who == (split, task, index) and type(who[2]) is int:
        return None
    return (f"{name} holds the item {'/'.join(shown(str(v), 40) for v in who)}, not {split}/{task}/{index}; "
            "a copy under another name is no item")


def file_problems(out: Path, folders: list[tuple[str, str, int]], images: bool = True) -> Iterator[str | None]:
    """What is wrong with each item's files (None: nothing), item after item as they are checked: its
    record, every file's sha256 (only the JSON files' without `images`), every PNG decoded at the size its
    scene is rendered at (the item's record file says it), every JSON parsed, and each image's pass files
    where OUT's manifest names passes."""
    only = None if images else ".json"
    passes = passes_of(out)
    known = catalog.tasks()

    def problem(split: str, task: str, index: int) -> str | None:
        folder = item_dir(out, split, task, index)
        model = known[task].model if task in known else None
        return (full_problem(folder, only=only, root=out, model=model)
                or (missing_pass(folder, passes, out) if passes else None)
                or (foreign(out, split, task, index, model) if model is not None else None))

    with ThreadPoolExecutor(max_workers=CHECKERS) as pool:
        yield from ahead(pool, lambda f: problem(*f), folders, AHEAD * CHECKERS)


def problems(out: Path, folders: list[tuple[str, str, int]], images: bool = False) -> Iterator[str | None]:
    """file_problems, and the damage notes `mewl verify` left: None for a sound item."""
    noted: dict[tuple[str, str], damage.Noted] = {}  # read once a task, not once an item
    for (split, task, index), problem in zip(folders, file_problems(out, folders, images)):
        if problem is None and (split, task) not in noted:
            noted[(split, task)] = damage.noted(out, split, task)
        yield problem if problem is not None or index not in noted[(split, task)] else "noted damaged by mewl verify"


def pass_files(stored: StoredItem, scene: str, passes: tuple[str, ...]) -> dict[str, Path]:
    """The pass files of a sound item's image (render.passes), pass -> path, in `passes` order."""
    return {kind: stored.folder / file_name(scene, kind) for kind in passes}


class Items(Sequence[StoredItem]):
    """A split and task's sound items, by index, as a list of StoredItems that makes each when it is asked
    for: what a reader holds is 8 bytes an item (its index), not a StoredItem and its folder's path (about
    560 bytes), so a reader that keeps a release's items keeps little more than their number."""

    __slots__ = ("out", "split", "task", "model", "opener", "indices")

    def __init__(self, out: Path, split: str, task: str, model: type, opener: Callable):
        self.out, self.split, self.task, self.model, self.opener = out, split, task, model, opener
        self.indices = array("q")

    def _at(self, index: int) -> StoredItem:
        return StoredItem(self.split, self.task, index, item_dir(self.out, self.split, self.task, index),
                          self.model, self.opener)

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._at(index) for index in self.indices[k]]
        return self._at(self.indices[k])

    def __iter__(self) -> Iterator[StoredItem]:
        return map(self._at, self.indices)


@dataclass(frozen=True)
class Found:
    items: dict[tuple[str, str], Items]  # (split, task) -> its sound items, by index
    damaged: list[str]  # "split/task/index: why" for each item that could not be used


def each(out: Path, tasks: Iterable[str] | None = None, splits: Iterable[str] | None = None,
         images: bool = False) -> Iterator[tuple[tuple[str, str, int | str], StoredItem | None, str | None]]:
    """Every item folder of OUT's registered tasks (of these tasks and splits), by split, task and index, as it
    is checked: (split, task, index), then its StoredItem and None for a sound item, None and why for another;
    last the folders whose names are no index, (split, task, name), None and MISNAMED. A reader that keeps
    nothing per item keeps its memory flat in the number of items."""
    if not out.is_dir():
        raise UserError(f"{out} is not a folder; expected a dataset made by mewl sample or mewl render")
    read_manifest(out)  # not a dataset of this tool, or a damaged manifest: one line
    known = catalog.tasks()
    names = [t for t in (known if tasks is None else tasks) if t in known]
    folders, misnamed = listed(out, names, splits)
    opener = door.opener(out)
    for (split, task, index), problem in zip(folders, problems(out, folders, images)):
        if problem is None:
            yield (split, task, index), StoredItem(split, task, index, item_dir(out, split, task, index),
                                                   known[task].model, opener), None
        else:
            yield (split, task, index), None, problem
    for split, task, name in misnamed:
        yield (split, task, name), None, MISNAMED


def read(out: Path, tasks: Iterable[str] | None = None, splits: Iterable[str] | None = None,
         images: bool = False) -> Found:
    """The sound items of OUT's registered tasks (of these tasks and splits) and a line for the others."""
    items: dict[tuple[str, str], Items] = {}
    damaged = []
    for (split, task, index), stored, problem in each(out, tasks, splits, images):
        if stored is not None:
            if (split, task) not in items:
                items[(split, task)] = Items(out, split, task, stored.model, stored.opener)
            items[(split, task)].indices.append(index)
        else:
            damaged.append(f"{key_text(split, task, index)}: {problem}")
    return Found(items, damaged)


def key_text(split: str, task: str, index: int | str) -> str:
    """How a line names an item folder: split/task/index, a name that is no index escaped."""
    return f"{split}/{task}/{index if isinstance(index, int) else shown(index, 40)}"


def damaged_line(bad: list[str], noun: str = "item") -> str:
    """The items a reader could not use, in one line."""
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return (f"{len(bad)} damaged or incomplete {noun}(s): {bad[0]}{more}; `mewl verify OUT` names them, "
            "the render command renders them again")


def sound_items(out: Path, tasks: Iterable[str] | None = None, what: str = "items",
                images: bool = False) -> dict[tuple[str, str], Items]:
    """Every item of these tasks, all sound: a damaged or incomplete one is refused in one line, and so
    is a folder holding none."""
    found = read(out, tasks, images=images)
    if found.damaged:
        raise UserError(f"{out} holds {damaged_line(found.damaged)}; a reader of {what} reads sound items only")
    if not found.items:
        raise UserError(f"{out} holds no {what}")
    return found.items


def loose_file(path: Path, kind: str = "json") -> bytes:
    """A file of a folder the user named, not through a dataset's root (`mewl inspect` and `mewl validate`
    of an item's folder, a file beside the one named): the folder is theirs, what lies in it is data, so
    it is read through the door with the folder as its root: a link in its place is refused, never
    followed, and only a regular file of its kind's size is read."""
    try:
        return door.read_bytes(path.parent, path, kind)
    except FileNotFoundError:
        raise UserError(f"{shown(str(path))}: no such file") from None
    except OSError as err:
        raise UserError(f"{shown(str(path))}: unreadable ({err.strerror})") from None


def item_at(path: Path) -> None:
    """A published item's folder (or a file in it), refused in one line when damaged, however valid its
    files look: what `mewl validate` and `mewl inspect` check before reading one item."""
    folder = path if path.is_dir() else path.parent
    if os.path.lexists(folder / RECORD):
        task = catalog.tasks().get(folder.parent.name)  # OUT/<split>/<task>/<index>: its images' sizes are known
        problem = full_problem(folder, model=task.model if task is not None else None)
        if problem is not None:
            raise UserError(f"{shown(str(folder))}: damaged item: {problem}")
