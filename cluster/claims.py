"""Item claims: one writer at a time works on an item.

A claim is OUT/.mewl/claims/<split>/<task>/<index>.json, created with O_EXCL
(atomic on local filesystems and NFS) and holding its writer's identity; the
writer's heartbeat touches it, and it is removed when the episode is
published or given up. A claim whose writer is dead (cluster.writers.is_alive)
is taken over: the taker first creates a takeover token named after the dead
claim's content, with O_EXCL, so of several writers that judge the same claim
dead exactly one replaces it; the others find the claim changed and back off.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from store.files import make_folder
from store.layout import BOOKKEEPING, DAMAGED, STAGING

from .writers import STALE_AFTER, Writer, is_alive, staging_folders

CLAIMS = "claims"
ATTEMPTS = 5  # claim, meet a live holder or take over a dead one: more only under heavy contention


def claim_path(out: Path, split: str, task: str, index: int) -> Path:
    return out / BOOKKEEPING / CLAIMS / split / task / f"{index}.json"


def _read(path: Path) -> tuple[str, float] | None:
    try:
        heard = path.stat().st_mtime
        return path.read_text(), heard
    except (FileNotFoundError, NotADirectoryError):
        return None


def _who(text: str) -> dict:
    """A claim's writer; an empty or broken claim (a writer killed while
    writing it) is nobody's, judged by its age alone."""
    try:
        who = json.loads(text)
    except ValueError:
        return {}
    return who if isinstance(who, dict) else {}


def claim(writer: Writer, split: str, task: str, index: int) -> dict | None:
    """Claim an episode for `writer`: None when it is now this writer's, else
    the claim of the live writer that holds it."""
    path = claim_path(writer.out, split, task, index)
    make_folder(writer.out, path.parent)  # never OUT itself, were it removed meanwhile
    mine = json.dumps(writer.who) + "\n"
    for _ in range(ATTEMPTS):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            seen = _read(path)
            if seen is None:
                continue  # released meanwhile: try again
            text, heard = seen
            if is_alive(_who(text), heard):
                return _who(text)
            if _take_over(writer, path, text, mine):
                return None
            continue
        try:
            with os.fdopen(fd, "w") as f:
                f.write(mine)
        except BaseException:  # e.g. a full disk: an empty claim would look alive for STALE_AFTER
            path.unlink(missing_ok=True)
            raise
        writer.keep_alive(path)
        return None
    return {"writer": "(contended)"}  # re-checked later like a live holder's


def _take_over(writer: Writer, path: Path, dead: str, mine: str) -> bool:
    token = path.with_name(f"{path.stem}.takeover-{hashlib.sha256(dead.encode()).hexdigest()[:16]}")
    try:
        fd = os.open(token, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        try:  # a taker killed in the instant between token and replace leaves it: it ages out
            if time.time() - token.stat().st_mtime > STALE_AFTER:
                token.unlink()
        except FileNotFoundError:
            pass
        return False
    os.close(fd)
    try:
        seen = _read(path)
        if seen is None or seen[0] != dead:
            return False  # released or taken over before our token: not the dead writer's claim any more
        tmp = writer.root / f"claim-{path.stem}-{os.getpid()}.tmp"
        tmp.write_text(mine)
        os.replace(tmp, path)  # never absent meanwhile: no third writer can create it
        writer.keep_alive(path)
        return True
    finally:
        token.unlink(missing_ok=True)


def release(writer: Writer, split: str, task: str, index: int) -> None:
    path = claim_path(writer.out, split, task, index)
    writer.let_go(path)
    seen = _read(path)
    if seen is not None and _who(seen[0]).get("writer") == writer.id:
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Claim:
    split: str
    task: str
    index: int
    writer: str
    alive: bool


def all_claims(out: Path) -> list[Claim]:
    """Every episode claim under OUT, with whether its writer lives."""
    found = []
    for path in sorted((out / BOOKKEEPING / CLAIMS).glob("*/*/*.json")):
        seen = _read(path)
        if seen is None or not path.stem.isdigit():
            continue
        who = _who(seen[0])
        found.append(Claim(path.parent.parent.name, path.parent.name, int(path.stem),
                           str(who.get("writer", "?")), is_alive(who, seen[1])))
    return found


def held(out: Path) -> frozenset[tuple[str, str, int]]:
    """(split, task, index) of every item a live writer claims now."""
    return frozenset((c.split, c.task, c.index) for c in all_claims(out) if c.alive)


def leftovers(out: Path) -> list[str]:
    """Lines about what dead writers left and what was set aside."""
    folders = staging_folders(out)
    stale = [f for f, alive in folders if not alive]
    live = [f for f, alive in folders if alive]
    dead_claims = [c for c in all_claims(out) if not c.alive]
    aside = list((out / DAMAGED).glob("*/*/*"))
    lines = []
    if live:
        lines.append(f"{len(live)} writer(s) at work now: " + ", ".join(f.name for f in live))
    if stale or dead_claims:
        lines.append(f"{len(stale)} staging folder(s) and {len(dead_claims)} episode claim(s) of dead writers "
                     f"in {STAGING}/ and {BOOKKEEPING}/claims/: the next render removes or takes them over")
    if aside:
        lines.append(f"{len(aside)} damaged episode folder(s) set aside in {DAMAGED}/ (kept for you to look at)")
    return lines
