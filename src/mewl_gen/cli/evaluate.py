"""`mewl eval OUT PREDICTIONS.jsonl`: a model's accuracy per split and task, with its 95 % interval,
beside chance, the floors of the audit's deprived solvers and every row the benchmark's paper reports
(measured on the original data, not on OUT), per paper and table. results/scoring.py scores,
results/reference.py gathers the reference rows, results/plot.py draws; this prints."""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.results import answers, reference, scoring
from mewl_gen.results.predictions import item_key
from mewl_gen.results.study import human as study_human
from mewl_gen.store import reader
from mewl_gen.store.manifest import outside_datasets
from mewl_gen.store.status import Shortfall, incomplete_line, of_planned, shortfalls
from mewl_gen.tasks import catalog

from .audit import table

FORMATS = ("table", "markdown", "json", "csv")
PAPER = "†"  # marks a figure measured on the original data


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def rows(scores: list[scoring.Score], short: list[Shortfall] = ()) -> list[dict]:
    """One dict per split and task: the score, the items planned (`short`: the splits and tasks that hold
    fewer sound items than OUT's plan), the damaged items left out, chance and the floors."""
    known = catalog.tasks()
    planned = {(s.split, s.task): s.planned for s in short}
    out = []
    for s in scores:
        task = known[s.task]
        lo, hi = s.interval
        out.append({"benchmark": task.benchmark, "split": s.split, "task": s.task, "n": s.n,
                    "planned": planned.get((s.split, s.task), s.n), "correct": s.correct,
                    "accuracy": s.accuracy, "interval": [lo, hi], "damaged": s.damaged,
                    "chance": task.solver.chance, "floors": dict(task.solver.floors)})
    return out


def references(found: list[dict]) -> list[dict]:
    """The reference records of the scored tasks (results.reference): the papers' rows."""
    return reference.paper_records(list(dict.fromkeys(r["task"] for r in found)))


def overall(found: list[dict], problems: scoring.Problems) -> dict:
    """Every scored item together (the rows of `rows`); `damaged`: OUT's damaged items of the predicted tasks,
    not scored."""
    n, correct = sum(r["n"] for r in found), sum(r["correct"] for r in found)
    lo, hi = scoring.wilson(correct, n)
    return {"n": n, "planned": sum(r["planned"] for r in found), "correct": correct, "accuracy": correct / n,
            "interval": [lo, hi], "damaged": len(problems.damaged)}


def shortfall(found: list[dict]) -> str:
    """'5 of 600 planned episodes' where the scored rows hold fewer items than OUT's plans ask for, else ''."""
    n, planned = sum(r["n"] for r in found), sum(r["planned"] for r in found)
    return of_planned(n, planned, catalog.noun([r["task"] for r in found])) if planned > n else ""


def _cells(r: dict) -> dict:
    lo, hi = r["interval"]
    return {"split": r["split"], "task": r["task"], "n": str(r["n"]), "planned": str(r["planned"]),
            "accuracy": _pct(r["accuracy"]),
            "95 % interval": f"[{_pct(lo)}, {_pct(hi)}]", "damaged (not scored)": str(r["damaged"]),
            "chance": _pct(r["chance"]), "floors": "; ".join(f"{k} {_pct(v)}" for k, v in r["floors"].items()) or "-",
            **_human_cell(r)}


def _human_cell(r: dict) -> dict:
    """`--human`: people measured on this dataset (mewl study score), beside the model's row."""
    if study_human.LABEL not in r:
        return {}
    h = r[study_human.LABEL]
    return {study_human.LABEL: "-" if h is None else f"{_pct(h['accuracy'])} [{_pct(h['interval'][0])}, "
                                                     f"{_pct(h['interval'][1])}]"}


def _reference_table(records: list[dict], markdown: bool) -> str:
    """One paper's table: its own model names as rows, the scored tasks it reports as columns."""
    tasks, by_model = reference.grid(records)
    first = records[0]
    cells = [{"model": model, **{t: _pct(found[t]["accuracy"]) if t in found else "-" for t in tasks}}
             for model, found in by_model.items()]
    conditions = "; ".join(dict.fromkeys(f"{r['task']}: {r['condition']}" for r in records if r["condition"]))
    title = f"{PAPER} {first['paper']}, {first['table']}" + (f" ({conditions})" if conditions else "")
    return f"{title}\n\n{table(('model', *tasks), cells, markdown)}"


def tables(found: list[dict], records: list[dict], markdown: bool) -> str:
    """One table per benchmark, then each reference table of its scored tasks with that table's own rows."""
    parts = []
    grouped = reference.groups(records)
    for bench in catalog.BENCHMARKS:
        mine = [r for r in found if r["benchmark"] == bench.name]
        if not mine:
            continue
        part = f"{bench.summary}\n\n{table(tuple(_cells(mine[0])), [_cells(r) for r in mine], markdown)}"
        theirs = [_reference_table(recs, markdown) for (b, *_), recs in grouped.items() if b == bench.name]
        if theirs:
            part += (f"\n\n{PAPER} reported by the paper, measured on the original data, not on this dataset:\n\n"
                     + "\n\n".join(theirs))
        parts.append(part)
    return "\n\n".join(parts)


CSV_COLUMNS = ("row", "benchmark", "split", "task", "n", "planned", "correct", "accuracy", "low95", "high95", "damaged", "chance",
               "floors", "paper", "table", "model", "condition")


