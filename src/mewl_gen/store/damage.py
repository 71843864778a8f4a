"""The notes `mewl verify` leaves of damaged items, for the next render to set them aside and render them
again: one file a task, OUT/.mewl/damaged/<split>/<task>.json, listing the damaged items' indices as
ranges ("3-7,12"), so that noting 100,000 items is one file written, not 100,000.

Verify merges what it found into what is there and writes the file whole (through its folder's held
descriptor); a render clears an item it rendered again. Both change it under the task's lock
(<task>.lock), so that neither loses the other's change. Readers take no lock: the file is replaced by a
rename, so it is read whole, old or new.

Notes of an older version, one file an item (<split>/<task>/<index>.json, counted by presence), are still
read; the next verify merges them into the task's file and removes their folder."""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
from array import array
from bisect import bisect_right
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from mewl_gen.errors import shown

from . import door
from .files import dumps, folder, remove_tree, write_at
from .bookkeeping import MAX_ITEMS as MAX_INDEX
from .layout import BOOKKEEPING, item_index

LIMIT = "damage"  # the door's size limit of a task's notes
RANGE = re.compile(r"(\d{1,8})(?:-(\d{1,8}))?(,|\Z)")


class Notes(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    split: str = Field(max_length=64)
    task: str = Field(max_length=128)
    damaged: str  # ranges of indices, ascending and apart: "3-7,12"; the door's limit bounds its length


class Noted:
    """A set of item indices held as ascending, disjoint, inclusive ranges: membership by bisection,
    16 bytes a range however many items it spans."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()):
        self.firsts, self.lasts = array("q"), array("q")
        for first, last in spans:
            self.firsts.append(first)
            self.lasts.append(last)

    @classmethod
    def of(cls, indices: Iterable[int]) -> Noted:
        return cls().changed(add=indices, remove=())

    def changed(self, add: Iterable[int], remove: Iterable[int]) -> Noted:
        """These notes less `remove` and with `add`, range by range: clearing one item of a long range costs
        the ranges', not the items' number."""
        cuts, j, spans = sorted(set(remove)), 0, []
        for first, last in zip(self.firsts, self.lasts):
            while j < len(cuts) and cuts[j] < first:
                j += 1
            while j < len(cuts) and cuts[j] <= last:
                if cuts[j] > first:
                    spans.append((first, cuts[j] - 1))
                first, j = cuts[j] + 1, j + 1
            if first <= last:
                spans.append((first, last))
        merged: list[list[int]] = []
        for first, last in sorted(spans + [(i, i) for i in set(add)]):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        return Noted(map(tuple, merged))

    def __contains__(self, index: int) -> bool:
        k = bisect_right(self.firsts, index) - 1
        return k >= 0 and index <= self.lasts[k]

    def __iter__(self) -> Iterator[int]:
        for first, last in zip(self.firsts, self.lasts):
            yield from range(first, last + 1)

    def __bool__(self) -> bool:
        return bool(self.firsts)

    def __len__(self) -> int:
        return sum(last - first + 1 for first, last in zip(self.firsts, self.lasts))

    def text(self) -> str:
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(self.firsts, self.lasts))


def parse(text: str, path: Path) -> Noted:
    """The ranges of a notes file: ascending, apart, each index at most MAX_INDEX; Refused otherwise."""
    noted, at, last = Noted(), 0, -2
    for m in RANGE.finditer(text):
        if m.start() != at:
            break
        first, end = int(m[1]), int(m[2] or m[1])
        if not last + 1 < first <= end <= MAX_INDEX:
            raise door.Refused(path, f"field damaged: {m[0].rstrip(',')!r} is not a range above the last one "
                                     f"and at most {MAX_INDEX}")
        noted.firsts.append(first)
        noted.lasts.append(end)
        at, last = m.end(), end
        if not m[3]:
            break
    if at != len(text) or text.endswith(","):
        raise door.Refused(path, f"field damaged: {shown(text[at:at + 40], 40)} is not a range of indices "
                                 "(such as 3-7,12)")
    return noted


def notes_path(out: Path, split: str, task: str) -> Path:
    return out / BOOKKEEPING / "damaged" / split / f"{task}.json"


def legacy_folder(out: Path, split: str, task: str) -> Path:
    """An older version's notes: one file an item, <index>.json, counted by its presence."""
    return out / BOOKKEEPING / "damaged" / split / task


def noted(out: Path, split: str, task: str) -> Noted:
    """Every item of the split and task noted damaged, in the task's file or as an older version's note.
    A notes file that is not one (mistyped, a link, too large) is one line: `mewl verify` rewrites it."""
    return _union(_read(out, split, task), _legacy(out, split, task))


def is_damaged(out: Path, split: str, task: str, index: int) -> bool:
    return index in _read(out, split, task) or door.is_file(out, legacy_folder(out, split, task) / f"{index}.json")


_cache: dict[Path, tuple[tuple, Noted]] = {}  # one task's notes, kept while the file is the same


def _read(out: Path, split: str, task: str, dir_fd: int | None = None) -> Noted:
    """The task's file of notes, read again only when it changed: a render asks of every item it writes."""
    path = notes_path(out, split, task)
    try:
        fd, size = door.open_file(out, path, LIMIT, dir_fd)
    except (FileNotFoundError, NotADirectoryError):
        return Noted()
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino, st.st_mtime_ns, size)
    if (hit := _cache.get(path)) is not None and hit[0] == key:
        os.close(fd)
        return hit[1]
    notes = door.validate(Notes, door.parse_json(door.read_fd(fd, size), path), path)
    if (notes.split, notes.task) != (split, task):
        raise door.Refused(path, f"holds the notes of {shown(notes.split, 40)}/{shown(notes.task, 60)}")
    found = parse(notes.damaged, path)
    _cache.clear()
    _cache[path] = (key, found)
    return found


