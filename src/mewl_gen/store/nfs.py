"""Files that writers on several hosts share: created, replaced and read by
the rules open(2), link(2) and rename(2) give for NFS (docs/nfs.md).

- Exclusive creation is link(2) of a unique file, decided by the unique
  file's link count (2: ours), whatever link() answered: O_EXCL is atomic
  only on NFSv3 and later, and a retransmitted LINK that succeeded answers
  EEXIST.
- A rename whose result is uncertain (ESTALE, EIO, a timeout, or ENOENT from
  a retransmission whose first try succeeded) is verified by reading back
  what is there.
- A heartbeat is read as the mtime of a file opened first: close-to-open
  consistency revalidates the attributes at open(), where a bare stat() may
  answer from a cache up to acregmax seconds old.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Iterable

from mewl_gen.errors import NO_LINKS, UNCERTAIN, is_link

from . import door

OCTAL = re.compile(r"\\([0-7]{3})")
NFS_CACHE_DEFAULT = 60.0  # seconds: nfs(5)'s default acregmax and acdirmax


def aside(path: Path) -> Path:
    """A hidden name beside `path`, this process's alone, to write a file before it is put in place."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def create_exclusive(fd: int, path: Path, text: str) -> bool:
    """Write a whole file where none is, in the held descriptor `fd` of its folder (door.open_dir); False if
    one is there already (another process was first). It appears complete or not at all: written aside and
    hard-linked into place, which never replaces. Where the file system has no hard links, it is created
    with O_EXCL and written in place."""
    tmp = aside(path).name
    try:
        create(fd, tmp, [text.encode()])
        try:
            os.link(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
        except FileExistsError:
            pass  # the link count decides: a retransmitted link of ours also says EEXIST
        except OSError as err:
            if err.errno in NO_LINKS:
                return _create_in_place(fd, path.name, text)
            if _links(fd, tmp) != 2:
                raise
        return _links(fd, tmp) == 2
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=fd)


def _links(fd: int, name: str) -> int:
    return os.stat(name, dir_fd=fd, follow_symlinks=False).st_nlink


def _create_in_place(fd: int, name: str, text: str) -> bool:
    try:
        create(fd, name, [text.encode()])
    except FileExistsError:
        return False
    return True


O_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


def create(fd: int, name: str, chunks: Iterable[bytes], sync: bool = False) -> None:
    """A new file `name` in the held folder `fd` (never one that is there, nor through a link), its chunks
    written as they come; fsynced with `sync`."""
    f = os.open(name, O_NEW, 0o666, dir_fd=fd)
    with os.fdopen(f, "wb") as out:
        for data in chunks:
            out.write(data)
        out.flush()
        if sync:
            os.fsync(out.fileno())


def replace(src_fd: int, tmp: Path, dst_fd: int, path: Path, data: bytes | None, proof: Path | None = None,
            sha256: str | None = None) -> None:
    """Rename `tmp`, a name in the held folder `src_fd`, over `path`'s name in the held folder `dst_fd`. An
    error that leaves the outcome uncertain counts as success when `proof` (`path` itself, or for a folder
    a file in it) now holds `data`, which the caller wrote and no one else would (or, for data too large
    to keep, bytes of that `sha256`)."""
    try:
        os.replace(tmp.name, path.name, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    except OSError as err:
        if err.errno not in UNCERTAIN:
            raise
        found = _read_back(dst_fd, path, proof or path)
        if found is None or (found != data if sha256 is None else hashlib.sha256(found).hexdigest() != sha256):
            raise


def _read_back(fd: int, path: Path, proof: Path) -> bytes | None:
    """What `proof` (`path` in the held folder `fd`, or a file in the folder `path`) holds, read as every
    file is (door: no link followed, a regular file only)."""
    try:
        if proof == path:
            return door.read_bytes(path.parent, path, "index", dir_fd=fd)
        sub = os.open(path.name, door.O_DIR, dir_fd=fd)
        try:
            return door.read_bytes(path, proof, "index", dir_fd=sub)
        finally:
            os.close(sub)
    except (OSError, door.Refused):
        return None


FRESH_LIMIT = 64 << 10  # a claim or writer file: one JSON object of a few fields


def read_fresh(root: Path, path: Path, dir_fd: int | None = None) -> tuple[str, float] | None:
    """(text, mtime) of a file under `root` (reached through the door; `dir_fd`: its folder held), the mtime
    read after open() (see above); None if it is gone. Undecodable bytes are kept as replacement characters."""
    try:
        folder = door.open_dir(root, path.parent) if dir_fd is None else dir_fd
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fd = os.open(path.name, door.O_READ, dir_fd=folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        if is_link(err):  # a link in a claim's place: no writer's, judged by nothing it names
            return "", 0.0
        raise
    finally:
        if dir_fd is None:
            os.close(folder)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "", 0.0  # a FIFO or a device in a claim's place: nobody's, never waited on
        data = f.read(min(st.st_size, FRESH_LIMIT))
    return data.decode(errors="replace"), st.st_mtime


def attribute_cache(path: Path) -> float | None:
    """The longest time (seconds) another NFS client may see stale attributes
    (an old mtime) or a stale listing of `path`'s file system: max(acregmax,
    acdirmax), 0 with noac; None when it is not NFS."""
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return None
    return mount_cache(os.path.realpath(_existing(path)), mountinfo)


def mount_cache(target: str, mountinfo: str) -> float | None:
    """attribute_cache of the absolute, resolved path `target`, from the text of /proc/self/mountinfo."""
    best: tuple[int, str, list[str]] | None = None
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        sep = fields.index("-")
        point = OCTAL.sub(lambda m: chr(int(m.group(1), 8)), fields[4])  # a space is written \040
        if (target == point or target.startswith(point.rstrip("/") + "/")) and (best is None or len(point) >= best[0]):
            best = (len(point), fields[sep + 1], fields[sep + 3].split(",") if len(fields) > sep + 3 else [])
    if best is None or not best[1].startswith("nfs"):
        return None
    options = dict(o.split("=", 1) if "=" in o else (o, "") for o in best[2])
    if "noac" in options:
        return 0.0
    return max(float(options.get(k, NFS_CACHE_DEFAULT)) for k in ("acregmax", "acdirmax"))


def _existing(path: Path) -> Path:
    """`path`, or its nearest folder that exists (OUT before it is made)."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path
