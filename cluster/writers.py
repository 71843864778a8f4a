"""Writers of one output folder: who they are, whether they still live, and
their private staging folders.

Several processes may write one OUT at once: two local `mewl render`, a local
run beside SLURM array tasks on other hosts, `mewl sample`. Each is a Writer
with an id (host, pid, random) and a folder OUT/.staging/<id>/ that no other
writer ever touches while it lives. A writer is judged dead by other writers
on the same host when its pid is gone (or now belongs to a process started
later); from another host, when its heartbeat (the mtime of its files, touched
every HEARTBEAT seconds) is older than STALE_AFTER.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import threading
import time
from pathlib import Path

from store.files import make_folder
from store.layout import STAGING

WRITER_FILE = "writer.json"
HEARTBEAT = 30.0  # seconds between touches of a live writer's files
STALE_AFTER = 300.0  # a writer on another host unheard of this long is dead (10 missed heartbeats; tolerates clock skew)


def process_start(pid: int) -> str | None:
    """When a process started (clock ticks since boot, Linux): tells a live
    writer from a new process that reuses its pid. None where unknown."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def identity() -> dict:
    pid = os.getpid()
    host = socket.gethostname()
    return {"writer": f"{host}-{pid}-{secrets.token_hex(4)}", "host": host, "pid": pid,
            "pid_start": process_start(pid), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def is_alive(who: dict, heard: float) -> bool:
    """Whether the writer described by `who` (a claim's or writer file's
    content), last heard of at mtime `heard`, may still be working."""
    if who.get("host") == socket.gethostname():
        pid = who.get("pid")
        if not isinstance(pid, int) or pid <= 0:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # alive, someone else's
        start = process_start(pid)
        return start is None or who.get("pid_start") in (None, start)
    return time.time() - heard < STALE_AFTER


def read_who(path: Path) -> tuple[dict, float] | None:
    """(content, mtime) of a writer or claim file; None if it is gone. An
    unreadable file (a writer killed while creating it) reads as nobody."""
    try:
        heard = path.stat().st_mtime
        text = path.read_text()
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        who = json.loads(text)
    except ValueError:
        who = {}
    return (who if isinstance(who, dict) else {}), heard


class Writer:
    """This process writing OUT. `with Writer(out) as w:` creates its staging
    folder, keeps its heartbeat while open and removes the folder at the end."""

    def __init__(self, out: Path, heartbeat: bool = True):
        self.out = out
        self.who = identity()
        self.id = self.who["writer"]
        self.root = out / STAGING / self.id
        self.touched: set[Path] = set()  # files whose mtime is this writer's heartbeat
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._beat_loop, daemon=True, name="heartbeat") if heartbeat else None

    def __enter__(self) -> "Writer":
        # Built under a hidden name and renamed: a staging folder without its
        # writer file is never a live writer's.
        building = self.root.with_name(f".{self.id}")
        building.mkdir(parents=True)
        (building / WRITER_FILE).write_text(json.dumps(self.who) + "\n")
        os.rename(building, self.root)
        self.keep_alive(self.root / WRITER_FILE)
        if self._beat is not None:
            self._beat.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._beat is not None and self._beat.is_alive():
            self._beat.join()
        shutil.rmtree(self.root, ignore_errors=True)

    def keep_alive(self, path: Path) -> None:
        with self._lock:
            self.touched.add(path)

    def let_go(self, path: Path) -> None:
        with self._lock:
            self.touched.discard(path)

    def _beat_loop(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            with self._lock:
                paths = list(self.touched)
            for path in paths:
                try:
                    os.utime(path)
                except OSError:
                    pass  # released meanwhile

    def staging(self, split: str, task: str, index: int) -> Path:
        """A fresh folder for one episode, inside this writer's own staging
        folder: same filesystem as OUT, so publishing is an atomic rename."""
        folder = self.root / split / task / str(index)
        shutil.rmtree(folder, ignore_errors=True)  # this writer's own earlier attempt
        make_folder(self.out, folder)  # never OUT itself, were it removed meanwhile
        return folder

    def temp_dir(self, name: str) -> Path:
        """A folder for a Blender worker's scratch and log files: removed with
        the writer, or by the next run if this one is killed."""
        folder = self.root / ".tmp" / name  # hidden: a split's name never starts with a dot
        make_folder(self.out, folder)
        return folder


def staging_folders(out: Path) -> list[tuple[Path, bool]]:
    """Every writer's staging folder under OUT, with whether its writer lives."""
    found = []
    for folder in sorted((out / STAGING).glob("*")):
        seen = read_who(folder / WRITER_FILE)
        if folder.name.startswith("."):  # a writer starting now, or killed while starting
            found.append((folder, _young(folder)))
        elif seen is None:  # a leftover of an older version of this tool
            found.append((folder, False))
        else:
            found.append((folder, is_alive(*seen)))
    return found


def _young(folder: Path) -> bool:
    try:
        return time.time() - folder.stat().st_mtime < STALE_AFTER
    except OSError:
        return False


def clean_stale(out: Path) -> list[Path]:
    """Remove the staging folders of dead writers; returns what was removed."""
    removed = []
    for folder, alive in staging_folders(out):
        if not alive:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
