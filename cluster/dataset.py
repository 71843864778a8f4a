"""The output folder: MEWL's release layout, a settings manifest, atomic episodes.

OUT/<split>/<task>/<i>/ is either complete or absent: an episode is written
into its writer's staging folder (cluster.writers) and renamed into place
after its record of checksums (cluster.record), which is written last.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Iterable

from scenes.spec import GENERATOR_VERSION

from .errors import UserError
from .record import quick_problem
from .writers import STAGING

MANIFEST = "mewl-dataset.json"
BOOKKEEPING = ".mewl"  # plans, failures, damage notes and claims: outside every split (MEWL's loaders glob them)
DAMAGED = ".damaged"  # damaged episode folders set aside before they are rendered again
FULL = (errno.ENOSPC, errno.EDQUOT)


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def episode_dir(out: Path, split: str, task: str, index: int) -> Path:
    return out / split / task / str(index)


def episode_index(name: str) -> int | None:
    """The index an episode folder's name stands for; None for a name this
    tool never writes ('007', '+7', 'x'), which no reader may take for one."""
    return int(name) if name.isdigit() and name.isascii() and str(int(name)) == name else None


def is_complete(out: Path, split: str, task: str, index: int) -> bool:
    """Its record is there and every file it lists is there with its size."""
    return quick_problem(episode_dir(out, split, task, index)) is None


def claim_output(out: Path, settings: dict, benchmarks: Iterable[str] = ()) -> None:
    """Create OUT with its manifest, or check an existing one matches.

    `settings` holds what changes the data (seed, quality, kind, the
    benchmarks' configs); a folder written with other settings is refused and
    left untouched. `benchmarks`: those the run writes items of. A benchmark's
    config new to OUT (ICY's grammar in a MEWL dataset) is added to the
    manifest; another benchmark's config never stands in the way."""
    exists = check_output(out, settings, benchmarks)
    probe_writable(out)  # also for a dataset already there: a read-only mount is one line
    if exists:
        _add_configs(out, settings, benchmarks)
        return
    with writing(out):
        out.mkdir(parents=True, exist_ok=True)
        if not create_exclusive(out / MANIFEST, dumps({"generator": GENERATOR_VERSION, **settings})):
            check_output(out, settings, benchmarks)  # another run created OUT first: its settings or a refusal
            _add_configs(out, settings, benchmarks)
            return
    from .card import write_card  # the card reads status, which reads this module

    write_card(out)


def _add_configs(out: Path, settings: dict, benchmarks: Iterable[str]) -> None:
    """Pin the configs of benchmarks OUT holds none of yet, under a lock (two
    runs adding two benchmarks both land), checking again inside it."""
    if not set(settings.get("config") or {}) - set(read_manifest(out).get("config") or {}):
        return
    with writing(out):
        (out / BOOKKEEPING).mkdir(exist_ok=True)
        with open(out / BOOKKEEPING / "manifest.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            check_output(out, settings, benchmarks)
            have = read_manifest(out)
            config = {**(have.get("config") or {}), **settings["config"]}
            write_atomic(out / MANIFEST, dumps({**have, "config": config}))


def check_output(out: Path, settings: dict, benchmarks: Iterable[str] = ()) -> bool:
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
            raise UserError(f"{out} holds a different dataset: " + ", ".join(diff) + "; choose another --out")
        return True
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")} if out.is_dir() else set()
    if MANIFEST in names:
        return check_output(out, settings, benchmarks)  # another run created OUT just now
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
    import tasks  # the registry, only where a config is new to OUT

    names = [t.name for t in tasks.BENCHMARKS[benchmark].tasks] if benchmark in tasks.BENCHMARKS else []
    return any(next(out.glob(f"{BOOKKEEPING}/plan/*/{t}.json"), None) or next(out.glob(f"*/{t}"), None) for t in names)


def read_manifest(out: Path) -> dict:
    """OUT's settings; a missing, unreadable or damaged manifest is one line."""
    path = out / MANIFEST
    if not path.is_file():
        raise UserError(f"{out} is not a dataset of this tool (no {MANIFEST})")
    try:
        have = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path} is unreadable ({err}); is {out} a dataset of this tool?") from None
    if not isinstance(have, dict) or have.get("generator") is None:
        raise UserError(f"{path} is damaged (not this tool's settings object); is {out} a dataset of this tool?")
    return have


def enclosing_dataset(path: Path) -> Path | None:
    """The dataset folder that holds `path` (or is it), if any."""
    path = path.expanduser().absolute()
    for folder in (path, *path.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def _short(value, limit: int = 60) -> str:
    """A setting for a one-line message: a language's whole table is cut."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + " ...}"


def write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_bytes(text.encode() if isinstance(text, str) else text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def create_exclusive(path: Path, text: str) -> bool:
    """Write a whole file where none is, atomically; False if one is there
    already (another process was first). The file appears complete or not
    at all: it is written aside and hard-linked into place, which fails
    rather than replaces; where the filesystem has no hard links, it is
    created exclusively and written in place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_text(text)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            try:
                with open(path, "x") as f:
                    f.write(text)
            except FileExistsError:
                return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


class NoSpace(UserError):
    """The filesystem of OUT (or of the renderer's scratch) is full: the run stops at once."""


def no_space(out: Path, detail: str = "") -> NoSpace:
    return NoSpace(f"no space left on {out}" + (f" ({detail})" if detail else "")
                   + "; nothing half-written was published: free space and rerun the same command to resume")


class writing:
    """`with writing(out):` turns a full disk (ENOSPC, EDQUOT) into NoSpace
    and other OS errors on OUT into a one-line UserError."""

    def __init__(self, out: Path):
        self.out = out

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if isinstance(exc, OSError) and exc.errno in FULL:
            raise no_space(self.out, exc.filename or "") from None
        if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise UserError(f"cannot write to {self.out}: {exc.strerror} ({exc.filename})") from None
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


def partial_episodes(out: Path) -> list[Path]:
    """Episode folders in staging (only while a writer works, or after a kill)."""
    return sorted(p for p in (out / STAGING).glob("*/*/*/*") if not p.relative_to(out / STAGING).parts[1].startswith("."))


def set_aside(out: Path, split: str, task: str, index: int) -> Path | None:
    """Move a damaged episode folder out of the split, to OUT/.damaged/, so it
    can be rendered again; nothing in it is deleted. Call with the claim held."""
    folder = episode_dir(out, split, task, index)
    if not folder.exists():
        return None
    aside = out / DAMAGED / split / task / f"{index}-{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(2)}"
    aside.parent.mkdir(parents=True, exist_ok=True)
    os.rename(folder, aside)
    return aside


def publish(tmp: Path, out: Path, split: str, task: str, index: int) -> bool:
    """Rename a finished staging folder into place; False if the place was
    taken. The writer holds the episode's claim and has set any damaged
    folder aside, so only a writer whose claim was taken over (silent for
    STALE_AFTER, yet alive) can have been first: its episode is the same."""
    final = episode_dir(out, split, task, index)
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, final)
        return True
    except OSError as err:
        if err.errno in (errno.ENOTEMPTY, errno.EEXIST) and is_complete(out, split, task, index):
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        raise
