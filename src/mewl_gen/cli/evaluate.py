"""`mewl eval OUT PREDICTIONS.jsonl`: a model's accuracy per split and task, with its 95 % interval,
beside chance, the floors of the audit's deprived solvers and the rows the benchmark's paper
reports (measured on the original data, not on OUT). results/scoring.py scores; this prints."""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.results import scoring
from mewl_gen.results.study import human as study_human
from mewl_gen.tasks import catalog
from mewl_gen.tasks.benchmark import Benchmark

from .audit import table

FORMATS = ("table", "markdown", "json", "csv")
PAPER = "†"  # marks a column measured on the original data


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def rows(scores: list[scoring.Score]) -> list[dict]:
    """One dict per split and task: the score, chance, floors and the paper's rows (None where not reported)."""
    known = catalog.tasks()
    out = []
    for s in scores:
        task = known[s.task]
        bench = catalog.benchmarks()[task.benchmark]
        lo, hi = s.interval
        out.append({"benchmark": bench.name, "split": s.split, "task": s.task, "n": s.n, "correct": s.correct,
                    "accuracy": s.accuracy, "interval": [lo, hi], "chance": task.solver.chance,
                    "floors": dict(task.solver.floors),
                    "published": {f"{p.who} ({p.source})": p.accuracy.get(s.task) for p in bench.published}})
    return out


def overall(scores: list[scoring.Score]) -> dict:
    n, correct = sum(s.n for s in scores), sum(s.correct for s in scores)
    lo, hi = scoring.wilson(correct, n)
    return {"n": n, "correct": correct, "accuracy": correct / n, "interval": [lo, hi]}


def _cells(r: dict, bench: Benchmark) -> dict:
    lo, hi = r["interval"]
    cells = {"split": r["split"], "task": r["task"], "n": str(r["n"]), "accuracy": _pct(r["accuracy"]),
             "95 % interval": f"[{_pct(lo)}, {_pct(hi)}]", "chance": _pct(r["chance"]),
             "floors": "; ".join(f"{k} {_pct(v)}" for k, v in r["floors"].items()) or "-"}
    cells |= {f"{p.who} {PAPER}": _pct(p.accuracy.get(r["task"])) for p in bench.published}
    if study_human.LABEL in r:  # `--human`: people measured on this dataset (mewl study score)
        h = r[study_human.LABEL]
        lo, hi = (None, None) if h is None else h["interval"]
        cells[study_human.LABEL] = "-" if h is None else f"{_pct(h['accuracy'])} [{_pct(lo)}, {_pct(hi)}]"
    return cells


def tables(found: list[dict], markdown: bool) -> str:
    """One table per benchmark, with the paper's rows as columns and their sources under it."""
    parts = []
    for bench in catalog.BENCHMARKS:
        mine = [r for r in found if r["benchmark"] == bench.name]
        if not mine:
            continue
        cells = [_cells(r, bench) for r in mine]
        sources = sorted({p.source for p in bench.published})
        note = (f"{PAPER} reported by the paper, measured on the original data, not on this dataset: "
                f"{'; '.join(sources)}" if sources else "")
        parts.append(f"{bench.summary}\n\n{table(tuple(cells[0]), cells, markdown)}" + (f"\n\n{note}" if note else ""))
    return "\n\n".join(parts)


def as_csv(found: list[dict]) -> str:
    buffer = io.StringIO()
    names = sorted({k for r in found for k in r["published"]})
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["benchmark", "split", "task", "n", "correct", "accuracy", "low95", "high95", "chance", "floors",
                     *[f"published: {name}" for name in names], *_human_head(found)])
    for r in found:
        writer.writerow([r["benchmark"], r["split"], r["task"], r["n"], r["correct"], f"{r['accuracy']:.6f}",
                         f"{r['interval'][0]:.6f}", f"{r['interval'][1]:.6f}", f"{r['chance']:.6f}",
                         json.dumps(r["floors"]),
                         *["" if r["published"].get(name) is None else f"{r['published'][name]:.6f}" for name in names],
                         *_human_cells(r)])
    return buffer.getvalue()


