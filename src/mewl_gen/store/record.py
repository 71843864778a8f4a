"""The record of an episode folder: every file's size and sha256.

It is written last, just before the folder is published, so an episode counts as complete only when
its record is there and agrees with the files. Its name holds an underscore, which a panel's name
(lowercase letters, digits, spaces and '#') never does: no collision with `<name>.png` / `<name>.json`.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
from pathlib import Path
from typing import Annotated, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from mewl_gen.errors import shown
from mewl_gen.render.passes import files_of, is_pass_file
from mewl_gen.tasks.item import Item

from . import door
from .files import folder as held_folder, write_at

RECORD = "_checksums.json"
FORMAT = "mewl-episode-checksums/1"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
FILES = 4096  # an item's files: a few dozen images and their passes at most
WHOLE = 1 << 20  # a PNG of at most this many bytes is read once, hashed and decoded; a larger one streamed twice
MAX_PIXELS = 1 << 24  # an image's or pass's pixels (this tool's scenes are 320x240): a larger one swells readers
FileName = Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=r"^[^/\x00]+$")]


class Entry(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    size: int = Field(ge=0, le=door.LIMITS["image"])
    sha256: Annotated[str, StringConstraints(pattern=SHA256.pattern)]


class Record(BaseModel):
    """An item's record of checksums, as the door reads it: strict, every name one plain file's."""
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    format: Literal["mewl-episode-checksums/1"]
    files: dict[FileName, Entry] = Field(min_length=1, max_length=FILES)


def sha256(path: Path, dir_fd: int, root: Path) -> str:
    """A file's sha256, read from its folder's descriptor `dir_fd` (opened by the door): a regular file, never a link."""
    h = hashlib.sha256()
    with os.fdopen(door.open_file(root, path, "image", dir_fd=dir_fd)[0], "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_record(folder: Path, fd: int | None = None) -> None:
    """The record of every file of `folder` (`fd`: held by the caller), read and written through its descriptor."""
    if fd is None:
        with held_folder(folder, folder) as held:
            return write_record(folder, held)
    with os.scandir(fd) as it:
        names = sorted(e.name for e in it if e.name != RECORD)
    files = {name: {"size": os.stat(name, dir_fd=fd, follow_symlinks=False).st_size,
                    "sha256": sha256(folder / name, fd, folder)} for name in names}
    text = json.dumps({"format": FORMAT, "files": files}, indent=1) + "\n"
    write_at(fd, folder / RECORD, [text.encode()], sync=False)  # the item's publish syncs its folder whole


class _Folder:
    """An item's folder opened once by the door (no link followed on the way), its files read by name."""

    def __init__(self, folder: Path, root: Path | None, model: type[Item] | None = None):
        self.folder, self.root, self.model = folder, folder if root is None else root, model
        self.fd = door.open_dir(self.root, folder)
        self._record: dict[str, Entry] | None = None
        self.sizes: dict[str, tuple[int, int]] = {}  # scene -> (width, height) its images have (read_sizes)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)
        return False

    def record(self) -> dict[str, Entry]:
        """The record, read and checked once per opening."""
        if self._record is None:
            self._record = self._read_record()
        return self._record

    def _read_record(self) -> dict[str, Entry]:
        from pydantic import ValidationError

        path = self.folder / RECORD
        data = door.read_bytes(self.root, path, "record", dir_fd=self.fd)
        try:
            files = Record.model_validate_json(data).files
        except ValidationError as err:
            raise door.Refused(path, f"is not a record of checksums of this tool ({door.field_error(err)})") from None
        bad = [n for n in files if n in (".", "..", RECORD)]
        if bad:
            raise door.Refused(path, f"lists the file {shown(bad[0], 80)}, which no item holds")
        return files

    def read_sizes(self) -> None:
        """The size each scene's images must have: its camera's, as the item's own record file (the
        task's model) says. Without a model, images are only bounded by MAX_PIXELS."""
        if self.model is None or not any(name.endswith((".png", ".npy")) for name in self.record()):
            return
        path = self.folder / self.model.RECORD_FILE
        data = door.read_bytes(self.root, path, "json", dir_fd=self.fd)
        try:
            item = self.model.model_validate_json(data)
        except ValueError as err:
            first = str(err).splitlines()[0] if str(err) else ""
            raise door.Refused(path, f"is not a readable {self.model.__name__} ({shown(first, 120)})") from None
        self.sizes = {name: (spec.camera.width, spec.camera.height) for name, spec in item.scenes().items()}

    def size_problem(self, name: str, width: int, height: int) -> str | None:
        """An image or pass of a scene of the item whose size is not its scene's camera's."""
        want = self.sizes.get(name.split(".")[0])  # a scene's name holds no dot: `<scene>.png`, `<scene>.<pass>.<ext>`
        if want is None or want == (width, height):
            return None
        return f"is {width}x{height} pixels, but its scene is rendered at {want[0]}x{want[1]}"


