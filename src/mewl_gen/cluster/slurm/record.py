"""OUT/slurm/: the record of every job `mewl slurm --submit` submitted
(submissions.jsonl, one JSON object a line) and the scripts it kept."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from mewl_gen.errors import UserError
from mewl_gen.store import door
from mewl_gen.store.bookkeeping import MAX_ITEMS

SUBMISSIONS = "submissions.jsonl"


JobId = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,20}$")]
Text = Annotated[str, StringConstraints(max_length=4096)]


class Array(BaseModel):
    """A line of submissions.jsonl for an array `mewl slurm --submit` submitted, as the door reads it."""
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")
    array_job: JobId
    shards: list[Annotated[int, Field(ge=0, le=1_000_000)]] = Field(min_length=1, max_length=10_000)
    of: int = Field(ge=1, le=1_000_000)
    split: Text | None = None
    tasks: list[Text] | None = Field(None, max_length=100)
    n: int | None = Field(None, ge=0, le=MAX_ITEMS)
    logs: Text | None = None
    submitted: Text | None = None


class Check(BaseModel):
    """A line of submissions.jsonl for the completion job that reports on an array."""
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")
    check_job: JobId
    after: JobId
    log: Text | None = None


def submissions(out: Path) -> list[dict]:
    """The records of submitted jobs, each checked by its model (a line that is neither is left out)."""
    path = out / "slurm" / SUBMISSIONS
    try:
        text = door.read_bytes(out, path, "slurm").decode(errors="replace")
    except (OSError, door.Refused):
        return []
    found = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            value = door.parse_json(line, path)
        except door.Refused:
            continue
        if not isinstance(value, dict):
            continue
        for model in (Array, Check):
            try:
                found.append(model.model_validate(value).model_dump(exclude_none=True))
                break
            except ValidationError:
                pass
    return found


def record_submission(out: Path, slurm_dir: Path, record: dict) -> None:
    record["submitted"] = time.strftime("%Y-%m-%d %H:%M:%S")
    with os.fdopen(door.open_lock(out, slurm_dir / SUBMISSIONS, door.O_APPEND), "a") as log:  # through the door, no link followed
        log.write(json.dumps(record) + "\n")


def unique_path(folder: Path, stem: str, suffix: str) -> Path:
    """folder/stem-<time>.suffix, never an existing file (scripts of earlier runs are kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        path = folder / f"{stem}-{stamp}{'' if k == 0 else f'-{k}'}{suffix}"
        if not path.exists():
            return path
    raise UserError(f"too many scripts named {stem}-{stamp}* in {folder}")
