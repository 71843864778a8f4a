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
from collections.abc import Callable
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

    kinds: dict[str, list[str]] = field(default_factory=dict)  # the first SHOWN of each kind: a file of ten
    counts: dict[str, int] = field(default_factory=dict)  # million bad lines keeps no ten million names
    damaged: list[str] = field(default_factory=list)  # split/task/index of OUT's damaged items: not scored
    # Who answered, where every prediction names the same one (its "model" field), for the figure's bar;
    # "" once two lines disagree or one names none.
    model: str | None = None

    def add(self, kind: str, what: str | Callable[[], str]) -> None:
        """Count a problem; `what` names it (made only while its kind still shows examples, if a callable:
        a file of millions of bad lines would otherwise spend most of its time naming lines no one sees)."""
        shown_ = self.kinds.setdefault(kind, [])
        if len(shown_) < SHOWN:
            shown_.append(what() if callable(what) else what)
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def lines(self) -> list[str]:
        out = []
        for kind, whats in self.kinds.items():
            n = self.counts[kind]
            more = f" (and {n - SHOWN} more)" if n > SHOWN else ""
            out.append(f"{n} {kind}: {', '.join(whats)}{more}")
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


def read_predictions(path: Path, problems: Problems, held: set[Key]) -> dict[Key, object]:
    """(split, task, index) -> the answer, for the items OUT holds (`held`); malformed lines, duplicates and
    predictions for anything else go to `problems`, counted and never kept, so that memory grows with the
    dataset, not with the file. The one place that parses a predictions file."""
    known = catalog.tasks()
    found: dict[Key, tuple[object, int]] = {}  # the answer and its line's number
    any_prediction = False
    for number, line in enumerate(predictions.numbered_lines(path), start=1):
        if number > predictions.LINES_LIMIT:  # breaks other than \n, or a FIFO's lines
            raise predictions.too_many_lines(path)
        if not line.strip():
            continue
        p = predictions.parse_line(line)
        if p is None:
            problems.add(NOT_A_PREDICTION, f"line {number}")
            continue
        if not any_prediction:
            problems.model = p.model or ""
        elif problems.model != (p.model or ""):
            problems.model = ""
        any_prediction = True
        key = p.item
        if key not in held:
            if key[1] not in known:
                problems.add("predictions for tasks no benchmark has", lambda: shown(key[1], 80))
            else:
                problems.add("predictions for items OUT does not hold (not counted)",
                             lambda: shown(item_key(*key), 120))
            continue
        if key in found:
            problems.add("duplicate predictions (the first one stands)",
                         lambda: f"line {number} repeats line {found[key][1]} ({shown(item_key(*key), 120)})")
            continue
        split, task, index = key
        found[(sys.intern(split), sys.intern(task), index)] = (p.answer, number)  # one string per name
    if not any_prediction:
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
    known = catalog.tasks()
    held, _ = reader.listed(out, known)  # the item folders' keys, each checked below as it is read
    predicted = read_predictions(predictions_file, problems, set(held))
    del held
    wanted = sorted({t for _, t, _ in predicted})
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
    if not scores:
        raise UserError(f"no prediction of {shown(str(predictions_file))} is for an item of {out}")
    return scores, problems
