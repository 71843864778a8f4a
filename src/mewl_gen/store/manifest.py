"""OUT's manifest `mewl-dataset.json`: the settings that decide the data.

A run with other settings is refused in one line and the folder is left
untouched; a benchmark's config (an artificial language, held-out
combinations: tasks.benchmark.Config) binds only runs that write that benchmark's items.
"""
from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field

from mewl_gen.errors import UserError, shown
from mewl_gen.render.passes import PASSES
from mewl_gen.scenes.spec import GENERATOR_VERSION
from mewl_gen.tasks import catalog

from . import door
from .files import dumps, folder, make_folder, probe_writable, write_atomic, writing
from .layout import BOOKKEEPING, MANIFEST
from .nfs import create_exclusive


def claim_output(out: Path, settings: dict, benchmarks: Iterable[str] = (), option: str = "--out") -> None:
    """Create OUT with its manifest, or check an existing one matches (the
    dataset card comes with the run's plans: store.card).

    `settings` holds what changes the data (seed, quality, kind, the
    benchmarks' configs); a folder written with other settings is refused and
    left untouched. `benchmarks`: those the run writes items of. A benchmark's
    config new to OUT (a language for a benchmark OUT holds no items of) is added to the
    manifest; another benchmark's config never stands in the way. `option`: how the user named
    OUT (--out, OUT, make's OUT=), which a refusal names back."""
    exists = check_output(out, settings, benchmarks, option)
    probe_writable(out)  # also for a dataset already there: a read-only mount is one line
    if exists:
        _add_configs(out, settings, benchmarks, option)
        return
    with writing(out):
        out.mkdir(parents=True, exist_ok=True)  # OUT itself is the user's to name
        with folder(out, out) as fd:
            first = create_exclusive(fd, out / MANIFEST, dumps({"generator": GENERATOR_VERSION, **settings}))
        if not first:
            check_output(out, settings, benchmarks, option)  # another run created OUT first: its settings or a refusal
            _add_configs(out, settings, benchmarks, option)


def _add_configs(out: Path, settings: dict, benchmarks: Iterable[str], option: str) -> None:
    """Pin the configs of benchmarks OUT holds none of yet, under a lock (two
    runs adding two benchmarks both land), checking again inside it."""
    if not set(settings.get("config") or {}) - set(read_manifest(out).get("config") or {}):
        return
    lock_path = out / BOOKKEEPING / "manifest.lock"
    with writing(out):
        door.guard(out, lock_path)
        make_folder(out, out / BOOKKEEPING)
        lock = door.open_lock(out, lock_path)  # a link in its place would make a file outside OUT
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            check_output(out, settings, benchmarks, option)
            have = read_manifest(out)
            config = {**(have.get("config") or {}), **settings["config"]}
            write_atomic(out, out / MANIFEST, dumps({**have, "config": config}))
        finally:
            os.close(lock)


def check_output(out: Path, settings: dict, benchmarks: Iterable[str] = (), option: str = "--out") -> bool:
    """claim_output's checks without writing anything: True if OUT already
    holds a dataset with these settings, False if it may be created."""
    if out.exists() and not out.is_dir():
        raise UserError(f"output {out} exists and is not a folder")
    wanted = {"generator": GENERATOR_VERSION, **settings}
    path = out / MANIFEST
    if path.is_file():
        have = read_manifest(out)
        keys = [k for k in list(wanted) + [k for k in have if k not in wanted] if k != "config"]
        diff = [f"{k}={_short(have.get(k))} (asked {_short(wanted.get(k))})" for k in keys if have.get(k) != wanted.get(k)]
        diff += _config_differences(out, have.get("config") or {}, wanted.get("config") or {}, set(benchmarks))
        if diff:
            raise UserError(f"{out} holds a different dataset: " + ", ".join(diff) + f"; choose another {option}")
        return True
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")} if out.is_dir() else set()
    if MANIFEST in names:
        return check_output(out, settings, benchmarks, option)  # another run created OUT just now
    if names:
        raise UserError(f"{out} is not empty and has no {MANIFEST}; choose an empty or new folder")
    return False


def _config_differences(out: Path, have: dict, wanted: dict, benchmarks: set[str]) -> list[str]:
    """Per benchmark: a config pinned in OUT binds only runs that write its
    items; one new to OUT may be added while OUT has no items of it."""
    diff = []
    for name in sorted(set(have) | set(wanted)):
        h, w = have.get(name), wanted.get(name)
        if h == w or (w is None and name not in benchmarks) or (h is None and not _has_items(out, name)):
            continue
        diff.append(f"config of {name}={_short(h)} (asked {_short(w)})")
    return diff


