"""`mewl eval OUT PREDICTIONS.jsonl`: a model's answers scored against the dataset's own.

PREDICTIONS.jsonl holds one JSON object per line naming an item, by the
export's `key` (`{"key": "test/pragmatic/000017", "answer": "dax"}`) or by
its split, task and index (`{"split": "test", "task": "pragmatic", "index":
17, "answer": "dax"}`), and its answer in any form results.answers takes:
the item's own (a choice word, a truth value, a message ...) or the export's
label (a class name or its index). Items are read through the store's
reader with every file checked against the item's record of checksums,
images included, as export and gallery check them: only sound items are
scored; a damaged one is named, left out and counted apart.

Every item of a split and task that the file predicts is scored: a missing
prediction, or an answer the item cannot have, counts as wrong and is
reported. A line that is not a prediction, a second prediction for an item
(the first one stands) and a prediction for an item OUT does not hold are
reported and not counted. Each kind of problem is one line.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from mewl_gen.errors import UserError, shown
from mewl_gen.store import reader
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import wilson

from . import answers, predictions
from .predictions import item_key

Key = tuple[str, str, int]
SHOWN = 3  # keys named in a problem's line before "and N more"


@dataclass
class Problems:
    """Each kind of problem with the predictions: the keys (or line numbers) it concerns."""

    kinds: dict[str, list[str]] = field(default_factory=dict)
    damaged: list[str] = field(default_factory=list)  # split/task/index of OUT's damaged items: not scored

    def add(self, kind: str, what: str) -> None:
        self.kinds.setdefault(kind, []).append(what)

    def lines(self) -> list[str]:
        out = []
        for kind, whats in self.kinds.items():
            more = f" (and {len(whats) - SHOWN} more)" if len(whats) > SHOWN else ""
            out.append(f"{len(whats)} {kind}: {', '.join(whats[:SHOWN])}{more}")
        return out


@dataclass(frozen=True)
class Score:
    split: str
    task: str
    n: int  # sound items of the split and task in OUT
    correct: int
    damaged: int = 0  # items of the split and task that are damaged or incomplete: not scored, not in n

    @property
    def accuracy(self) -> float:
        return self.correct / self.n

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.correct, self.n)


NOT_A_PREDICTION = 'lines that are not a prediction ({key, answer} or {split, task, index, answer})'


def read_predictions(path: Path, problems: Problems) -> dict[Key, object]:
    """(split, task, index) -> the answer; malformed lines and duplicates go to `problems`. The one place that
    parses a predictions file."""
    text = predictions.read_text(path)
    found: dict[Key, tuple[object, int]] = {}  # the answer and its line's number
    for number, line in enumerate(predictions.lines(text), start=1):
        if not line.strip():
            continue
        p = predictions.parse_line(line)
        if p is None:
            problems.add(NOT_A_PREDICTION, f"line {number}")
            continue
        split, task, index = p.item
        key = (sys.intern(split), sys.intern(task), index)  # a name is one string however many lines say it
        if key in found:
            problems.add("duplicate predictions (the first one stands)",
                         f"line {number} repeats line {found[key][1]} ({shown(item_key(*key), 120)})")
            continue
        found[key] = (p.answer, number)
    if not found:
        raise UserError(f"{shown(str(path))} holds no predictions; expected JSON lines {{\"key\", \"answer\"}} or "
                        "{\"split\", \"task\", \"index\", \"answer\"}")
    return {key: answer for key, (answer, _) in found.items()}


@dataclass
class _Tally:
    """One split and task's items as they are judged: counts, and the problems of its items."""

    n: int = 0
    correct: int = 0
    predicted: bool = False  # whether the file predicts any item of it that OUT holds
    missing: list[str] = field(default_factory=list)
    unanswerable: list[str] = field(default_factory=list)


def score(out: Path, predictions_file: Path) -> tuple[list[Score], Problems]:
    """Each predicted split and task's score, in the catalog's order, and the problems found. Items are
    judged as the reader checks them, and none is kept: memory holds the predictions, not the dataset."""
    problems = Problems()
    predicted = read_predictions(predictions_file, problems)
    known = catalog.tasks()
    unknown_tasks = sorted({t for _, t, _ in predicted if t not in known})
    for task in unknown_tasks:
        problems.add("predictions for tasks no benchmark has", shown(task, 80))
    wanted = sorted({t for _, t, _ in predicted if t in known})
    tallies: dict[tuple[str, str], _Tally] = {}
    damaged: list[tuple[Key, str]] = []
    for key, stored, why in reader.each(out, wanted, images=True):
        if stored is None:
            damaged.append((key, why))
            predicted.pop(key, None)
            continue
        tally = tallies.setdefault(key[:2], _Tally())
        tally.n += 1
        if key not in predicted:
            tally.missing.append(item_key(*key))
            continue
        tally.predicted = True
        answer = predicted.pop(key)
        try:
            tally.correct += answers.judge(known[stored.task], stored.item(), answer)
        except ValueError as err:
            tally.unanswerable.append(f"{item_key(*key)} ({shown(err, 120)})")
    # A folder whose name is no index (reader.MISNAMED) is named as the reader names it.
    problems.damaged = [item_key(*key) if isinstance(key[2], int) else reader.key_text(*key) for key, _ in damaged]
    for name, (_, why) in zip(problems.damaged, damaged):
        problems.add("damaged or incomplete items of OUT (not scored; `mewl verify OUT` names them)", f"{name} ({why})")
    scores = []
    order = list(known)
    for (split, task), tally in sorted(tallies.items(), key=lambda kv: (order.index(kv[0][1]), kv[0][0])):
        if not tally.predicted:
            continue  # a split the file does not predict
        for missing in tally.missing:
            problems.add("missing predictions (counted wrong)", missing)
        for unanswerable in tally.unanswerable:
            problems.add("answers an item cannot have (counted wrong)", unanswerable)
        lost = sum(1 for (s, t, _), _ in damaged if (s, t) == (split, task))
        scores.append(Score(split, task, tally.n, tally.correct, lost))
    for key in predicted:  # what is left names no item OUT holds
        if key[1] in known:
            problems.add("predictions for items OUT does not hold (not counted)", shown(item_key(*key), 120))
    if not scores:
        raise UserError(f"no prediction of {shown(str(predictions_file))} is for an item of {out}")
    return scores, problems
