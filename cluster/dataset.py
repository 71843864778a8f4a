"""The output folder: MEWL's release layout, a settings manifest, atomic episodes.

OUT/<split>/<task>/<i>/ is either complete or absent: an episode is written
into a hidden temporary folder beside it and renamed into place.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
from pathlib import Path

from scenes.spec import GENERATOR_VERSION

from .errors import UserError

MANIFEST = "mewl-dataset.json"
STAGING = ".staging"
SPLIT_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def episode_dir(out: Path, split: str, task: str, index: int) -> Path:
    return out / split / task / str(index)


def is_complete(out: Path, split: str, task: str, index: int) -> bool:
    return (episode_dir(out, split, task, index) / "info.json").is_file()


def claim_output(out: Path, settings: dict) -> None:
    """Create OUT with its manifest, or check an existing one matches.

    `settings` holds what changes the data (seed, quality, kind); a folder
    written with other settings is refused and left untouched."""
    if check_output(out, settings):
        return
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / MANIFEST, dumps({"generator": GENERATOR_VERSION, **settings}))


def check_output(out: Path, settings: dict) -> bool:
    """claim_output's checks without writing anything: True if OUT already
    holds a dataset with these settings, False if it may be created."""
    if out.exists() and not out.is_dir():
        raise UserError(f"output {out} exists and is not a folder")
    wanted = {"generator": GENERATOR_VERSION, **settings}
    path = out / MANIFEST
    if path.is_file():
        try:
            have = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise UserError(f"{path} is unreadable ({err}); is {out} a dataset of this tool?") from None
        diff = [f"{k}={have.get(k)!r} (asked {v!r})" for k, v in wanted.items() if have.get(k) != v]
        if diff:
            raise UserError(f"{out} holds a different dataset: " + ", ".join(diff) + "; choose another --out")
        return True
    if out.is_dir() and any(p for p in out.iterdir() if not p.name.startswith(".")):
        raise UserError(f"{out} is not empty and has no {MANIFEST}; choose an empty or new folder")
    return False


def write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(text.encode() if isinstance(text, str) else text)
    os.replace(tmp, path)


def staging_dir(out: Path, split: str, task: str, index: int) -> Path:
    """A fresh folder where an episode is written before it is renamed into
    place. It lives under OUT/.staging (same filesystem, so the rename is
    atomic), not beside the episode: MEWL's loaders glob <split>/<task>/*
    with pathlib, which also matches hidden names. Leftovers of a killed run
    for the same episode are removed: this run owns the index now."""
    folder = out / STAGING / split / task
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(f"{index}-*"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = folder / f"{index}-{socket.gethostname()}-{os.getpid()}"
    tmp.mkdir()
    return tmp


def partial_episodes(out: Path) -> list[Path]:
    """Staging folders still present (only while a run works, or after a kill)."""
    return sorted((out / STAGING).glob("*/*/*"))


def publish(tmp: Path, out: Path, split: str, task: str, index: int) -> bool:
    """Rename a finished staging folder into place; False if another writer won."""
    final = episode_dir(out, split, task, index)
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, final)
        return True
    except OSError:
        if is_complete(out, split, task, index):
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        raise