def _has_items(out: Path, benchmark: str) -> bool:
    """A plan or a folder of any task of the benchmark, in any split."""
    known = catalog.benchmarks()
    names = [t.name for t in known[benchmark].tasks] if benchmark in known else []
    return any(next(out.glob(f"{BOOKKEEPING}/plan/*/{t}.json"), None) or next(out.glob(f"*/{t}"), None) for t in names)


class Manifest(BaseModel):
    """What a manifest may hold: the settings this version writes (cluster.planning), strictly."""
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    generator: str = Field(max_length=200)
    seed: int = Field(ge=0, lt=2**63)
    kind: str = Field(max_length=64)
    quality: str | None = Field(None, max_length=64)
    split_scheme: str | None = Field(None, max_length=64)
    passes: list[str] | None = Field(None, max_length=64)
    config: dict[str, Any] | None = Field(None, max_length=256)
    bench: str | None = Field(None, max_length=1000)  # a store `make bench ONLY=scale` made: what it reuses


VERSION = re.compile(r"^mewl-gen (\d+)\.(\d+)\.(\d+)$")


def _newer(generator: str) -> bool:
    """Whether a manifest was written by a later version of this tool than this one."""
    theirs, ours = VERSION.fullmatch(generator), VERSION.fullmatch(GENERATOR_VERSION)
    return bool(theirs and ours) and tuple(map(int, theirs.groups())) > tuple(map(int, ours.groups()))


def read_manifest(out: Path) -> dict:
    """OUT's settings; a missing, unreadable, damaged or foreign manifest is one line (the door's limits:
    a regular file, its size, its depth; this version's fields, of their types)."""
    path = out / MANIFEST
    if door.kind_of(out, path) in (None, "folder"):
        raise UserError(f"{out} is not a dataset of this tool (no {MANIFEST})")
    try:
        have = door.read_json(out, path, "manifest")
    except OSError as err:
        raise UserError(f"{shown(str(path))} is unreadable ({err.strerror}); is {out} a dataset of this tool?") from None
    except door.Refused as err:
        raise UserError(f"{err}; is {out} a dataset of this tool?") from None
    if not isinstance(have, dict) or not isinstance(have.get("generator"), str):
        raise UserError(f"{shown(str(path))} is damaged (not this tool's settings object); is {out} a dataset of this tool?")
    writer = shown(have["generator"], 60)
    if _newer(have["generator"]):
        raise UserError(f"{shown(str(path))} was written by {writer}, newer than this {GENERATOR_VERSION}; "
                        "read it with that version or later")
    unknown = sorted(k for k in have if k not in Manifest.model_fields)
    if unknown:
        raise UserError(f"{shown(str(path))} holds the field {shown(unknown[0], 60)}, which {GENERATOR_VERSION} does "
                        f"not know (written by {writer}); read it with the version that wrote it")
    door.validate(Manifest, have, path)
    return have


def passes_of(out: Path) -> tuple[str, ...]:
    """The passes (render.passes) every image of OUT has, as its manifest pins them; none without one."""
    passes = tuple(read_manifest(out).get("passes") or ()) if door.kind_of(out, out / MANIFEST) == "file" else ()
    unknown = [p for p in passes if p not in PASSES]
    if unknown:
        raise UserError(f"{out / MANIFEST} names the pass {unknown[0]!r}, which this tool does not know "
                        f"({', '.join(PASSES)}); is it damaged?")
    return passes


def enclosing_dataset(path: Path) -> Path | None:
    """The dataset folder that holds `path` (or is it), if any: where a write to it would land, links of the
    user's path followed."""
    path = path.expanduser().resolve()
    for folder in (path, *path.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def outside_datasets(path: Path, flag: str, out: Path | None = None) -> None:
    """An output the user names (a file or a folder: --out, --key, --to, --plot, DIR) never lies inside a
    dataset, whose files only its own commands replace: not inside OUT (nor OUT itself), nor inside any
    folder holding a manifest, found walking up from its parent (an item's folder lies in its dataset).
    One line otherwise, before any work."""
    where = path.expanduser().resolve()
    home = out if out is not None and (where == out.resolve() or out.resolve() in where.parents) else None
    home = home or enclosing_dataset(path.parent)
    if home is not None:
        raise UserError(f"{flag} {path} lies inside the dataset {home}; write it outside (a dataset's files are only "
                        "replaced by its own commands)")


def _short(value, limit: int = 60) -> str:
    """A setting for a one-line message: a language's whole table is cut."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...}"