def _human_head(found: list[dict]) -> list[str]:
    if not found or study_human.LABEL not in found[0]:
        return []
    return [f"{study_human.LABEL}: {c}" for c in ("accuracy", "low95", "high95")]


def _human_cells(r: dict) -> list[str]:
    if study_human.LABEL not in r:
        return []
    h = r[study_human.LABEL]
    return ["", "", ""] if h is None else [f"{x:.6f}" for x in (h["accuracy"], *h["interval"])]


def plot(found: list[dict], path: Path) -> None:
    """Accuracy per split and task with its interval, against chance and the paper's human row."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    labels = [f"{r['task']}\n{r['split']}" for r in found]
    x = range(len(found))
    fig, ax = pyplot.subplots(figsize=(max(6.0, 0.9 * len(found)), 4.0))
    acc = [r["accuracy"] for r in found]
    err = [[a - r["interval"][0] for a, r in zip(acc, found)], [r["interval"][1] - a for a, r in zip(acc, found)]]
    ax.bar(x, acc, yerr=err, capsize=3, color="#4878a8", label="accuracy (95 % interval)")
    ax.scatter(x, [r["chance"] for r in found], marker="_", s=400, color="black", label="chance", zorder=3)
    human = [next((p.accuracy[r["task"]] for p in catalog.benchmarks()[r["benchmark"]].published
                   if p.human and r["task"] in p.accuracy), None) for r in found]
    if any(h is not None for h in human):
        ax.scatter([i for i, h in zip(x, human) if h is not None], [h for h in human if h is not None], marker="*",
                   s=120, color="#c44e52", label=f"human {PAPER} (original data)", zorder=4)
    ours = [(i, r[study_human.LABEL]) for i, r in zip(x, found) if r.get(study_human.LABEL)]
    if ours:
        acc = [h["accuracy"] for _, h in ours]
        err = [[a - h["interval"][0] for a, (_, h) in zip(acc, ours)],
               [h["interval"][1] - a for a, (_, h) in zip(acc, ours)]]
        ax.errorbar([i for i, _ in ours], acc, yerr=err, fmt="D", color="#55a868", capsize=3, label=study_human.LABEL,
                    zorder=5)
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy")
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot.close(fig)


def cmd_eval(args) -> int:
    out, predictions = Path(args.out), Path(args.predictions)
    if args.plot is not None and not Path(args.plot).parent.is_dir():
        raise UserError(f"--plot {args.plot}: {Path(args.plot).parent} is not a folder")
    people = None if args.human is None else study_human.read_row(Path(args.human))  # before any work
    scores, problems = scoring.score(out, predictions)
    for line in problems.lines():
        print(f"mewl eval: {line}", file=sys.stderr)
    found = rows(scores)
    if people is not None:
        study_human.attach(found, people)
    if args.format == "json":
        print(json.dumps({"tasks": found, "overall": overall(scores), "problems": problems.lines()}, indent=2))
    elif args.format == "csv":
        print(as_csv(found), end="")
    else:
        whole = overall(scores)
        lo, hi = whole["interval"]
        print(tables(found, args.format == "markdown"))
        print(f"\noverall: {_pct(whole['accuracy'])} [{_pct(lo)}, {_pct(hi)}] over {whole['n']} items")
    if args.plot is not None:
        plot(found, Path(args.plot))
    return 1 if problems.kinds else 0


def register(sub) -> None:
    s = sub.add_parser("eval", help="score a model's predictions (JSON lines) against a dataset's answers")
    s.add_argument("out", help="the dataset folder")
    s.add_argument("predictions", metavar="PREDICTIONS.jsonl",
                   help='one JSON object per line: {"split": ..., "task": ..., "index": ..., "answer": ...}')
    s.add_argument("--format", choices=FORMATS, default="table", help="how to print the scores (default table)")
    s.add_argument("--plot", default=None, metavar="FILE.png", help="also draw accuracy per task against chance and "
                   "the paper's human row")
    s.add_argument("--human", default=None, metavar="HUMAN.json", help="also show people measured on this dataset: "
                   "the human.json `mewl study score` writes, as the row \"human (this dataset)\"")
    s.set_defaults(func=cmd_eval)
