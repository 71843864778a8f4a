"""An item as the store's reader hands it to a benchmark (its audit, its text
inputs, its solvers): where it lies and its files, read on demand.

The reader has checked the item first (complete, its JSON files as its record
of checksums says, not noted damaged), so a benchmark reads only sound items;
a file that changes afterwards is one line (DamagedItem), never a traceback.
A sampled item has no images: `truth` and `image` say so with None.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from mewl_gen import json_depth
from mewl_gen.errors import UserError, shown
from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.spec import first_error

from .item import Item

JSON_LIMIT = 64 << 20  # the most bytes of an item's JSON file read without the store's door
IMAGE_LIMIT = 256 << 20


class DamagedItem(UserError, ValueError):
    """A file of an item that cannot be read as it should: one line naming it."""


def open_leaf(path: Path) -> tuple[int, int]:
    """(descriptor, size) of a file of an item's folder, as it is opened where the store hands no door of
    its own: only a regular file (no final link followed, no FIFO waited on) of at most IMAGE_LIMIT bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > IMAGE_LIMIT:
        os.close(fd)
        raise DamagedItem(f"{shown(path)}: not a regular file of at most {IMAGE_LIMIT} bytes")
    return fd, st.st_size


@dataclass(frozen=True)
class StoredItem:
    split: str
    task: str
    index: int
    folder: Path
    model: type[Item]
    # How a file of the folder is opened, path -> (descriptor, size): the store's door, which follows no link.
    opener: Callable[[Path], tuple[int, int]] = field(default=open_leaf, repr=False, compare=False)

    @property
    def key(self) -> str:
        """split/task/index: how messages name the item."""
        return f"{self.split}/{self.task}/{self.index}"

    def open_file(self, name: str, limit: int = IMAGE_LIMIT) -> int:
        """A descriptor of a file of the item's folder (the caller closes it); DamagedItem where it cannot be
        opened as a regular file of at most `limit` bytes."""
        path = self.folder / name
        try:
            fd, size = self.opener(path)
        except OSError as err:
            raise DamagedItem(f"{shown(path)}: cannot be read ({err.strerror}); `mewl verify OUT` names damaged items") from None
        except ValueError as err:
            raise DamagedItem(f"{shown(path)}: cannot be read ({shown(err, 160)})") from None
        if size > limit:
            os.close(fd)
            raise DamagedItem(f"{shown(path)}: {size} bytes, more than such a file may be ({limit})")
        return fd

    def read_file(self, name: str, limit: int = IMAGE_LIMIT) -> bytes:
        """A file of the item's folder, whole; DamagedItem where it cannot be read."""
        path = self.folder / name
        fd = self.open_file(name, limit)
        try:
            with os.fdopen(fd, "rb") as f:
                return f.read(min(os.fstat(fd).st_size, limit))
        except OSError as err:
            raise DamagedItem(f"{shown(path)}: cannot be read ({err.strerror}); `mewl verify OUT` names damaged items") from None
        except ValueError as err:
            raise DamagedItem(f"{shown(path)}: cannot be read ({shown(err, 160)})") from None

    def json(self, name: str) -> dict:
        """A JSON file of the item's folder, parsed under the depth limit of JSON from elsewhere (json_depth)."""
        path = self.folder / name
        data = self.read_file(name, JSON_LIMIT)
        try:
            value = json_depth.loads(data)
        except ValueError as err:
            raise DamagedItem(f"{shown(path)}: cannot be read as JSON ({shown(err, 120)}); "
                              "`mewl verify OUT` names damaged items") from None
        if not isinstance(value, dict):
            raise DamagedItem(f"{shown(path)}: not a JSON object")
        return value

    def record(self) -> dict:
        """The item's own file (episode.json, item.json) as JSON: what a solver independent of the sampler reads."""
        return self.json(self.model.RECORD_FILE)

    def item(self) -> Item:
        """The item's model, read from its record; its split, task and index must be its folder's."""
        path = self.folder / self.model.RECORD_FILE
        data = self.read_file(self.model.RECORD_FILE, JSON_LIMIT)
        try:
            item = self.model.model_validate_json(data)
        except (ValueError, RecursionError, LookupError, TypeError) as err:  # a validator's lookup of a hostile value
            raise DamagedItem(f"{shown(path)} is not a readable {self.model.__name__} "
                              f"({shown(str(err).splitlines()[0] if str(err) else '', 160)})") from None
        if item.task != self.task:
            raise DamagedItem(f"{shown(path)} holds a {shown(item.task, 60)} item in the {self.task} folder")
        if item.split != self.split or item.index != self.index:
            raise DamagedItem(f"{shown(path)} holds item {shown(item.split, 40)}/{item.index} in the folder of "
                              f"{self.split}/{self.index}; a copy under another name is no item")
        return item

    def truth(self, scene: str) -> dict | None:
        """The rendered image's ground truth `<scene>.json`; None for a sampled item."""
        return self.json(f"{scene}.json") if self.has(f"{scene}.json") else None

    def image_truth(self, scene: str) -> ImageTruth | None:
        """The rendered image's ground truth read through its model (the item model's TRUTH), strictly: a
        missing field or one of the wrong type ("bbox": "x", a mask's size of NaN) is one line (DamagedItem)
        naming the file and the field. None for a sampled item."""
        name = f"{scene}.json"
        if not self.has(name):
            return None
        data = self.read_file(name, JSON_LIMIT)
        try:
            return self.model.TRUTH.model_validate_json(data, strict=True)
        except ValidationError as err:  # JSON nested deeper than the model's fields is one too
            raise DamagedItem(f"{shown(self.folder / name)}: not an image's ground truth of this tool "
                              f"({shown(first_error(err), 200)})") from None

    def has(self, name: str) -> bool:
        """A regular file of this name in the item's folder (a link is none)."""
        try:
            return stat.S_ISREG(os.lstat(self.folder / name).st_mode)
        except OSError:
            return False

    def image(self, scene: str) -> Path | None:
        """The rendered `<scene>.png`; None for a sampled item."""
        path = self.folder / f"{scene}.png"
        return path if self.has(f"{scene}.png") else None
