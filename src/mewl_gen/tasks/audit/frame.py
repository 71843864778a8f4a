"""The frame of every benchmark's audit: what it is given, the row it returns, the repeats column and the verdict.

A benchmark's audit states only its probes: `Audit(cells, findings, key)`, where `findings(split, task,
items, run)` returns its `Findings` (a value for each of its cells and the verdict's words for what failed) and
`key(stored)` says what an item shows. The frame puts split and task first, fills the `repeats` column
(the cross-split repeat probe, repeats.py) and writes the verdict: "ok", or every failure's words, the
probe's first, joined by "; ". A row whose verdict is not "ok" makes `mewl audit` exit with 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable

from ..stored import StoredItem
from .cross_split import repeat_column

OK = "ok"
REPEATS, VERDICT = "repeats", "verdict"
FIRST = ("split", "task")


@dataclass(frozen=True)
class AuditRun:
    """What an audit is given besides one split and task's items."""

    workers: int
    train: list[StoredItem] | None = None  # the same task's items of another dataset (`--train DIR`)
    others: list[StoredItem] = field(default_factory=list)  # the same task's items of this dataset's other splits


@dataclass(frozen=True)
class Findings:
    """What a benchmark's probes found on one split and task: a value for each of its cells, and the
    verdict's words for every check that failed (none: the row is ok)."""

    cells: dict[str, object]
    failures: list[str] = field(default_factory=list)


def verdict(failures: list[str]) -> str:
    return "; ".join(failures) or OK


@dataclass(frozen=True)
class Audit:
    """`mewl audit <benchmark> OUT`: does the dataset test what it claims? One row per split and task,
    measured from the files."""

    cells: tuple[str, ...]  # the columns the probes fill, in order; REPEATS among them places that column (else last)
    findings: Callable[[str, str, list[StoredItem], AuditRun], Findings]  # (split, task, items, run) -> its cells
    key: Callable[[StoredItem], Hashable]  # what an item shows, up to camera, lights, positions, seeds and index
    notes: str = ""  # printed under the table
    learns: bool = False  # whether it takes --train DIR

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of the table, in order."""
        own = self.cells if REPEATS in self.cells else (*self.cells, REPEATS)
        return (*FIRST, *own, VERDICT)

    def row(self, split: str, task: str, items: list[StoredItem], run: AuditRun) -> dict:
        """One split and task's row: the probes' cells, the repeats cell and the verdict."""
        found = self.findings(split, task, items, run)
        repeats, repeated = repeat_column(split, items, run.others, self.key, run.workers)
        return {"split": split, "task": task, **found.cells, REPEATS: repeats,
                VERDICT: verdict([*found.failures, *repeated])}
