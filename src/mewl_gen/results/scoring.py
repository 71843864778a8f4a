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

from dataclasses import dataclass, field
from pathlib import Path

from mewl_gen.errors import UserError, shown
from mewl_gen.store import reader
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import wilson

from . import answers, predictions

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
    found: dict[Key, object] = {}
    first_line: dict[Key, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        p = predictions.parse_line(line)
        if p is None:
            problems.add(NOT_A_PREDICTION, f"line {number}")
            continue
        key, answer = p.item, p.answer
        if key in found:
            problems.add("duplicate predictions (the first one stands)",
                         f"line {number} repeats line {first_line[key]} ({shown('/'.join(map(str, key)), 120)})")
            continue
        found[key] = answer
        first_line[key] = number
    if not found:
        raise UserError(f"{shown(str(path))} holds no predictions; expected JSON lines {{\"key\", \"answer\"}} or "
                        "{\"split\", \"task\", \"index\", \"answer\"}")
    return found


def _damaged(lines: list[str]) -> dict[Key, str]:
    """(split, task, index) -> why, from the reader's "split/task/index: why" lines."""
    found = {}
    for line in lines:
        name, _, why = line.partition(": ")
        split, task, index = name.split("/")
        found[(split, task, int(index))] = why
    return found


def score(out: Path, predictions_file: Path) -> tuple[list[Score], Problems]:
    """Each predicted split and task's score, in the catalog's order, and the problems found."""
    problems = Problems()
    predicted = read_predictions(predictions_file, problems)
    known = catalog.tasks()
    unknown_tasks = sorted({t for _, t, _ in predicted if t not in known})
    for task in unknown_tasks:
        problems.add("predictions for tasks no benchmark has", shown(task, 80))
    wanted = sorted({t for _, t, _ in predicted if t in known})
    found = reader.read(out, wanted, images=True)
    damaged = _damaged(found.damaged)
    problems.damaged = [f"{split}/{task}/{index}" for split, task, index in sorted(damaged)]
    for (split, task, index), why in sorted(damaged.items()):
        problems.add("damaged or incomplete items of OUT (not scored; `mewl verify OUT` names them)",
                     f"{split}/{task}/{index} ({why})")
    scores = []
    seen: set[Key] = set(damaged)
    for (split, task), items in sorted(found.items.items(), key=lambda kv: (list(known).index(kv[0][1]), kv[0][0])):
        if not any((split, task, s.index) in predicted for s in items):
            continue  # a split the file does not predict
        correct = 0
        for stored in items:
            key = (split, task, stored.index)
            seen.add(key)
            if key not in predicted:
                problems.add("missing predictions (counted wrong)", stored.key)
                continue
            try:
                correct += answers.judge(known[task], stored.item(), predicted[key])
            except ValueError as err:
                problems.add("answers an item cannot have (counted wrong)", f"{stored.key} ({shown(err, 120)})")
        lost = sum(1 for s, t, _ in damaged if (s, t) == (split, task))
        scores.append(Score(split, task, len(items), correct, lost))
    for key in predicted:
        if key[1] in known and key not in seen:
            problems.add("predictions for items OUT does not hold (not counted)", shown("/".join(map(str, key)), 120))
    if not scores:
        raise UserError(f"no prediction of {shown(str(predictions_file))} is for an item of {out}")
    return scores, problems