def read_record(folder: Path, root: Path | None = None) -> dict[str, dict] | None:
    """name -> {size, sha256}; None if the record is missing or malformed."""
    try:
        with _Folder(folder, root) as f:
            return {name: e.model_dump() for name, e in f.record().items()}
    except (OSError, door.Refused):
        return None


def _problem(f: _Folder) -> str | None:
    """quick_problem of an opened folder."""
    try:
        files = f.record()
    except door.Refused as err:
        return f"no readable {RECORD} (it {err.why})"
    except OSError:
        return f"no readable {RECORD}"
    try:
        with os.scandir(f.fd) as it:
            present = {e.name: e for e in it if e.name != RECORD}
    except OSError as err:
        return f"unreadable ({err.strerror})"
    missing = sorted(set(files) - set(present))
    if missing:
        return f"{shown(missing[0], 80)} is missing" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
    extra = sorted(set(present) - set(files))
    if extra:
        return f"{shown(extra[0], 80)} is not in {RECORD}" + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else "")
    for name, entry in sorted(files.items()):
        e = present[name]
        try:
            size = e.stat(follow_symlinks=False).st_size if e.is_file(follow_symlinks=False) else None
        except OSError:
            size = None
        if size is None and e.is_symlink():
            return f"{shown(name, 80)} is a symbolic link; a dataset holds none, and none is followed"
        if size != entry.size:
            return f"{shown(name, 80)} is {'not a file' if size is None else f'{size} bytes'}, the record says {entry.size}"
    return None


def _opened(folder: Path, root: Path | None, model: type[Item] | None = None) -> _Folder | str:
    try:
        return _Folder(folder, root, model)
    except door.Refused as err:
        return f"{shown(err.path.name, 80)} {err.why}"
    except OSError as err:
        return "missing" if isinstance(err, FileNotFoundError) else f"unreadable ({err.strerror})"


def quick_problem(folder: Path, root: Path | None = None) -> str | None:
    """What is wrong with an episode folder, from its listing and sizes
    alone (a stat per file): None when it looks complete. `root` (OUT): the folder is reached from it
    without following a link; a link on the way, or in the folder, is the item's damage."""
    f = _opened(folder, root)
    if isinstance(f, str):
        return f
    with f:
        return _problem(f)


def missing_pass(folder: Path, passes: tuple[str, ...], root: Path | None = None) -> str | None:
    """The first pass file (render.passes) that an image of a complete item lacks: a dataset's manifest
    names the passes every image has. None when each image has them all."""
    files = read_record(folder, root) or {}
    for image in sorted(n for n in files if n.endswith(".png") and not is_pass_file(n)):
        lacking = [name for name in files_of(image[: -len(".png")], passes) if name not in files]
        if lacking:
            return f"{lacking[0]} is missing (the dataset has the passes {', '.join(passes)})"
    return None


