"""An item as the store's reader hands it to a benchmark (its audit, its text
inputs, its solvers): where it lies and its files, read on demand.

The reader has checked the item first (complete, its JSON files as its record
of checksums says, not noted damaged), so a benchmark reads only sound items;
a file that changes afterwards is one line (DamagedItem), never a traceback.
A sampled item has no images: `truth` and `image` say so with None.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mewl_gen.errors import UserError

from .item import Item


class DamagedItem(UserError, ValueError):
    """A file of an item that cannot be read as it should: one line naming it."""


@dataclass(frozen=True)
class StoredItem:
    split: str
    task: str
    index: int
    folder: Path
    model: type[Item]

    @property
    def key(self) -> str:
        """split/task/index: how messages name the item."""
        return f"{self.split}/{self.task}/{self.index}"

    def json(self, name: str) -> dict:
        """A JSON file of the item's folder."""
        path = self.folder / name
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError) as err:
            raise DamagedItem(f"{path}: cannot be read as JSON ({err}); `mewl verify OUT` names damaged items") from None
        if not isinstance(data, dict):
            raise DamagedItem(f"{path}: not a JSON object")
        return data

    def record(self) -> dict:
        """The item's own file (episode.json, item.json) as JSON: what a solver independent of the sampler reads."""
        return self.json(self.model.RECORD_FILE)

    def item(self) -> Item:
        """The item's model, read from its record."""
        path = self.folder / self.model.RECORD_FILE
        try:
            item = self.model.model_validate_json(path.read_bytes())
        except (OSError, ValueError) as err:
            raise DamagedItem(f"{path} is not a readable {self.model.__name__} ({str(err).splitlines()[0]})") from None
        if item.task != self.task:
            raise DamagedItem(f"{path} holds a {item.task} item in the {self.task} folder")
        return item

    def truth(self, scene: str) -> dict | None:
        """The rendered image's ground truth `<scene>.json`; None for a sampled item."""
        return self.json(f"{scene}.json") if (self.folder / f"{scene}.json").is_file() else None

    def image(self, scene: str) -> Path | None:
        """The rendered `<scene>.png`; None for a sampled item."""
        path = self.folder / f"{scene}.png"
        return path if path.is_file() else None
