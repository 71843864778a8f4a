"""Parsing and checking the options users type, before any work starts."""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from scenes import spec
from scenes.quality import QUALITIES
from scenes.spec import TASKS

from .errors import UserError

SPLIT_PATTERN = re.compile(spec.SPLIT_PATTERN)  # the Episode model's own rule

DEVICES = ("auto", "cpu", "optix", "cuda", "hip", "oneapi", "metal")


def task_list(value: str) -> list[str]:
    if value == "all":
        return list(TASKS)
    names = value.split(",")
    bad = [t for t in names if t not in TASKS]
    if bad:
        raise UserError(f"unknown task {bad[0]!r}; expected one of {', '.join(TASKS)} or all")
    return names


def positive_int(name: str, value: str | int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a whole number, got {value!r}") from None
    if n < 1:
        raise UserError(f"{name} must be at least 1, got {n}")
    return n


def seed(value: str | int) -> int:
    try:
        s = int(value)
    except (TypeError, ValueError):
        raise UserError(f"seed must be a whole number, got {value!r}") from None
    if not 0 <= s < 2**63:
        raise UserError(f"seed must be between 0 and 2**63-1, got {s}")
    return s


def split(value: str) -> str:
    if not SPLIT_PATTERN.match(value):
        raise UserError(f"split must be lowercase letters, digits, '-' or '_', got {value!r}")
    return value


def quality(value: str) -> str:
    if value not in QUALITIES:
        raise UserError(f"unknown quality {value!r}; expected one of {', '.join(QUALITIES)}")
    return value


def device(value: str) -> str:
    if value not in DEVICES:
        raise UserError(f"unknown device {value!r}; expected one of {', '.join(DEVICES)}")
    return value


def workers(value: str | int | None) -> int:
    if value in (None, ""):
        return os.cpu_count() or 1
    return positive_int("workers", value)


def output(value: str) -> Path:
    return Path(value)


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, like every other user error."""

    def error(self, message: str):  # type: ignore[override]
        raise UserError(message)


def shard(value: str | None) -> tuple[int, int]:
    """'I/K': every K-th episode starting at I (episodes i with i % K == I)."""
    if value in (None, ""):
        return 0, 1
    parts = value.split("/")
    try:
        i, k = (int(p) for p in parts)
    except ValueError:
        raise UserError(f"--shard must look like I/K (e.g. 0/4), got {value!r}") from None
    if k < 1 or not 0 <= i < k:
        raise UserError(f"--shard {value}: need K >= 1 and 0 <= I < K")
    return i, k


def gpu_ids(value: str | None) -> list[int] | None:
    """'0,1' -> [0, 1]; None when not given."""
    if value in (None, ""):
        return None
    try:
        ids = [int(p) for p in value.split(",")]
    except ValueError:
        raise UserError(f"--gpu-ids must be a comma list of whole numbers (e.g. 0,1), got {value!r}") from None
    if any(i < 0 for i in ids) or len(set(ids)) != len(ids):
        raise UserError(f"--gpu-ids must be distinct non-negative numbers, got {value!r}")
    return ids
