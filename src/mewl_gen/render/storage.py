"""A full or vanished disk told from a renderer's fault (no bpy).

Blender's image writers do not raise: `save_render` on a full disk leaves a
truncated PNG, and the compositor's EXR write says so only in the log, which
may sit on the same full disk. So what Blender wrote is checked where it
lies (its size; whether it decodes), and a file not written whole is a
storage fault when its folder is gone (ENOENT: the output was removed) or its
filesystem lacks the room the file needs (ENOSPC); otherwise the fault is
the renderer's.
"""
from __future__ import annotations

import os
from pathlib import Path

from mewl_gen.errors import folder_gone, full_disk

SLACK = 64 * 1024  # headers, metadata and Blender's log lines beside an image's pixels


def raw_bytes(width: int, height: int, channels: int = 4, depth: int = 1) -> int:
    """An image's pixels uncompressed: an upper bound of its PNG, the size of an uncompressed EXR."""
    return width * height * channels * depth


def free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def fault(path: Path, need: int) -> OSError | None:
    """The storage fault that explains why `path` is missing, short or does
    not decode: its folder is gone, or its filesystem has less than `need`
    bytes free (a write that failed for room leaves it all but full). None
    when neither holds."""
    if not path.parent.is_dir():
        return folder_gone(str(path.parent), "the folder was removed while writing")
    free = free_bytes(path.parent)
    if free is not None and free < need:
        return full_disk(str(path))
    return None


def check_size(path: Path, least: int) -> None:
    """A file Blender wrote holds at least `least` bytes, or the storage fault
    that cut it short is raised; a short file on a disk with room is the renderer's fault."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    if size >= least:
        return
    raise fault(path, least + SLACK) or RuntimeError(f"Blender wrote {size} bytes to {path}, expected at least {least}")

