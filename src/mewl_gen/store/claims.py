"""Item claims: one writer at a time works on an item.

A claim is OUT/.mewl/claims/<split>/<task>/<index>.json, holding its writer's
identity and created exclusively, by the rules that hold on NFS too
(store.nfs); the writer's heartbeat touches it, and it is removed when the
item is published or given up. A claim whose writer is dead
(writers.is_alive) is taken over: the taker first creates a takeover
token named after the dead claim's content, exclusively, so of several
writers that judge the same claim dead exactly one replaces (or removes) it;
the others find the claim changed and back off.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from mewl_gen.tasks import catalog

from . import door
from .files import folder, remove_tree
from .layout import BOOKKEEPING, DAMAGED, STAGING
from .nfs import aside, create, create_exclusive, read_fresh, replace
from .writers import AHEAD, Writer, ahead, clock, heard_lately, holder, is_alive, parse_who, staging_folders, stale_at

CLAIMS = "claims"
ATTEMPTS = 5  # claim, meet a live holder or take over a dead one: more only under heavy contention

T = TypeVar("T")


def claim_path(out: Path, split: str, task: str, index: int) -> Path:
    return out / BOOKKEEPING / CLAIMS / split / task / f"{index}.json"


def claim(writer: Writer, split: str, task: str, index: int) -> str | None:
    """Claim an item for `writer`: None when it is now this writer's, else
    the live writer that holds it and when it would be taken over (writers.holder)."""
    path = claim_path(writer.out, split, task, index)
    mine = json.dumps(writer.who) + "\n"
    # The claims' folder held once: made (never OUT itself, nor in what an unmounted OUT leaves) and written
    # through its descriptor, so a folder swapped for a link meanwhile is never entered.
    with folder(writer.out, path.parent, make=True, anchor=writer.root) as fd:
        for _ in range(ATTEMPTS):
            if create_exclusive(fd, path, mine):
                writer.keep_alive(path)
                return None
            seen = read_fresh(writer.out, path, fd)
            if seen is None:
                continue  # released meanwhile: try again
            text, heard = seen
            if is_alive(parse_who(text), heard):
                return holder(parse_who(text), heard)
            if _take_over(writer, fd, path, text, mine):
                return None
    return "several writers at once: tried again later"


def _take_over(writer: Writer | None, fd: int, path: Path, dead: str, mine: str | None) -> bool:
    """Replace the dead claim `dead` at `path` (in the held folder `fd`) with `mine` (None: remove it);
    False if another writer got there first."""
    token = path.with_name(f"{path.stem}.takeover-{hashlib.sha256(dead.encode()).hexdigest()[:16]}")
    if not create_exclusive(fd, token, ""):
        try:  # a taker killed in the instant between token and replace leaves it: it ages out
            if not heard_lately(os.stat(token.name, dir_fd=fd, follow_symlinks=False).st_mtime):
                os.unlink(token.name, dir_fd=fd)
        except FileNotFoundError:
            pass
        return False
    try:
        seen = read_fresh(path.parent, path, fd)
        if seen is None or seen[0] != dead:
            return False  # released or taken over before our token: not the dead writer's claim any more
        if writer is None or mine is None:
            _unlink(fd, path.name)
            return True
        tmp = aside(path)  # one writer's threads take over claims at once: a name of each's own
        try:
            create(fd, tmp.name, [mine.encode()])
            replace(fd, tmp, fd, path, mine.encode())  # never absent meanwhile: no third writer can create it
        finally:
            _unlink(fd, tmp.name)
        writer.keep_alive(path)
        return True
    finally:
        _unlink(fd, token.name)


def _unlink(fd: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=fd)


def release(writer: Writer, split: str, task: str, index: int) -> None:
    path = claim_path(writer.out, split, task, index)
    writer.let_go(path)
    with contextlib.suppress(FileNotFoundError, NotADirectoryError), folder(writer.out, path.parent) as fd:
        seen = read_fresh(writer.out, path, fd)
        if seen is not None and parse_who(seen[0]).get("writer") == writer.id:
            _unlink(fd, path.name)


def while_claimed(writer: Writer, split: str, task: str, index: int,
                  work: Callable[[Callable[[], Path]], T]) -> T | str:
    """`work` run with the item claimed for `writer`, released after however it ends; or, where a live writer
    holds the item, that writer (as claim says) and nothing run. `work` is handed a maker of fresh staging
    folders for the item (Writer.staging), not the writer: its claims and heartbeat stay the store's."""
    held = claim(writer, split, task, index)
    if held is not None:
        return held
    try:
        return work(functools.partial(writer.staging, split, task, index))
    finally:
        release(writer, split, task, index)


@dataclass(frozen=True)
class Claim:
    split: str
    task: str
    index: int
    writer: str
    alive: bool
    heard: float  # its last heartbeat (mtime)
    until: float | None  # when it counts as dead if it stays silent; None: when its process ends
    text: str  # the claim's content, as read


