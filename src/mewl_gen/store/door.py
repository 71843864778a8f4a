"""The one door into an output folder: every path a command reads, writes, renames, links, deletes or
walks under OUT (or under an export's or gallery's DIR) goes through here (docs/security.md).

A folder from elsewhere is data, never a key. The door resolves a path under its root one component
at a time with O_NOFOLLOW (openat), so no symlink is ever followed, inside the folder or out of it:
our writers never make one. It opens only regular files (O_NONBLOCK, then fstat: a FIFO, a device or
a socket is refused without blocking), reads no more than the limit of the file's kind, and parses
JSON under a depth limit. What it refuses is one line (Refused, a UserError) naming the file, its
text escaped (errors.shown); a reader of items turns it into the item's damage.
"""
from __future__ import annotations

import contextlib
import functools
import os
import stat
from pathlib import Path

from mewl_gen import json_depth
from mewl_gen.errors import LINK_MET, UserError, shown

KB, MB = 1 << 10, 1 << 20
# The most bytes a file of each kind may hold: far above what this tool writes, far below what swells.
LIMITS = {
    "manifest": 1 * MB,  # mewl-dataset.json: settings and the benchmarks' configs
    "plan": 64 * KB,  # .mewl/plan/<split>/<task>.json
    "note": 1 * MB,  # .mewl/failed: a reason, a traceback's last lines
    "damage": 64 * MB,  # .mewl/damaged/<split>/<task>.json: ranges of indices, every other one of 10,000,000
    "record": 4 * MB,  # an item's _checksums.json
    "json": 64 * MB,  # an item's own JSON files and its images' truth (masks included)
    "image": 256 * MB,  # a rendered PNG or a pass file
    "card": 4 * MB,  # README.md, the dataset card
    "audit": 64 * MB,  # .mewl/audit.json
    "slurm": 16 * MB,  # slurm/submissions.jsonl
    "index": 1 << 30,  # <split>/<task>.jsonl
}
TAIL = 4 * KB  # the end of a log read for its last line
O_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
O_LOCK = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
O_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(UserError):
    """A path the door will not open: a link, not a regular file, too large, too deep or mistyped."""

    def __init__(self, path: Path | str, why: str):
        self.path, self.why = Path(path), why
        super().__init__(f"{shown(str(path))}: {why}")

    def __reduce__(self):  # raised in a worker process (an audit's, an export's), it is unpickled in the parent
        return type(self), (self.path, self.why)


def parts_under(root: Path, path: Path) -> tuple[str, ...]:
    """The components of `path` below `root`; a path that is not below it (`..`, another folder) is refused."""
    top, full = os.path.normpath(root), os.path.normpath(path)
    if full == top:
        return ()
    prefix = "" if top == "." else top if top.endswith("/") else top + "/"
    parts = tuple(full[len(prefix):].split("/"))
    if not full.startswith(prefix) or (not prefix and full.startswith("/")) or ".." in parts:
        raise Refused(path, f"is not inside {shown(str(root))}")
    return parts


def _why(err: OSError, at: Path) -> Refused | None:
    """A component that is a link (ELOOP under O_NOFOLLOW, or a link where a folder was asked) is refused."""
    if err.errno in LINK_MET:
        try:
            mode = os.lstat(at).st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return link_refused(at)
        if stat.S_ISDIR(mode):  # a folder again by now: another process swaps it with a link
            return Refused(at, "was a symbolic link when it was opened (swapped with a folder); none is followed")
    return None


def link_refused(at: Path) -> Refused:
    try:
        target = os.readlink(at)
    except OSError:
        target = "?"
    return Refused(at, f"is a symbolic link (to {shown(target, 120)}); a dataset holds none, and none is followed")


def opener(root: Path):
    """A StoredItem's opener of its files through this door: path -> (descriptor, size). A partial, not a
    closure, so that an item travels to the exports' worker processes."""
    return functools.partial(open_file, root, kind="image")


def open_dir(root: Path, folder: Path, made: list[Path] | None = None) -> int:
    """A descriptor of `folder` under `root`, reached one component at a time without following a link;
    OSError where a component is missing, Refused where one is a link. Given `made`, a missing folder is
    made in its parent's descriptor and its path appended to `made` (top first)."""
    parts = parts_under(root, folder)
    fd = os.open(root, O_DIR & ~os.O_NOFOLLOW)  # the root itself is the user's to choose
    try:
        for k, part in enumerate(parts):
            try:
                try:
                    nfd = os.open(part, O_DIR, dir_fd=fd)
                except FileNotFoundError:
                    if made is None:
                        raise
                    with contextlib.suppress(FileExistsError):  # another writer made it meanwhile
                        os.mkdir(part, dir_fd=fd)
                        made.append(Path(root, *parts[: k + 1]))
                    nfd = os.open(part, O_DIR, dir_fd=fd)
            except OSError as err:  # named in full, so that a storage fault says where it struck
                raise _why(err, at := Path(root, *parts[: k + 1])) or OSError(err.errno, err.strerror, str(at)) from None
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(root: Path, path: Path, kind: str, dir_fd: int | None = None) -> tuple[int, int]:
    """(descriptor, size) of a regular file under `root` no larger than its kind allows. With `dir_fd`
    (an open_dir of its folder), `path` is its name in that folder."""
    fd = _leaf(root, path, O_READ, dir_fd)
    size = os.fstat(fd).st_size
    if size > LIMITS[kind]:
        os.close(fd)
        raise Refused(path, f"is {size} bytes, more than a {kind} file may be ({LIMITS[kind]})")
    return fd, size


