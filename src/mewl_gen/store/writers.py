"""Writers of one output folder: who they are, whether they still live, and
their private staging folders.

Several processes may write one OUT at once: two local `mewl render`, a local
run beside SLURM array tasks on other hosts, a run in a container, `mewl
sample`. Each is a Writer with an id (host, pid, random) and a folder
OUT/.staging/<id>/ that no other writer ever touches while it lives. Every
writer keeps a heartbeat: the mtime of its files, touched every HEARTBEAT
seconds. A pid means something only where it was taken: a writer on the same
host, in the same boot and the same PID namespace is dead when its pid is gone
(or now belongs to a process started later); any other (another node, a
container with its own PID namespace where it is pid 1, an earlier boot) is
dead when its heartbeat is older than STALE_AFTER, or lies further in the
future than clocks that disagree explain (AHEAD).
"""
from __future__ import annotations

import functools
import json
import os
import secrets
import socket
import threading
import time
from pathlib import Path

from mewl_gen.errors import UserError

from . import door, files
from .files import make_folder, remove_tree
from .layout import STAGING
from .nfs import NFS_CACHE_DEFAULT, attribute_cache, create, read_fresh, replace

WRITER_FILE = "writer.json"
HEARTBEAT = 30.0  # seconds between touches of a live writer's files
# A writer judged by its heartbeat and unheard of this long is dead: 10 missed heartbeats. It must
# exceed a heartbeat plus NFS's attribute cache (another client may see an mtime that old, docs/nfs.md)
# and leaves the rest for clocks of hosts and file server that disagree.
STALE_AFTER = 300.0
# How far ahead of this host's clock a heartbeat may lie and still be believed: the room STALE_AFTER leaves
# for disagreeing clocks, the same either way. One further ahead was dated by a wrong clock or by hand, and
# keeps nothing alive: believed, a claim dated a year ahead would hold its item for a year.
AHEAD = STALE_AFTER - HEARTBEAT - NFS_CACHE_DEFAULT


def process_start(pid: int) -> str | None:
    """When a process started (clock ticks since boot, Linux): tells a live
    writer from a new process that reuses its pid. None where unknown."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


@functools.cache
def _where() -> dict:
    """Where this process's pid means something: host, boot and PID namespace (None where unknown)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = None
    try:
        pidns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pidns = None
    return {"host": socket.gethostname(), "boot": boot, "pidns": pidns}


def _slurm_job() -> dict:
    """The SLURM job this process runs in, for the lines that name a writer."""
    env = os.environ
    if env.get("SLURM_ARRAY_JOB_ID") and env.get("SLURM_ARRAY_TASK_ID"):
        return {"slurm_job": f"{env['SLURM_ARRAY_JOB_ID']}_{env['SLURM_ARRAY_TASK_ID']}"}
    return {"slurm_job": env["SLURM_JOB_ID"]} if env.get("SLURM_JOB_ID") else {}


def identity() -> dict:
    pid, where = os.getpid(), _where()
    return {"writer": f"{where['host']}-{pid}-{secrets.token_hex(4)}", **where, "pid": pid,
            "pid_start": process_start(pid), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **_slurm_job()}


def by_pid(who: dict) -> bool:
    """Whether the writer's pid names a process this one can see: same host,
    boot and PID namespace, all known. Else only its heartbeat tells."""
    here = _where()
    return all(here[k] is not None and who.get(k) == here[k] for k in ("host", "boot", "pidns"))


def ahead(heard: float) -> bool:
    """Whether a heartbeat lies further in the future than disagreeing clocks explain."""
    return heard - time.time() > AHEAD


def heard_lately(heard: float) -> bool:
    """Whether a heartbeat at `heard` (an mtime) keeps its writer alive: within STALE_AFTER, and not ahead."""
    return -AHEAD <= time.time() - heard < STALE_AFTER


def is_alive(who: dict, heard: float) -> bool:
    """Whether the writer described by `who` (a claim's or writer file's
    content), last heard of at mtime `heard`, may still be working."""
    if by_pid(who):
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
    return heard_lately(heard)


def stale_at(who: dict, heard: float) -> float | None:
    """When the writer counts as dead if it stays silent; None when its process decides."""
    return None if by_pid(who) else heard + STALE_AFTER


