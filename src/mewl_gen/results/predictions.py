"""A predictions file, as `mewl eval` reads it: one JSON object a line, `{"split", "task", "index",
"answer"}`, from a model nobody here trusts. Every line goes through one strict model; the file and each
line are read under a size cap and parsed under the store's depth limit, so no line swells, hangs or
gives a traceback: a line that is not a prediction is counted and named by its number."""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StringConstraints, ValidationError

from mewl_gen.errors import UserError, shown
from mewl_gen.store import door
from mewl_gen.store.bookkeeping import MAX_ITEMS

FILE_LIMIT = 512 << 20  # bytes of a predictions file
LINE_LIMIT = 1 << 20  # bytes of one line: an answer is a word, a truth value, a short message
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class Prediction(BaseModel):
    """One line of a predictions file; other fields a model writes (a confidence, a rationale) are ignored."""
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")
    split: Name
    task: Name
    index: int = Field(ge=0, le=MAX_ITEMS)
    answer: JsonValue


def parse_line(line: str | bytes) -> Prediction | None:
    """A line as a prediction; None for one that is not (too long, not JSON, too deep, mistyped)."""
    if len(line) > LINE_LIMIT:
        return None
    try:
        value = door.parse_json(line, Path("line"))
    except door.Refused:
        return None
    if not isinstance(value, dict):
        return None
    try:
        return Prediction.model_validate(value)
    except ValidationError:
        return None


def read_text(path: Path) -> str:
    """The file's text, at most FILE_LIMIT bytes; one line where it cannot be read."""
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
        try:
            data = f.read(FILE_LIMIT + 1)
        except OSError as err:
            raise UserError(f"cannot read {shown(str(path))}: {err.strerror}") from None
    if len(data) > FILE_LIMIT:
        raise UserError(f"{shown(str(path))} is more than a predictions file may be ({FILE_LIMIT} bytes)")
    try:
        return data.decode()
    except UnicodeDecodeError as err:
        raise UserError(f"cannot read {shown(str(path))}: not UTF-8 text (byte {err.start})") from None
