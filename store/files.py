"""Writing files of an output folder: whole or not at all, and a full disk or a
read-only mount said in one line (NoSpace, UserError), never a traceback."""
from __future__ import annotations

import errno
import json
import os
import secrets
import tempfile
from pathlib import Path

from .errors import UserError
from .nfs import replace

FULL = (errno.ENOSPC, errno.EDQUOT)


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def write_atomic(path: Path, text: str | bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    data = text.encode() if isinstance(text, str) else text
    try:
        tmp.write_bytes(data)
        replace(tmp, path, data)  # verified where NFS leaves the outcome uncertain
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