def clock(t: float) -> str:
    """A time as a line shows it: its date too where it is not today."""
    today = time.localtime()[:3] == time.localtime(t)[:3]
    return time.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S", time.localtime(t))


def holder(who: dict, heard: float) -> str:
    """A live writer for a line that says what it waits for, and until when."""
    name = str(who.get("writer", "?")) + (f", SLURM job {who['slurm_job']}" if who.get("slurm_job") else "")
    until = stale_at(who, heard)
    if until is None:
        return f"{name}: taken over when its process {who.get('pid')} ends"
    return f"{name}, last heard {clock(heard)}: taken over at {clock(until)} if it stays silent"


def parse_who(text: str) -> dict:
    """A writer or claim file's writer; a broken one (its writer killed while
    writing it, where hard links are missing) is nobody's, judged by its age alone."""
    try:
        who = json.loads(text)
    except ValueError:
        return {}
    return who if isinstance(who, dict) else {}


def read_who(out: Path, path: Path) -> tuple[dict, float] | None:
    """(writer, mtime) of a writer or claim file under OUT; None if it is gone."""
    seen = read_fresh(out, path)
    return None if seen is None else (parse_who(seen[0]), seen[1])


def nfs_warning(out: Path) -> str | None:
    """A line when OUT's NFS mount caches attributes so long that a live
    writer's heartbeat could look older than STALE_AFTER to another host."""
    cache = attribute_cache(out)
    if cache is None or HEARTBEAT + cache < STALE_AFTER:
        return None
    return (f"{out} is on NFS with attributes cached up to {cache:g} s (acregmax/acdirmax): another host may see "
            f"a live writer's heartbeat older than the {STALE_AFTER:g} s after which it is taken for dead; "
            f"mount it with acregmax and acdirmax under {STALE_AFTER - HEARTBEAT:g}")


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
        mine = (json.dumps(self.who) + "\n").encode()
        self.out.mkdir(parents=True, exist_ok=True)  # OUT itself is the user's to name; a render starts before it claims it
        with files.folder(self.out, self.root.parent, make=True) as fd:  # every name below made in a held folder
            os.mkdir(building.name, dir_fd=fd)
            sub = os.open(building.name, door.O_DIR, dir_fd=fd)
            try:
                create(sub, WRITER_FILE, [mine])
            finally:
                os.close(sub)
            replace(fd, building, fd, self.root, mine, proof=self.root / WRITER_FILE)
        self.keep_alive(self.root / WRITER_FILE)
        if self._beat is not None:
            self._beat.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._beat is not None and self._beat.is_alive():
            self._beat.join()
        remove_tree(self.out, self.root)

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
                    with files.folder(self.out, path.parent) as fd:
                        os.utime(path.name, dir_fd=fd, follow_symlinks=False)
                except (OSError, UserError):
                    pass  # released meanwhile, or a link in its folder's place: nothing outside is touched

    def staging(self, split: str, task: str, index: int) -> Path:
        """A fresh folder for one episode, inside this writer's own staging
        folder: same filesystem as OUT, so publishing is an atomic rename."""
        folder = self.root / split / task / str(index)
        remove_tree(self.out, folder)  # this writer's own earlier attempt
        make_folder(self.out, folder, anchor=self.root)  # never OUT itself, nor in what an unmounted OUT leaves
        return folder


def staging_folders(out: Path) -> list[tuple[Path, bool, float | None]]:
    """Every writer's staging folder under OUT, with whether its writer lives and when it was last heard of
    (None: never, a leftover of an older version of this tool)."""
    found = []
    door.guard(out, out / STAGING)  # a link in its place: one line, nothing under it removed
    for folder in [out / STAGING / name for name, kind in door.entries(out, out / STAGING) if kind == "folder"]:
        seen = read_who(out, folder / WRITER_FILE)
        if folder.name.startswith("."):  # a writer starting now, or killed while starting
            heard = _mtime(folder)
            found.append((folder, heard is not None and heard_lately(heard), heard))
        elif seen is None:
            found.append((folder, False, None))
        else:
            found.append((folder, is_alive(*seen), seen[1]))
    return found


def _mtime(folder: Path) -> float | None:
    try:
        return folder.stat().st_mtime
    except OSError:
        return None
