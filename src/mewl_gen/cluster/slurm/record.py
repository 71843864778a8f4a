"""OUT/slurm/: the record of every job `mewl slurm --submit` submitted
(submissions.jsonl, one JSON object a line) and the scripts it kept."""
from __future__ import annotations

import json
import time
from pathlib import Path

from mewl_gen.errors import UserError

SUBMISSIONS = "submissions.jsonl"


def submissions(out: Path) -> list[dict]:
    path = out / "slurm" / SUBMISSIONS
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError):
        return []


def record_submission(slurm_dir: Path, record: dict) -> None:
    record["submitted"] = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(slurm_dir / SUBMISSIONS, "a") as log:
        log.write(json.dumps(record) + "\n")


def unique_path(folder: Path, stem: str, suffix: str) -> Path:
    """folder/stem-<time>.suffix, never an existing file (scripts of earlier runs are kept)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        path = folder / f"{stem}-{stamp}{'' if k == 0 else f'-{k}'}{suffix}"
        if not path.exists():
            return path
    raise UserError(f"too many scripts named {stem}-{stamp}* in {folder}")
