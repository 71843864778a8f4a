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

import errno
import hashlib
import os
import re
import secrets
import stat
from pathlib import Path

from mewl_gen.errors import NO_LINKS, UNCERTAIN

from . import door

OCTAL = re.compile(r"\\([0-7]{3})")
NFS_CACHE_DEFAULT = 60.0  # seconds: nfs(5)'s default acregmax and acdirmax


def aside(path: Path) -> Path:
    """A hidden name beside `path`, this process's alone, to write a file before it is put in place."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def create_exclusive(path: Path, text: str) -> bool:
    """Write a whole file where none is; False if one is there already
    (another process was first). It appears complete or not at all: written
    aside and hard-linked into place, which never replaces. Where the file
    system has no hard links, it is created with O_EXCL and written in place."""
    tmp = aside(path)
    try:
        tmp.write_text(text)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # the link count decides: a retransmitted link of ours also says EEXIST
        except OSError as err:
            if err.errno in NO_LINKS:
                return _create_in_place(path, text)
            if os.stat(tmp).st_nlink != 2:
                raise
        return os.stat(tmp).st_nlink == 2
    finally:
        tmp.unlink(missing_ok=True)


def _create_in_place(path: Path, text: str) -> bool:
    try:
        with open(path, "x") as f:
            f.write(text)
    except FileExistsError:
        return False
    return True


def replace(tmp: Path, path: Path, data: bytes | None, proof: Path | None = None, sha256: str | None = None) -> None:
    """Rename `tmp` over `path`. An error that leaves the outcome uncertain
    counts as success when `proof` (`path` itself, or for a folder a file in
    it) now holds `data`, which the caller wrote and no one else would (or, for
    data too large to keep, bytes of that `sha256`)."""
    try:
        os.replace(tmp, path)
    except OSError as err:
        if err.errno not in UNCERTAIN:
            raise
        found = _read_bytes(proof or path)
        if found is None or (found != data if sha256 is None else hashlib.sha256(found).hexdigest() != sha256):
            raise


def _read_bytes(path: Path) -> bytes | None:
    """What `path` holds, read as every file is (door: no final link followed, a regular file only)."""
    try:
        return door.read_bytes(path.parent, path, "index")
    except (OSError, door.Refused):
        return None


FRESH_LIMIT = 64 << 10  # a claim or writer file: one JSON object of a few fields


def read_fresh(path: Path) -> tuple[str, float] | None:
    """(text, mtime) of a file, the mtime read after open() (see above);
    None if it is gone. Undecodable bytes are kept as replacement characters."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:  # a link in a claim's place: no writer's, judged by nothing it names
            return "", 0.0
        raise
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
