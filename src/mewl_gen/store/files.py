"""Writing files of an output folder: whole or not at all, durable where it
counts, never making a deleted output folder again, and every storage fault (a
full disk, a read-only mount, a failing or vanished folder) said in one line
(NoSpace, Vanished, UserError), never a traceback nor a renderer's crash."""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterable

from mewl_gen.errors import DENIED, FULL, GONE, UserError

from . import door
from .nfs import aside, replace


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def write_atomic(path: Path, text: str | bytes) -> None:
    """Replace `path` whole; its data is on disk before the rename, so even a
    power loss leaves the old file or the new one, never an empty one."""
    _write_chunks(path, [text.encode() if isinstance(text, str) else text])


def write_lines_atomic(path: Path, lines: Iterable[str]) -> None:
    """write_atomic of the lines' text, written as they come: a file of any length in the memory of one line
    (`mewl text` writes a task's whole split at once)."""
    _write_chunks(path, (line.encode() for line in lines))


def _write_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    """The chunks written aside and fsynced, then renamed over `path`; where NFS leaves the rename's outcome
    uncertain, `path` is judged by the sha256 of what was written."""
    tmp = aside(path)
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as f:
            for data in chunks:
                f.write(data)
                digest.update(data)
            f.flush()
            os.fsync(f.fileno())
        replace(tmp, path, None, sha256=digest.hexdigest())
    finally:
        tmp.unlink(missing_ok=True)


def write_synced(path: Path, data: bytes) -> None:
    """Write a whole file and fsync it."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync(path: str | Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    """fsync a folder: the names created, removed or renamed in it are on disk."""
    _fsync(folder)


def sync_tree(folder: Path) -> None:
    """fsync every file of a folder (one level: an item's folder is flat), then the folder."""
    for entry in os.scandir(folder):
        if entry.is_file(follow_symlinks=False):
            _fsync(entry.path)
    sync_folder(folder)


def make_folder(out: Path, folder: Path, anchor: Path | None = None) -> list[Path]:
    """Create `folder` and its missing parents inside OUT, never OUT itself: a
    writer must not make a deleted output folder again (without its manifest
    every command would refuse it). Returns the folders created, top first;
    Vanished when OUT is gone.

    `anchor`: a path inside OUT made before (its manifest, a writer's staging folder). Where it is gone, or
    had to be made again, OUT was unmounted or emptied since the caller last looked: what was made lies in
    what is left at OUT's path, so it is removed again (the deepest first), and Vanished."""
    created = _make(out, folder)
    if created and anchor is not None and (not anchor.exists() or any(f == anchor or f in anchor.parents
                                                                      for f in created)):
        for made in reversed(created):
            with contextlib.suppress(OSError):
                made.rmdir()
        raise vanished(out, f"no {anchor.relative_to(out)}")
    return created


def _make(out: Path, folder: Path) -> list[Path]:
    if folder == out:
        if out.is_dir():
            return []
        raise vanished(out, "")
    if out not in folder.parents:
        raise ValueError(f"{folder} is not inside {out}")
    door.guard(out, folder)  # no link on the way: nothing is made, nor later written, outside OUT
    try:
        folder.mkdir()
        return [folder]
    except FileExistsError:
        return []
    except FileNotFoundError:
        created = _make(out, folder.parent)
    try:
        folder.mkdir()
    except FileExistsError:
        return created
    return [*created, folder]


class NoSpace(UserError):
    """The filesystem of OUT (or of the renderer's scratch) is full: the run stops at once."""


class Vanished(UserError):
    """OUT, its manifest or a folder of it was removed (or unmounted) while a run wrote it: the run stops at once."""


def no_space(out: Path, detail: str = "") -> NoSpace:
    return NoSpace(f"no space left on {out}" + (f" ({detail})" if detail else "")
                   + "; nothing half-written was published: free space and rerun the same command to resume")


def vanished(out: Path, detail: str) -> Vanished:
    return Vanished(f"{out} was removed or became unreadable while this run wrote it" + (f" ({detail})" if detail else "")
                    + "; stopped without writing more: restore it, or rerun the same command to start again")


def storage_fault(out: Path, err: OSError) -> UserError | None:
    """The one line a storage fault on OUT is, or None for an error that is a
    bug (a traceback): a full disk, a read-only or failing file system, OUT
    or a file of it gone while writing."""
    where = str(err.filename or "")
    if err.errno in FULL:
        return no_space(out, where)
    if err.errno in GONE and (not out.is_dir() or _inside(out, where)):
        return vanished(out, f"{err.strerror}: {where}" if out.is_dir() else "")
    if err.errno in DENIED or err.errno == errno.EIO:
        return UserError(f"cannot write to {out}: {err.strerror}" + (f" ({where})" if where else ""))
    return None


def _inside(out: Path, path: str) -> bool:
    top = os.path.abspath(out)
    return bool(path) and os.path.commonpath([top, os.path.abspath(path)]) == top


class writing:
    """`with writing(out):` turns a storage fault on OUT (storage_fault) into
    its one-line error; other errors pass."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if isinstance(exc, OSError) and (fault := storage_fault(self.out, exc)) is not None:
            raise fault from None
        return False


def probe_writable(out: Path) -> None:
    """Refuse an OUT that cannot be written (read-only mount, no permission,
    under a file, full) before any work starts, by actually writing: as root,
    permission bits alone say nothing. OUT itself is not created here."""
    existing = out.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"cannot create {out}: {existing} is not a folder")
    try:
        fd, name = tempfile.mkstemp(prefix=".mewl-probe-", dir=existing)
        try:
            os.write(fd, b"mewl")
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(name)
    except OSError as err:
        if err.errno in FULL:
            raise no_space(out) from None
        raise UserError(f"cannot write to {out}: {err.strerror}") from None
