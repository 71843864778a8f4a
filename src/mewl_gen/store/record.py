"""The record of an episode folder: every file's size and sha256.

It is written last, just before the folder is published, so an episode
counts as complete only when its record is there and agrees with the files.
Its name holds an underscore, which a panel's name (lowercase letters,
digits, spaces and '#') never does, so it cannot collide with a panel's
`<name>.png` / `<name>.json`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from mewl_gen.render.passes import files_of, is_pass_file

RECORD = "_checksums.json"
FORMAT = "mewl-episode-checksums/1"
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_record(folder: Path) -> None:
    files = {p.name: {"size": p.stat().st_size, "sha256": sha256(p)}
             for p in sorted(folder.iterdir()) if p.name != RECORD}
    text = json.dumps({"format": FORMAT, "files": files}, indent=1) + "\n"
    (folder / RECORD).write_text(text)


def read_record(folder: Path) -> dict[str, dict] | None:
    """name -> {size, sha256}; None if the record is missing or malformed."""
    try:
        data = json.loads((folder / RECORD).read_bytes())
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) and data.get("format") == FORMAT else None
    if not isinstance(files, dict) or not files:
        return None
    for name, entry in files.items():
        if (not isinstance(entry, dict) or not isinstance(entry.get("size"), int)
                or not SHA256.match(str(entry.get("sha256"))) or "/" in name or name in ("", ".", "..", RECORD)):
            return None
    return files


def quick_problem(folder: Path) -> str | None:
    """What is wrong with an episode folder, from its listing and sizes
    alone (a stat per file): None when it looks complete."""
    files = read_record(folder)
    if files is None:
        return f"no readable {RECORD}" if folder.is_dir() else "missing"
    try:
        present = {e.name: e for e in os.scandir(folder) if e.name != RECORD}
    except OSError as err:
        return f"unreadable ({err.strerror})"
    missing = sorted(set(files) - set(present))
    if missing:
        return f"{missing[0]} is missing" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
    extra = sorted(set(present) - set(files))
    if extra:
        return f"{extra[0]} is not in {RECORD}" + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else "")
    for name, entry in sorted(files.items()):
        try:
            size = present[name].stat(follow_symlinks=False).st_size if present[name].is_file(follow_symlinks=False) else None
        except OSError:
            size = None
        if size != entry["size"]:
            return f"{name} is {'not a file' if size is None else f'{size} bytes'}, the record says {entry['size']}"
    return None


def missing_pass(folder: Path, passes: tuple[str, ...]) -> str | None:
    """The first pass file (render.passes) that an image of a complete item lacks: a dataset's manifest
    names the passes every image has. None when each image has them all."""
    files = read_record(folder) or {}
    for image in sorted(n for n in files if n.endswith(".png") and not is_pass_file(n)):
        lacking = [name for name in files_of(image[: -len(".png")], passes) if name not in files]
        if lacking:
            return f"{lacking[0]} is missing (the dataset has the passes {', '.join(passes)})"
    return None


def full_problem(folder: Path, only: str | None = None) -> str | None:
    """quick_problem, then every file's sha256, every PNG decoded, every
    JSON parsed and every NumPy file (a depth pass) read: None when the
    episode is intact. `only` (a suffix such as ".json") checks the contents
    of those files alone: what a reader of an item's JSON relies on, without
    hashing its images."""
    problem = quick_problem(folder)
    if problem is not None:
        return problem
    import numpy as np
    from PIL import Image

    for name, entry in sorted(read_record(folder).items()):
        if only is not None and not name.endswith(only):
            continue
        path = folder / name
        if sha256(path) != entry["sha256"]:
            return f"{name}: sha256 differs from the record"
        try:
            if name.endswith(".png"):
                with Image.open(path) as im:
                    im.load()
            elif name.endswith(".json"):
                json.loads(path.read_bytes())
            elif name.endswith(".npy"):
                np.load(path, allow_pickle=False)
        except Exception as err:  # noqa: BLE001 - any decoder error means a damaged file
            return f"{name}: does not decode ({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})"
    return None
