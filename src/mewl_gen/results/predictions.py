"""A predictions file, as `mewl eval` reads it: one JSON object a line, `{"split", "task", "index",
"answer"}` or `{"key", "answer"}` (the key as the exports write it), from a model nobody here trusts. Every line goes through one strict model; the file and each
line are read under a size cap and parsed under the store's depth limit, so no line swells, hangs or
gives a traceback: a line that is not a prediction is counted and named by its number."""
from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path
from typing import Annotated, Iterator

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StringConstraints, ValidationError, model_validator

from mewl_gen.errors import UserError, shown
from mewl_gen.store import door
from mewl_gen.store.bookkeeping import MAX_ITEMS

# Where str.splitlines breaks a line (the line numbers a problem names are its), found one break at a time.
BREAK = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# A predictions file's bytes and lines: far more than any dataset here holds (one line an item), and at
# their costliest a run well under a minute. Lines are bounded too because each costs its parse however
# short it is (docs/security.md, Sizes and times, has the measures).
FILE_LIMIT = 64 << 20
LINES_LIMIT = 1_000_000
LINE_LIMIT = 1 << 20  # bytes of one line: an answer is a word, a truth value, a short message
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]


def item_key(split: str, task: str, index: int) -> str:
    """An item's key, `split/task/000017`: as the exports write it, a predictions file names an item and
    every message about predictions names one (the index zero-padded so that keys sort as indexes do)."""
    return f"{split}/{task}/{index:06d}"


class Prediction(BaseModel):
    """One line of a predictions file; other fields a model writes (a confidence, a rationale) are ignored.
    It names its item by `key` ("split/task/000017"), or by split, task and index, or by both alike."""
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")
    key: Annotated[str, StringConstraints(max_length=420)] | None = None
    split: Name | None = None
    task: Name | None = None
    index: int | None = Field(default=None, ge=0, le=MAX_ITEMS)
    answer: JsonValue
    model: Name | None = None  # who answered: `mewl study score` writes "people (...)"; eval's figure says so

    @property
    def item(self) -> tuple[str, str, int]:
        """(split, task, index) of the item the line predicts."""
        if self.key is not None:
            split, task, index = self.key.split("/")
            return split, task, int(index)
        return self.split, self.task, self.index

    @model_validator(mode="after")
    def _names_one_item(self) -> "Prediction":
        named = (self.split, self.task, self.index)
        if self.key is not None:
            parts = self.key.split("/")
            if len(parts) != 3 or not all(parts) or not parts[2].isdigit() or int(parts[2]) > MAX_ITEMS:
                raise ValueError("key: expected split/task/index")
            if named != (None, None, None) and named != (parts[0], parts[1], int(parts[2])):
                raise ValueError("key and split, task, index name two items")
        elif None in named:
            raise ValueError("expected a key, or a split, task and index")
        return self


def parse_line(line: str | bytes) -> Prediction | None:
    """A line as a prediction; None for one that is not (too long, not JSON, too deep, mistyped, holding a
    number JSON has no form for: NaN, Infinity, 1e999)."""
    if len(line) > LINE_LIMIT:
        return None
    try:
        value = door.parse_json(line, LINE, finite=True)
    except door.Refused:
        return None
    if not isinstance(value, dict):
        return None
    try:
        return Prediction.model_validate(value)
    except ValidationError:
        return None


CHUNK = 1 << 20  # bytes read at a time: the file is never held whole
LINE = Path("line")  # what a line's refusal names (never shown: a refused line is counted by its number)
OVERLONG = "x" * (LINE_LIMIT + 1)  # stands for a line past LINE_LIMIT, whose text is not kept


def too_many_lines(path: Path) -> UserError:
    return UserError(f"{shown(str(path))} has more than {LINES_LIMIT:,} lines, more than a predictions file may have "
                     "(one line an item)")


def numbered_lines(path: Path) -> Iterator[str]:
    """The file's lines as str.splitlines makes them, one at a time, read CHUNK bytes at a time (at most
    FILE_LIMIT in all): memory holds a chunk and one line, never the file; a line past LINE_LIMIT comes as
    OVERLONG. A file that cannot be read, is a folder, too large or not UTF-8 is one line."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as err:
        raise UserError(f"cannot read {shown(str(path))}: {err.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UserError(f"{shown(str(path))} is a folder; expected a predictions file (JSON lines)")
        if stat.S_ISREG(st.st_mode) and st.st_size > FILE_LIMIT:
            raise UserError(f"{shown(str(path))} is {st.st_size} bytes, more than a predictions file may be ({FILE_LIMIT})")
        if stat.S_ISREG(st.st_mode):  # too many lines is said before any is parsed (a FIFO: as they come)
            breaks = 0
            for data in iter(lambda: f.read(CHUNK), b""):
                breaks += data.count(b"\n")
                if breaks > LINES_LIMIT:
                    raise too_many_lines(path)
            f.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        read, tail, overlong = 0, "", False
        while True:
            try:
                data = f.read(CHUNK)
            except OSError as err:
                raise UserError(f"cannot read {shown(str(path))}: {err.strerror}") from None
            read += len(data)
            if read > FILE_LIMIT:
                raise UserError(f"{shown(str(path))} is more than a predictions file may be ({FILE_LIMIT} bytes)")
            pending = len(decoder.getstate()[0])
            try:
                text = tail + decoder.decode(data, final=not data)
            except UnicodeDecodeError as err:
                at = read - len(data) - pending + err.start
                raise UserError(f"cannot read {shown(str(path))}: not UTF-8 text (byte {at})") from None
            start = 0
            for found in BREAK.finditer(text):
                if data and found.group() == "\r" and found.end() == len(text):
                    break  # a carriage return last in the chunk may be half of a \r\n
                yield OVERLONG if overlong else text[start:found.start()]
                start, overlong = found.end(), False
            tail = text[start:]
            if len(tail) > LINE_LIMIT:
                tail, overlong = "", True
            if not data:
                break
    if tail or overlong:
        yield OVERLONG if overlong else tail
