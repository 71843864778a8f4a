"""A new folder DEST the user names (an export's, gallery's, study's DIR, a score's folder), made whole: built in
a private folder beside it and renamed into place, so that a command killed half-way leaves no DEST and an
existing one is never overwritten.

The folder beside DEST is made by this process, exclusively (mkdir never follows a link and fails on any name
already there), under a name no one can guess, readable by this user alone while it is built; it is then
held by a descriptor for its whole life. What is written in it is written under `root`, the held folder's
own name in /proc/self/fd: a path that names the folder this process holds, whatever becomes of its name
beside DEST. Whoever may rename entries in DEST's parent meanwhile can move or replace the name, never send
a byte elsewhere: our own writes reach each folder below the root through the door, one component at a time
without following a link, and the libraries' writes by path (Arrow's, WebDataset's) start from the held
folder, below which no one else may write. At the end the folder takes the mode a plain mkdir gives (DEST
can be served) and is renamed to DEST from the held parent, if its name there is still this folder's.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from pathlib import Path

from mewl_gen.errors import NOT_EMPTY, UserError
from mewl_gen.store import door
from mewl_gen.store.files import storage_fault

PROC_FD = Path("/proc/self/fd")


class NewFolder:
    """`with NewFolder(dest, what) as root:` the files written under `root` are DEST's once the block ends
    without an exception; with one, nothing is left. `what` the command does, for its messages ("export" into
    a new folder). A storage fault (full disk, failing drive) inside the block is its one line, naming DEST's
    parent (store.files.storage_fault)."""

    def __init__(self, dest: Path, what: str = "export"):
        self.dest, self.what = Path(dest), what
        check_new(self.dest, what)
        self.name = f".{self.dest.name}.partial-{secrets.token_hex(8)}"
        self.parent = os.open(self.dest.parent, door.O_DIR & ~os.O_NOFOLLOW)  # DEST's parent is the user's to choose
        try:
            os.mkdir(self.name, 0o700, dir_fd=self.parent)
            self.fd = os.open(self.name, door.O_DIR, dir_fd=self.parent)
        except BaseException:
            os.close(self.parent)
            raise
        held = PROC_FD / str(self.fd)
        # Linux names every held folder under /proc/self/fd; elsewhere the folder's name beside DEST is the root.
        self.root = held if held.is_dir() else self.dest.parent / self.name

    def __enter__(self) -> Path:
        return self.root

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc is None:
                try:
                    self._publish()
                except BaseException:
                    self._discard()
                    raise
            else:
                self._discard()
        except OSError as err:
            self._fault(err)
            raise
        finally:
            os.close(self.fd)
            os.close(self.parent)
        if isinstance(exc, OSError):
            self._fault(exc)
        return False

    def _fault(self, err: OSError) -> None:
        """A storage fault's one line, naming the file as the user knows it (beside DEST, not /proc)."""
        if err.filename and str(err.filename).startswith(str(self.root)):
            err.filename = str(self.dest.parent / self.name) + str(err.filename)[len(str(self.root)):]
        if (fault := storage_fault(self.dest.parent, err)) is not None:
            raise fault from None

    def _ours(self) -> bool:
        """Whether the name beside DEST still names the folder this process holds."""
        try:
            there = os.stat(self.name, dir_fd=self.parent, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(self.fd)
        return (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino)

    def _publish(self) -> None:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(self.fd, 0o777 & ~mask)
        if not self._ours():
            raise UserError(f"{self.dest.parent / self.name} was moved or replaced while this command wrote it; "
                            f"{self.dest} was not made: {self.what} again")
        try:
            # rename replaces an empty folder at DEST (check_new took one as new) and refuses anything else
            os.rename(self.name, self.dest.name, src_dir_fd=self.parent, dst_dir_fd=self.parent)
        except OSError as err:
            if err.errno in NOT_EMPTY or isinstance(err, (NotADirectoryError, IsADirectoryError)):
                raise UserError(f"{self.dest} appeared while this command ran; {self.what} into a new folder "
                                f"(nothing is overwritten)") from None
            raise

    def _discard(self) -> None:
        """Empty the held folder, then remove its name beside DEST if that is still this folder; as far as the
        disk allows (a failing one leaves what it leaves)."""
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.fd):
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.name, dir_fd=self.fd)
                    else:
                        os.unlink(entry.name, dir_fd=self.fd)
            if self._ours():
                os.rmdir(self.name, dir_fd=self.parent)


def check_new(dest: Path, what: str) -> None:
    """One line unless DEST is new (an empty folder is taken as new) and has a folder to be made in."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UserError(f"{dest} exists and is not an empty folder; {what} into a new folder (nothing is overwritten)")
    if not dest.parent.is_dir():
        raise UserError(f"cannot create {dest}: {dest.parent} is not a folder")
