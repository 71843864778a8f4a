"""Where things lie in an output folder OUT.

OUT/<split>/<task>/<i>/ is an item: either complete or absent. An item is
written into its writer's staging folder OUT/.staging/<writer>/ and renamed
into place after its record of checksums (store.record), which is written
last, and durably: every file and the folder are fsynced before the rename and
the folders it changed after it, so a node that loses power keeps whole items
or none. Once a run has claimed OUT, no folder is made in it while OUT or its
manifest is gone (store.files.make_folder, present). Bookkeeping (plans,
failures, damage notes, claims) lives in OUT/.mewl/, outside every split:
loaders glob `<split>/<task>/*` with pathlib, which matches hidden names too,
so nothing else may sit inside a split folder.
"""
from __future__ import annotations

import os
import re
import secrets
import time
from pathlib import Path

from mewl_gen.errors import NOT_EMPTY
from mewl_gen.scenes.spec import SPLIT_PATTERN

from . import door, files
from .files import make_folder, sync_folder, sync_tree, vanished
from .nfs import replace
from .record import RECORD, quick_problem

MANIFEST = "mewl-dataset.json"
BOOKKEEPING = ".mewl"  # plans, failures, damage notes and claims
DAMAGED = ".damaged"  # damaged item folders set aside before they are rendered again
STAGING = ".staging"  # one folder per writer, where items are built before they are published
SPLIT = re.compile(SPLIT_PATTERN)  # a split's folder name (the item model's own rule)


def item_dir(out: Path, split: str, task: str, index: int) -> Path:
    return out / split / task / str(index)


def item_index(name: str) -> int | None:
    """The index an item folder's name stands for; None for a name this
    tool never writes ('007', '+7', 'x'), which no reader may take for one."""
    return int(name) if name.isdigit() and name.isascii() and str(int(name)) == name else None


def is_complete(out: Path, split: str, task: str, index: int) -> bool:
    """Its record is there and every file it lists is there with its size."""
    return quick_problem(item_dir(out, split, task, index), out) is None


def present(out: Path) -> None:
    """OUT and its manifest are still there, or Vanished: a writer checks
    before it claims or publishes an item, so an OUT removed, emptied or
    unmounted under a run is never filled again without its manifest."""
    if not (out / MANIFEST).is_file() or (out / MANIFEST).is_symlink():
        raise vanished(out, f"no {MANIFEST}")


def partial_items(out: Path) -> list[Path]:
    """Item folders in staging (only while a writer works, or after a kill)."""
    return sorted(p for p in (out / STAGING).glob("*/*/*/*") if not p.relative_to(out / STAGING).parts[1].startswith("."))


def set_aside(out: Path, split: str, task: str, index: int) -> Path | None:
    """Move a damaged item folder out of the split, to OUT/.damaged/, so it
    can be rendered again; nothing in it is deleted. Call with the claim held."""
    folder = item_dir(out, split, task, index)
    if not folder.exists():
        return None
    aside = out / DAMAGED / split / task / f"{index}-{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(2)}"
    with files.folder(out, folder.parent) as src, files.folder(out, aside.parent, make=True) as dst:
        os.rename(folder.name, aside.name, src_dir_fd=src, dst_dir_fd=dst)  # held folders: no link followed
    return aside


def publish(tmp: Path, out: Path, split: str, task: str, index: int, durable: bool = True) -> bool:
    """Rename a finished staging folder into place; False if the place was
    taken. The writer holds the item's claim and has set any damaged folder
    aside, so only a writer whose claim was taken over (silent for the
    farm's staleness limit, yet alive) can have been first: its item is the same.
    `durable` (MEWL_FSYNC=0 turns it off): fsync the item's files and folder
    before the rename, and the folders it changed after."""
    present(out)
    final = item_dir(out, split, task, index)
    created = make_folder(out, final.parent, anchor=out / MANIFEST)  # nothing made were OUT unmounted since
    # Every name below is taken in held folders (door): a folder swapped for a link meanwhile is never entered.
    with files.folder(out, tmp.parent) as src, files.folder(out, final.parent) as dst:
        with files.folder(out, tmp) as item:
            if durable:
                sync_tree(item)
            record = door.read_bytes(tmp, tmp / RECORD, "record", dir_fd=item)  # written last, this render's alone: the rename's proof
        try:
            replace(src, tmp, dst, final, record, proof=final / RECORD)  # verified where NFS leaves the outcome uncertain
        except OSError as err:
            if err.errno in NOT_EMPTY and is_complete(out, split, task, index):
                files.remove_tree(out, tmp)
                return False
            raise
        if durable:
            os.fsync(dst)
    if durable:
        for folder in {c.parent for c in created}:
            sync_folder(out, folder)
    return True