def _legacy(out: Path, split: str, task: str) -> list[int]:
    return [i for name, kind in door.entries(out, legacy_folder(out, split, task))
            if kind == "file" and name.endswith(".json") and (i := item_index(name[: -len(".json")])) is not None]


def _union(noted: Noted, more: Iterable[int]) -> Noted:
    more = list(more)
    return noted.changed(add=more, remove=()) if more else noted


def record(out: Path, found: Iterable[tuple[tuple[str, str, int], str | None]]) -> None:
    """`mewl verify`: note each item found damaged (a problem) and clear each found intact (None). What it
    found is gathered a task at a time, then merged under the task's lock into what is there (a render may
    have cleared an item meanwhile) and written once; an older version's notes of the task are merged in and
    their folder removed. A notes file that cannot be read is replaced: verify's check is the newer word."""
    damaged: dict[tuple[str, str], set[int]] = {}
    intact: dict[tuple[str, str], set[int]] = {}
    before: dict[tuple[str, str], Noted] = {}
    for (split, task, index), problem in found:
        key = (split, task)
        if key not in before:
            before[key] = _readable(out, split, task)
            damaged[key], intact[key] = set(), set()
        if problem is not None:
            damaged[key].add(index)
        elif index in before[key]:
            intact[key].add(index)  # only a noted one needs clearing: the rest are not kept
    for (split, task), bad in damaged.items():
        if bad or intact[(split, task)] or before[(split, task)] or door.kind_of(out, notes_path(out, split, task)):
            _change(out, split, task, add=bad, remove=intact[(split, task)], legacy=True)


def clear(out: Path, split: str, task: str, index: int) -> None:
    """A render's: the item is sound again (rendered anew, or restored by hand since verify)."""
    if index in _read(out, split, task):
        _change(out, split, task, add=(), remove={index})
    door.unlink(out, legacy_folder(out, split, task) / f"{index}.json")


def _readable(out: Path, split: str, task: str, dir_fd: int | None = None) -> Noted:
    """The task's notes, an unreadable file counting as none (verify's check is the newer word), and an older
    version's notes."""
    found = _read_or_none(out, split, task, dir_fd)
    legacy = legacy_folder(out, split, task)
    return _union(found or Noted(), _legacy(out, split, task) if door.kind_of(out, legacy) is not None else ())


def _read_or_none(out: Path, split: str, task: str, dir_fd: int | None = None) -> Noted | None:
    try:
        return _read(out, split, task, dir_fd)
    except door.Refused:
        return None


def _change(out: Path, split: str, task: str, add: Iterable[int], remove: set[int], legacy: bool = False) -> None:
    """The task's notes, less `remove` and with `add`, written whole under its lock (`legacy`: with an older
    version's notes merged in, and their folder removed after); an unreadable file is replaced."""
    path = notes_path(out, split, task)
    with folder(out, path.parent, make=True) as fd, _locked(out, path.with_suffix(".lock"), fd):
        read = _read_or_none(out, split, task, fd)
        stale = legacy and door.kind_of(out, legacy_folder(out, split, task)) is not None
        now = _readable(out, split, task, fd) if stale else read or Noted()
        kept = now.changed(add, remove)
        if stale or kept.text() != now.text() or (read is None and door.kind_of(out, path) is not None):
            write_at(fd, path, [dumps({"split": split, "task": task, "damaged": kept.text()}).encode()])
        if stale:
            remove_tree(out, legacy_folder(out, split, task))


@contextlib.contextmanager
def _locked(out: Path, path: Path, fd: int):
    lock = door.open_lock(out, path, dir_fd=fd)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)