def all_claims(out: Path) -> list[Claim]:
    """Every item claim under OUT, with whether its writer lives."""
    found = []
    for path in _claim_files(out):
        seen = read_fresh(out, path)
        if seen is None or not path.stem.isdigit():
            continue
        who = parse_who(seen[0])
        found.append(Claim(path.parent.parent.name, path.parent.name, int(path.stem), str(who.get("writer", "?")),
                           is_alive(who, seen[1]), seen[1], stale_at(who, seen[1]), seen[0]))
    return found


def _claim_files(out: Path) -> list[Path]:
    """Every claim file, walked through the store's door: a link among the folders is one line."""
    top = out / BOOKKEEPING / CLAIMS
    door.guard(out, top)
    found = []
    for split, k in door.entries(out, top):
        if k == "link":
            raise door.link_refused(top / split)
        for task, kt in door.entries(out, top / split) if k == "folder" else []:
            if kt == "link":
                raise door.link_refused(top / split / task)
            found += [top / split / task / name for name, kf in door.entries(out, top / split / task)
                      if kt == "folder" and kf == "file" and name.endswith(".json")]
    return found


def held(out: Path) -> frozenset[tuple[str, str, int]]:
    """(split, task, index) of every item a live writer claims now: a claim
    whose writer is dead (a node that stopped heart-beating) is not, and
    `mewl status` and `mewl slurm` count its item as missing."""
    return frozenset((c.split, c.task, c.index) for c in all_claims(out) if c.alive)


def clean_stale(out: Path) -> list[Path]:
    """Remove dead writers' staging folders and claims (any run does, with or
    without work to do); returns the folders removed."""
    folders = [staged for staged, alive, _ in staging_folders(out) if not alive]
    for staged in folders:
        remove_tree(out, staged)
    for c in all_claims(out):
        if not c.alive:
            path = claim_path(out, c.split, c.task, c.index)
            with contextlib.suppress(FileNotFoundError, NotADirectoryError), folder(out, path.parent) as fd:
                _take_over(None, fd, path, c.text, None)
    return folders


def busy(out: Path, split: str, tasks: list[str], n: int) -> str | None:
    """For `mewl slurm` when nothing is missing: a line on the items below N
    that live writers hold, and when those judged by their heartbeat count as
    missing if they stay silent; None if no live writer holds any."""
    live = [c for c in all_claims(out) if c.alive and c.split == split and c.task in tasks and c.index < n]
    if not live:
        return None
    silent = [c for c in live if c.until is not None]
    return (f"nothing to submit now: {len(live)} {catalog.noun(tasks)}(s) of {split} are claimed by live writers"
            + (f"; {len(silent)} by writers on other hosts or in other PID namespaces, {_silent(silent)}: rerun then"
               if silent else ""))


def _silent(found: list[Claim]) -> str:
    return (f"last heard {clock(max(c.heard for c in found))}; if they stay silent, their items count as missing "
            f"by {clock(max(c.until for c in found))}")


def ahead_of_clock(found: list[Claim], folders: list[tuple[Path, bool, float | None]]) -> str | None:
    """A line on the claims and staging folders heard of in the future (writers.ahead): dead writers'."""
    claimed = [c.heard for c in found if ahead(c.heard)]
    staged = [heard for _, _, heard in folders if heard is not None and ahead(heard)]
    if not claimed and not staged:
        return None
    return (f"{len(claimed)} claim(s) and {len(staged)} staging folder(s) were last heard of in the future, as late "
            f"as {clock(max(claimed + staged))} (more than {AHEAD:g} s ahead of this host's clock): a clock is "
            "wrong, or a hand set them; they keep nothing alive and are taken over as dead writers'")


def future_line(out: Path) -> str | None:
    """ahead_of_clock of OUT's claims and staging folders, for a run to say before it takes them over."""
    return ahead_of_clock(all_claims(out), staging_folders(out))


def leftovers(out: Path) -> list[str]:
    """Lines about what dead writers left, writers that must heart-beat to
    keep their claims, and what was set aside."""
    folders = staging_folders(out)
    stale = [f for f, alive, _ in folders if not alive]
    live = [f for f, alive, _ in folders if alive]
    found = all_claims(out)
    dead_claims = [c for c in found if not c.alive]
    silent = [c for c in found if c.alive and c.until is not None]
    door.guard(out, out / DAMAGED)
    aside = [name for split, k in door.entries(out, out / DAMAGED) if k == "folder"
             for task, kt in door.entries(out, out / DAMAGED / split) if kt == "folder"
             for name, _ in door.entries(out, out / DAMAGED / split / task)]
    lines = [line] if (line := ahead_of_clock(found, folders)) else []
    if live:
        lines.append(f"{len(live)} writer(s) at work now: " + ", ".join(f.name for f in live))
    if silent:
        lines.append(f"{len(silent)} claim(s) of writers on other hosts or in other PID namespaces, judged by their "
                     f"heartbeat: {_silent(silent)}")
    if stale or dead_claims:
        lines.append(f"{len(stale)} staging folder(s) and {len(dead_claims)} claim(s) of dead writers "
                     f"in {STAGING}/ and {BOOKKEEPING}/claims/: the next run removes them or takes them over")
    if aside:
        lines.append(f"{len(aside)} damaged episode folder(s) set aside in {DAMAGED}/ (kept for you to look at)")
    return lines
