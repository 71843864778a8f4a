"""Writing files of an output folder: whole or not at all, durable where it
counts, never making a deleted output folder again, and every storage fault (a
full disk, a read-only mount, a failing or vanished folder) said in one line
(NoSpace, Vanished, UserError), never a traceback nor a renderer's crash."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

from mewl_gen.errors import DENIED, FAILING, FULL, GONE, NoSpace, UserError, Vanished

from . import door
from .nfs import aside, create, replace


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def write_atomic(root: Path, path: Path, text: str | bytes, make: bool = False, sync: bool = True) -> None:
    """Replace `path` under `root` whole, through the held descriptor of its folder (`make`: made where
    missing, never `root` itself); with `sync`, its data is on disk before the rename, so even a power loss
    leaves the old file or the new one, never an empty one (a staging folder published whole needs none)."""
    with folder(root, path.parent, make) as fd:
        write_at(fd, path, [text.encode() if isinstance(text, str) else text], sync)


def write_lines_atomic(root: Path, path: Path, lines: Iterable[str]) -> None:
    """write_atomic of the lines' text, written as they come: a file of any length in the memory of one line
    (`mewl text` writes a task's whole split at once)."""
    with folder(root, path.parent) as fd:
        write_at(fd, path, (line.encode() for line in lines))


def write_at(fd: int, path: Path, chunks: Iterable[bytes], sync: bool = True) -> None:
    """The chunks written to a temporary file in `fd`, the held descriptor of path's folder, fsynced (`sync`)
    and renamed over path's name there: a folder swapped for a link meanwhile is never entered. Where NFS
    leaves the rename's outcome uncertain, `path` is judged by the sha256 of what was written."""
    tmp = aside(path)
    digest = hashlib.sha256()

    def hashed():
        for data in chunks:
            digest.update(data)
            yield data

    with named(path):
        try:
            create(fd, tmp.name, hashed(), sync)
            replace(fd, tmp, fd, path, None, sha256=digest.hexdigest())
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp.name, dir_fd=fd)


@contextlib.contextmanager
def named(path: Path):
    """An OSError met on a name in a held folder names `path` in full, so that the fault is told by where
    it struck (storage_fault)."""
    try:
        yield
    except OSError as err:
        if err.errno is None or err.filename == str(path):
            raise
        raise OSError(err.errno, err.strerror, str(path)) from None


@contextlib.contextmanager
def folder(root: Path, path: Path, make: bool = False, anchor: Path | None = None):
    """The held descriptor of the folder `path` under `root`, reached without following a link (door); with
    `make`, what is missing below `root` is made (make_folder's rules, `anchor` included)."""
    fd = _open(root, path, make, anchor)[0]
    try:
        yield fd
    finally:
        os.close(fd)


def sync_folder(root: Path, path: Path) -> None:
    """fsync a folder: the names created, removed or renamed in it are on disk."""
    with folder(root, path) as fd:
        os.fsync(fd)


def sync_tree(fd: int) -> None:
    """fsync every file of the held folder `fd` (one level: an item's folder is flat), then the folder."""
    for entry in os.scandir(fd):
        if entry.is_file(follow_symlinks=False):
            f = os.open(entry.name, door.O_READ, dir_fd=fd)
            try:
                os.fsync(f)
            finally:
                os.close(f)
    os.fsync(fd)


def make_folder(out: Path, path: Path, anchor: Path | None = None) -> list[Path]:
    """Create `path` and its missing parents inside OUT, never OUT itself: a
    writer must not make a deleted output folder again (without its manifest
    every command would refuse it). Returns the folders created, top first;
    Vanished when OUT is gone.

    `anchor`: a path inside OUT made before (its manifest, a writer's staging folder). Where it is gone, or
    had to be made again, OUT was unmounted or emptied since the caller last looked: what was made lies in
    what is left at OUT's path, so it is removed again (the deepest first), and Vanished."""
    fd, created = _open(out, path, True, anchor)
    os.close(fd)
    return created


def _open(out: Path, path: Path, make: bool, anchor: Path | None) -> tuple[int, list[Path]]:
    created: list[Path] = []
    if make and path != out and out not in path.parents:
        raise ValueError(f"{path} is not inside {out}")
    try:
        fd = door.open_dir(out, path, created if make else None)
    except FileNotFoundError:
        if make and not out.is_dir():
            raise vanished(out, "") from None
        raise
    if created and anchor is not None and (door.kind_of(out, anchor) is None
                                           or any(f == anchor or f in anchor.parents for f in created)):
        os.close(fd)
        for made in reversed(created):
            with contextlib.suppress(OSError), folder(out, made.parent) as parent:
                os.rmdir(made.name, dir_fd=parent)
        raise vanished(out, f"no {anchor.relative_to(out)}")
    return fd, created


def remove_tree(root: Path, path: Path) -> None:
    """Remove a folder under `root` and all it holds, from the held descriptor of its parent: a link on the
    way is refused, one inside is removed, never followed. Nothing there is fine."""
    try:
        with folder(root, path.parent) as fd:
            shutil.rmtree(path.name, dir_fd=fd, ignore_errors=True)
    except (FileNotFoundError, NotADirectoryError):
        pass


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
    if err.errno in DENIED or err.errno in FAILING:
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