def open_lock(root: Path, path: Path, flags: int = O_LOCK, dir_fd: int | None = None) -> int:
    """A descriptor of the lock file at `path` under `root` (made where missing) to flock (or, with O_APPEND,
    to append to): as every file, a regular file reached without following a link (`dir_fd`: its folder,
    held); a FIFO in its place is refused, never waited on."""
    return _leaf(root, path, flags, dir_fd)


def _leaf(root: Path, path: Path, flags: int, dir_fd: int | None = None) -> int:
    """`path` opened with `flags` from the held descriptor of its folder; only a regular file is kept."""
    fd_dir = open_dir(root, path.parent) if dir_fd is None else dir_fd
    try:
        try:
            fd = os.open(path.name, flags, 0o644, dir_fd=fd_dir)
        except OSError as err:
            raise _why(err, path) or err from None
    finally:
        if dir_fd is None:
            os.close(fd_dir)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Refused(path, "is not a regular file (a FIFO, device, socket or folder); none is opened")
    return fd


def read_fd(fd: int, size: int) -> bytes:
    """The `size` bytes fstat found (the door checked them against the limit); a file that grows meanwhile
    is read no further."""
    with os.fdopen(fd, "rb", closefd=True) as f:
        return f.read(size)


def read_bytes(root: Path, path: Path, kind: str, dir_fd: int | None = None) -> bytes:
    fd, size = open_file(root, path, kind, dir_fd)
    return read_fd(fd, size)


def parse_json(data: bytes | str, path: Path, walk: bool = True, finite: bool = False):
    """JSON under the depth limit (json_depth): a deeper or malformed file is refused in one line. `walk`
    False: the value is only checked to parse, then dropped (verify). `finite`: a number that is not
    (NaN, Infinity) is refused too, in a file a user hands in."""
    try:
        return json_depth.loads(data, walk, finite)
    except json_depth.TooDeep as err:
        raise Refused(path, str(err)) from None
    except (ValueError, UnicodeDecodeError) as err:
        raise Refused(path, f"is not JSON ({shown(str(err), 120)})") from None


def read_json(root: Path, path: Path, kind: str, dir_fd: int | None = None):
    return parse_json(read_bytes(root, path, kind, dir_fd), path)


def read_model(root: Path, path: Path, kind: str, model, dir_fd: int | None = None):
    """A JSON file validated by a strict pydantic model: a wrong type is one line naming the file and field."""
    return validate(model, read_json(root, path, kind, dir_fd), path)


def validate(model, value, path: Path | str):
    from pydantic import ValidationError

    try:
        return model.model_validate(value)
    except ValidationError as err:
        raise Refused(path, field_error(err)) from None


def field_error(err) -> str:
    """The first error of a pydantic validation, as 'field a.b: what is wrong'."""
    first = err.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "(the whole file)"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"field {shown(where, 80)}: {shown(first.get('msg', 'invalid'), 160)}{more}"


def is_file(root: Path, path: Path) -> bool:
    """A regular file (not a link) at `path` under `root`; a link on the way is refused."""
    return kind_of(root, path) == "file"


def kind_of(root: Path, path: Path) -> str | None:
    """'file', 'folder', 'link' or 'other' for what lies at `path` under `root` (no link followed); None if
    nothing does. A link above it is refused."""
    try:
        fd = open_dir(root, path.parent)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        st = os.stat(path.name, dir_fd=fd, follow_symlinks=False) if path != root else os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return ("file" if stat.S_ISREG(st.st_mode) else "folder" if stat.S_ISDIR(st.st_mode)
            else "link" if stat.S_ISLNK(st.st_mode) else "other")


def entries(root: Path, folder: Path) -> list[tuple[str, str]]:
    """(name, 'file' | 'folder' | 'link' | 'other') of every entry of a folder under `root`, sorted by name;
    nothing is followed. A missing folder has none."""
    try:
        fd = open_dir(root, folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    try:
        with os.scandir(fd) as it:
            found = []
            for e in it:
                if e.is_symlink():
                    found.append((e.name, "link"))
                elif e.is_dir(follow_symlinks=False):
                    found.append((e.name, "folder"))
                else:
                    found.append((e.name, "file" if e.is_file(follow_symlinks=False) else "other"))
    finally:
        os.close(fd)
    return sorted(found)


def guard(root: Path, path: Path) -> None:
    """Before writing, renaming, linking or deleting at `path`: every folder above it under `root` is a
    folder and no link (missing ones may be made), and `path` itself is no link. Refused otherwise."""
    at = Path(root)
    for part in parts_under(root, path):
        at = at / part
        try:
            st = os.lstat(at)
        except FileNotFoundError:
            return
        except NotADirectoryError:
            raise Refused(at, "lies under something that is not a folder") from None
        if stat.S_ISLNK(st.st_mode):
            raise link_refused(at)


def unlink(root: Path, path: Path) -> None:
    """Remove a file under `root` (none there is fine), never through a link: the name itself is removed,
    a link among the folders above it refused."""
    try:
        fd = open_dir(root, path.parent)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        os.unlink(path.name, dir_fd=fd)
    except FileNotFoundError:
        pass
    finally:
        os.close(fd)


def is_link_refusal(err: Refused) -> bool:
    return err.why.startswith("is a symbolic link")


def tail_line(path: Path, cap: int = 200) -> str | None:
    """The last non-empty line of a log, read from its end (TAIL bytes at most), escaped and cut to `cap`;
    None where there is none. Only a regular file, never through a final link."""
    fd = os.open(path, O_READ)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(path, "is not a regular file")
        os.lseek(fd, max(0, st.st_size - TAIL), os.SEEK_SET)
        data = os.read(fd, TAIL)
    finally:
        os.close(fd)
    lines = [line for line in data.decode(errors="replace").splitlines() if line.strip()]
    return shown(lines[-1].strip(), cap) if lines else None
