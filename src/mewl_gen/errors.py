"""What a user's mistake is, and what the operating system's error numbers mean here: the lowest
layer, importing nothing of the project, so that every room raises and reads them alike.

A user's mistake raises UserError (or a subclass kept beside what it means: a spec that cannot be
read, an unknown task, a damaged item, ...); the command turns any of them into one line and exit
status 2 (cli.main). Anything else is a bug, and a traceback."""
from __future__ import annotations

import contextlib
import errno
import os


class UserError(Exception):
    """A mistake of the user's: reported as one line, exit code 2, no traceback."""


@contextlib.contextmanager
def naming(path):
    """An OSError met while writing `path` names it (a failed write() names no file), so that the
    fault can be told by where it struck (store.files.storage_fault)."""
    try:
        yield
    except OSError as err:
        if err.filename is None and err.errno is not None:
            raise OSError(err.errno, err.strerror, str(path)) from None
        raise


# -- error numbers ----------------------------------------------------------------------------------
FULL = (errno.ENOSPC, errno.EDQUOT)  # no room left: a disk or a quota
DENIED = (errno.EROFS, errno.EACCES, errno.EPERM)  # a folder that may not be written
GONE = (errno.ENOENT, errno.ENOTDIR, errno.ESTALE)  # a folder removed, or a file server's handle gone stale
FAILING = (errno.EIO,)  # a disk or file server that fails to read or write
# What a failing disk or file server says, as opposed to a bug: these stop a run, never retried.
STORAGE = (*FULL, *DENIED, *FAILING, *GONE)
# NFS (store.nfs): a file system without hard links, and a rename whose outcome must be read back.
NO_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK)
UNCERTAIN = (errno.ESTALE, errno.EIO, errno.ETIMEDOUT, errno.ENOENT)
NOT_EMPTY = (errno.ENOTEMPTY, errno.EEXIST)  # a rename of a folder over one that is there
LINK_MET = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # a walk with O_NOFOLLOW | O_DIRECTORY met a link or a file
OUTPUT_FAULTS = (*FULL, *FAILING)  # a write to stdout or stderr that failed for the disk, not for a bug
NO_SPACE_TEXT = os.strerror(errno.ENOSPC)  # "No space left on device", as Python and Blender report it


def is_link(err: OSError) -> bool:
    """An open with O_NOFOLLOW that met a symbolic link."""
    return err.errno == errno.ELOOP


def full_disk(filename: str) -> OSError:
    """The error a full filesystem raises, for a fault found otherwise (a short file, a log's words)."""
    return OSError(errno.ENOSPC, NO_SPACE_TEXT, filename)


def folder_gone(folder: str, why: str) -> FileNotFoundError:
    """The error a write into a removed folder raises, for a fault found otherwise."""
    return FileNotFoundError(errno.ENOENT, why, folder)


# -- storage faults: one vocabulary --------------------------------------------------------------
# An OSError whose number is in STORAGE is the disk's, not a bug: where the run writes OUT it becomes
# NoSpace, Vanished or a UserError naming OUT (store.files.storage_fault); met in the renderer's
# scratch folder it travels as ScratchFault to the item's job, which names that folder's disk.

class NoSpace(UserError):
    """A filesystem the run writes (OUT's, or the renderer's scratch) is full: the run stops at once."""


class Vanished(UserError):
    """OUT, its manifest or a folder of it was removed (or unmounted) while a run wrote it: the run stops at once."""


class ScratchFault(UserError):
    """A storage fault met in the renderer's scratch folder: never the renderer's fault, never retried.
    `error` is the OSError as it was met; the item's job says it in one line naming the scratch's disk."""

    def __init__(self, error: OSError):
        super().__init__(f"{error.strerror}: {error.filename}" if error.filename else str(error.strerror))
        self.error = error

    def __reduce__(self):  # raised in a worker process, it is unpickled in the parent
        return type(self), (self.error,)


SHOWN = 200  # characters of untrusted text a message quotes


def terminal(text: object) -> str:
    """Untrusted text as one line a terminal shows as it is: every character that is not printable (C0,
    line breaks included, DEL, C1, the line and paragraph separators, bidirectional overrides) as its
    escape (`\\x1b`), so that no escape sequence reaches a terminal and no line is forged."""
    return "".join(c if c.isprintable() and c not in "\u2028\u2029" else c.encode("unicode_escape").decode("ascii")
                   for c in str(text))


def shown(text: object, limit: int = SHOWN) -> str:
    """Untrusted text (a file's content or name, a model's answer) as a one-line message may quote it:
    escaped for the terminal and cut to `limit` characters."""
    text = str(text)
    cut = text[: limit * 4]
    safe = terminal(cut)
    if len(safe) > limit or len(cut) < len(text):
        return safe[:limit] + f"... ({len(text)} characters)"
    return safe