def as_csv(found: list[dict], records: list[dict]) -> str:
    """Long form: a "score" row per split and task, then a row per reference figure (its `row` the record's
    kind, "paper"); a column a row has no value for is empty."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in found:
        writer.writerow({"row": "score", "benchmark": r["benchmark"], "split": r["split"], "task": r["task"],
                         "n": r["n"], "planned": r["planned"], "correct": r["correct"],
                         "accuracy": f"{r['accuracy']:.6f}",
                         "low95": f"{r['interval'][0]:.6f}", "high95": f"{r['interval'][1]:.6f}",
                         "damaged": r["damaged"], "chance": f"{r['chance']:.6f}", "floors": json.dumps(r["floors"])})
    for r in found:
        h = r.get(study_human.LABEL)
        if h is not None:
            writer.writerow({"row": study_human.LABEL, "benchmark": r["benchmark"], "split": r["split"],
                             "task": r["task"], "accuracy": f"{h['accuracy']:.6f}", "low95": f"{h['interval'][0]:.6f}",
                             "high95": f"{h['interval'][1]:.6f}"})
    for rec in records:
        writer.writerow({"row": rec["kind"], "benchmark": rec["benchmark"], "task": rec["task"],
                         "n": "" if rec["n"] is None else rec["n"], "accuracy": f"{rec['accuracy']:.6f}",
                         "paper": rec["paper"], "table": rec["table"], "model": rec["model"],
                         "condition": rec["condition"]})
    return buffer.getvalue()


def example(out: Path) -> str:
    """One valid prediction line per task of OUT: its first sound item's key and its right answer."""
    found = reader.read(out)
    known = catalog.tasks()
    lines, done = [], set()
    for (split, task), items in sorted(found.items.items(), key=lambda kv: (list(known).index(kv[0][1]), kv[0][0])):
        if task not in done:
            done.add(task)
            stored = items[0]
            answer = answers.example(known[task], stored.item())
            lines.append(json.dumps({"key": item_key(split, task, stored.index), "answer": answer}))
    if not lines:
        raise UserError(f"{out} holds no sound items")
    return "\n".join(lines)


def _check_plot(out: Path, path: Path, force: bool) -> None:
    """Refuse, before any work, a plot file that could not be written or would overwrite."""
    from mewl_gen.results.plot import SUFFIXES

    if path.suffix.lower() not in SUFFIXES:
        raise UserError(f"--plot {path}: expected a file ending in {', '.join(SUFFIXES)}")
    if not path.parent.is_dir():
        raise UserError(f"--plot {path}: {path.parent} is not a folder")
    outside_datasets(path, "--plot", out)
    if path.exists() and not force:
        raise UserError(f"--plot {path} exists; give --force to overwrite it")


def cmd_eval(args) -> int:
    out = Path(args.out)
    if args.example:
        print(example(out))
        return 0
    if args.predictions is None:
        raise UserError("expected PREDICTIONS.jsonl (or --example to print a valid line per task of OUT)")
    predictions = Path(args.predictions)
    if args.plot is not None:
        _check_plot(out, Path(args.plot), args.force)
    people = None if args.human is None else study_human.read_row(Path(args.human))  # before any work
    scores, problems = scoring.score(out, predictions)
    # OUT's plans say how many items each scored split and task should hold: a part-made dataset is named so.
    scored = {(s.split, s.task): s.n for s in scores}
    short = [s for s in shortfalls(out, scored) if (s.split, s.task) in scored]
    for line in [*problems.lines(), *filter(None, [incomplete_line(short)])]:
        print(f"mewl eval: {line}", file=sys.stderr)
    found = rows(scores, short)
    if people is not None:
        study_human.attach(found, people)
    records = references(found)
    if args.format == "json":
        print(json.dumps({"tasks": found, "overall": overall(found, problems), "published": records,
                          "problems": problems.lines()}, indent=2))
    elif args.format == "csv":
        print(as_csv(found, records), end="")
    else:
        whole = overall(found, problems)
        lo, hi = whole["interval"]
        print(tables(found, records, args.format == "markdown"))
        print(f"\noverall: {_pct(whole['accuracy'])} [{_pct(lo)}, {_pct(hi)}] over {whole['n']} items"
              + (f"; incomplete dataset: {shortfall(found)}" if shortfall(found) else "")
              + (f"; {whole['damaged']} damaged item(s) not scored" if whole["damaged"] else ""))
    if args.plot is not None:
        from mewl_gen.results.plot import draw

        draw(found, records, Path(args.plot), problems.model or "")
    return 1 if problems.kinds else 0


def register(sub) -> None:
    s = sub.add_parser("eval", help="score a model's predictions (JSON lines) against a dataset's answers",
                       description="Score a model's predictions against a dataset's answers: accuracy per split "
                       "and task with its 95 % interval, beside chance, the deprived solvers' floors and every row "
                       "the benchmark's paper reports. Only items whose files all match their record are scored; a "
                       "damaged item is named and counted apart. An answer may take the item's own form or the "
                       "export's label (a class name or its index).")
    s.add_argument("out", metavar="OUT", help="the dataset folder")
    s.add_argument("predictions", metavar="PREDICTIONS.jsonl", nargs="?", default=None,
                   help='one JSON object per line: {"key": "test/shape/000017", "answer": ...} (the export\'s key) '
                   'or {"split": ..., "task": ..., "index": ..., "answer": ...}')
    s.add_argument("--example", action="store_true", help="print one valid prediction line per task of OUT and stop")
    s.add_argument("--format", choices=FORMATS, default="table", help="how to print the scores (default table)")
    s.add_argument("--plot", default=None, metavar="FILE.png", help="also draw accuracy per task against chance and "
                   "the paper's rows (.png, .pdf or .svg; outside OUT)")
    s.add_argument("--force", action="store_true", help="--plot: overwrite an existing file")
    s.add_argument("--human", default=None, metavar="HUMAN.json", help="also show people measured on this dataset: "
                   "the human.json `mewl study score` writes, as the row \"human (this dataset)\"")
    s.set_defaults(func=cmd_eval)