def full_problem(folder: Path, only: str | None = None, root: Path | None = None,
                 model: type[Item] | None = None) -> str | None:
    """quick_problem, then every file's sha256, every PNG decoded, every
    JSON parsed and every NumPy file (a depth pass) read: None when the
    episode is intact. `only` (a suffix such as ".json") checks the contents
    of those files alone: what a reader of an item's JSON relies on, without
    hashing its images. Sizes written inside files are not believed: an image of more than MAX_PIXELS,
    or JSON nested past the door's depth, is damage. With the item's `model` (its task's), every image
    and pass must have the size its scene is rendered at, as the item's record file says."""
    f = _opened(folder, root, model)
    if isinstance(f, str):
        return f
    with f:
        problem = _problem(f)
        if problem is not None:
            return problem
        if only is None:
            try:
                f.read_sizes()
            except door.Refused as err:
                return f"{shown(err.path.name, 80)}: {err.why}"
            except OSError as err:
                return f"{model.RECORD_FILE}: unreadable ({err.strerror})"
        for name, entry in sorted(f.record().items()):
            if only is not None and not name.endswith(only):
                continue
            try:
                problem = _content_problem(f, name, entry)
            except door.Refused as err:
                problem = err.why
            except OSError as err:  # without a strerror, a decoder's (Pillow's "broken data stream"), not the system's
                problem = f"unreadable ({err.strerror})" if err.strerror is not None else _undecodable(err)
            except Exception as err:  # noqa: BLE001 - any decoder error means a damaged file
                problem = _undecodable(err)
            if problem is not None:
                return f"{shown(name, 80)}: {problem}"
    return None


def _undecodable(err: Exception) -> str:
    return f"does not decode ({type(err).__name__}: {shown(str(err).splitlines()[0] if str(err) else '', 120)})"


def _content_problem(f: _Folder, name: str, entry: Entry) -> str | None:
    path = f.folder / name
    if name.endswith(".json"):
        data = door.read_bytes(f.root, path, "json", dir_fd=f.fd)
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            return "sha256 differs from the record"
        door.parse_json(data, path, walk=False)
        return None
    if name.endswith(".png") and entry.size <= WHOLE:  # read once: hashed, then decoded from the same bytes
        fd, size = door.open_file(f.root, path, "image", dir_fd=f.fd)
        data = door.read_fd(fd, min(size, entry.size + 1))  # a file grown since it was listed reads no further
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            return "sha256 differs from the record"
        return _png_problem(f, path, io.BytesIO(data))
    if sha256(path, f.fd, f.root) != entry.sha256:
        return "sha256 differs from the record"
    if name.endswith(".png"):
        with os.fdopen(door.open_file(f.root, path, "image", dir_fd=f.fd)[0], "rb") as raw:
            return _png_problem(f, path, raw)
    if name.endswith(".npy"):
        return _npy_problem(f, path)
    return None


def _png_problem(f: _Folder, path: Path, raw: BinaryIO) -> str | None:
    """An image whose pixels are more than this tool's, or than its scene's, or that does not decode."""
    from PIL import Image

    with Image.open(raw) as im:
        width, height = im.size
        if width * height > MAX_PIXELS:
            return f"claims {width}x{height} pixels, more than an image of this tool has ({MAX_PIXELS})"
        if (wrong := f.size_problem(path.name, width, height)) is not None:
            return wrong
        im.load()
    return None


def _npy_problem(f: _Folder, path: Path) -> str | None:
    import numpy as np

    HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    fd, _ = door.open_file(f.root, path, "image", dir_fd=f.fd)
    with os.fdopen(fd, "rb") as raw:
        version = np.lib.format.read_magic(raw)
        if version not in HEADERS:
            return f"is a NumPy file of format {version}, which this tool does not write"
        shape, _, dtype = HEADERS[version](raw)
        cells = 1
        for side in shape:
            cells *= side
        if dtype.hasobject or cells * dtype.itemsize > MAX_PIXELS * 16:
            return f"claims an array of {shown(shape, 60)} {dtype}, more than a pass of this tool holds"
        if len(shape) != 2 or (wrong := f.size_problem(path.name, shape[1], shape[0])) is not None:
            return wrong or f"is an array of {shown(shape, 60)}, not one value per pixel"
        raw.seek(0)
        np.load(raw, allow_pickle=False)
    return None
