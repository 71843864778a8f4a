"""A benchmark reads an item's files through StoredItem: a file that is not what it should be is one
line (DamagedItem), never a traceback, however deep its JSON nests."""
from __future__ import annotations

import pytest

from mewl_gen.json_depth import DEPTH
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import DamagedItem, StoredItem


@pytest.fixture
def stored(tmp_path) -> StoredItem:
    folder = tmp_path / "train" / "shape" / "0"
    folder.mkdir(parents=True)
    return StoredItem("train", "shape", 0, folder, catalog.task("shape").model)


@pytest.mark.parametrize("depth", [DEPTH + 1, 100_000])
def test_json_nested_past_the_limit_is_one_line(stored, depth):
    """A hundred thousand `[` would stop Python's parser with a RecursionError, and a few hundred would
    parse into a value every later walk recurses through: both are refused before anyone reads them."""
    (stored.folder / "info.json").write_text('{"a": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(DamagedItem, match=f"info.json: cannot be read as JSON .*deeper than {DEPTH}") as err:
        stored.json("info.json")
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_json_within_the_limit_is_read(stored):
    (stored.folder / "info.json").write_text('{"a": ' + "[" * (DEPTH - 1) + "]" * (DEPTH - 1) + "}")
    assert list(stored.json("info.json")) == ["a"]
