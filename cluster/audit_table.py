"""The figures and the table of `mewl audit` (the command is cluster/audit.py).

Per task: the independent oracle, the text-only guesser, every deprived
exact solver (solvers/deprived.py), the learned deprived baselines
(solvers/learned.py), and chi-square tests of the answer position and of the
concepts each solver module's balance() reports.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from pydantic import ValidationError
from scipy.stats import chisquare

from scenes.spec import TASKS, Episode

from . import options
from .dataset import episode_index
from .errors import UserError
from .solvers import deprived, learned, solver_module

Z95 = 1.96
# The verdict: a baseline fails when even its 99.9 % interval lies above
# chance. Stricter than the 95 % shown, since an audit makes some forty
# comparisons and one would cross a 95 % bound by luck every other run.
Z_VERDICT = 3.29
BALANCE_P = 1e-4  # the test suite's bound for uniformity


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def uniform_p(observed: list, support: tuple) -> float:
    counts = [observed.count(v) for v in support]
    if sum(counts) != len(observed):
        return 0.0  # a value outside the support is never balanced
    return float(chisquare(counts).pvalue)


def read_json(path: Path) -> dict:
    """A dataset file an audit reads; a damaged or missing one is one line naming it."""
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path}: cannot be read as JSON ({err}); `mewl verify OUT` names damaged items") from None


def sound_files(out: Path, paths: list[Path]) -> list[Path]:
    """The spec files of items an audit may read: a damaged or incomplete
    item is refused in one line, never audited nor silently left out."""
    from .verify import damaged_line, sound

    bad = sound(out, [p.parent for p in paths])[1]
    if bad:
        raise UserError(f"{out} holds {damaged_line(bad)}; an audit reads sound items only")
    return paths


def benchmark_items(out: Path, benchmark: str) -> dict[tuple[str, str], list[Path]]:
    """(split, task) -> the item.json of every item folder OUT/<split>/<benchmark>-<task>/<i>/, by index."""
    found: dict[tuple[str, str], list[Path]] = {}
    paths = sound_files(out, [p for p in out.glob(f"*/{benchmark}-*/*/item.json")
                              if options.SPLIT_PATTERN.match(p.parts[-4]) and episode_index(p.parts[-2]) is not None])
    for path in sorted(paths, key=lambda p: (p.parts[-4:-2], int(p.parts[-2]))):
        found.setdefault((path.parts[-4], path.parts[-3]), []).append(path)
    return found


def audit_splits_and_tasks(out: Path, benchmark: str, what: str, columns: tuple[str, ...], audit_task,
                           workers: int | None) -> int:
    """One row per split and task of a benchmark's items, printed; the exit status."""
    found = benchmark_items(out, benchmark)
    if not found:
        raise UserError(f"{out} holds no {what} (no <split>/{benchmark}-<task>/<i>/item.json)")
    jobs = options.workers(workers)
    return print_verdicts(columns, [audit_task(split, task, paths, jobs) for (split, task), paths in found.items()])


def print_verdicts(columns: tuple[str, ...], rows: list[dict]) -> int:
    """A benchmark audit's rows as one Markdown table; the exit status (1: a row's verdict is not ok)."""
    def cell(value) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(cell(row[c]) for c in columns) + " |")
    return 0 if all(r["verdict"] == "ok" for r in rows) else 1


def episode_paths(out: Path) -> dict[str, list[Path]]:
    """Every OUT/<split>/<task>/<i>/episode.json, by task, in (split, index) order."""
    if not out.is_dir():
        raise UserError(f"{out} is not a folder; expected a dataset made by mewl sample or mewl render")
    found = sound_files(out, [p for p in out.glob("*/*/*/episode.json")
                              if p.parts[-3] in TASKS and episode_index(p.parts[-2]) is not None])
    by_task: dict[str, list[Path]] = {}
    for path in sorted(found, key=lambda p: (p.parts[-4], p.parts[-3], int(p.parts[-2]))):
        by_task.setdefault(path.parts[-3], []).append(path)
    if not by_task:
        raise UserError(f"{out} holds no episodes (no <split>/<task>/<i>/episode.json)")
    return by_task


def read(task: str, paths: list[Path]) -> list[Episode]:
    episodes = []
    for path in paths:
        try:
            ep = Episode.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as err:
            raise UserError(f"{path} is not a readable episode ({str(err).splitlines()[0]})") from None
        if ep.task != task:
            raise UserError(f"{path} holds a {ep.task} episode in the {task} folder")
        episodes.append(ep)
    return episodes


def _rate(hits) -> dict:
    hits = np.asarray(hits, dtype=bool)
    return {"hits": int(hits.sum()), "n": len(hits)}


def _oracle_answers(module, ep: Episode) -> bool:
    try:
        return module.solve(ep.model_copy(update={"lexicon": {}})) == ep.answer
    except Exception:  # an oracle that cannot read the episode has missed it
        return False


def audit_task(task: str, paths: list[Path], train_paths: list[Path] | None) -> dict:
    """Every figure of one table row (episodes are read here, in the worker,
    rather than sent to it: pickling them costs more than parsing)."""
    episodes = read(task, paths)
    train = read(task, train_paths) if train_paths else None
    module = solver_module(task)
    rng = np.random.default_rng(0)
    blind = [ep.model_copy(update={"lexicon": {}}) for ep in episodes]
    row: dict = {"task": task, "n": len(episodes), "chance": module.CHANCE,
                 "bars": {name: chance_of(module, name) for name in BASELINES}}
    oracle_hits = [_oracle_answers(module, ep) for ep in episodes]
    row["oracle"] = _rate(oracle_hits)
    row["text-only"] = _rate([module.text_only_guess(b, rng) == ep.answer for b, ep in zip(blind, episodes)])
    for d in deprived.DEPRIVED[task]:
        solver = deprived.exact_solver(task, d)
        row[f"{d} exact"] = _rate([solver(deprived.view(ep, d), rng) == ep.answer for ep in episodes])
        found = (learned.hits(task, d, train, episodes) if train
                 else learned.cross_validated_hits(task, d, episodes))
        row[f"{d} learned"] = None if found is None else _rate(found)
    row["position p"] = uniform_p([ep.answer_index for ep in episodes], tuple(range(5)))
    balance: dict[str, tuple[list, tuple]] = {}
    for ep, answered in zip(episodes, oracle_hits):
        if not answered:  # balance() reads the oracle's answer; the miss is reported already
            continue
        for name, (values, support) in module.balance(ep).items():
            balance.setdefault(name, ([], support))[0].extend(values)
    ps = {name: uniform_p(values, support) for name, (values, support) in balance.items()} or {"nothing": 0.0}
    worst = min(ps, key=ps.get)
    row["balance p"], row["balance worst"] = ps[worst], worst
    row["failures"] = _failures(row)
    return row


BASELINES = ("text-only", *(f"{d} {how}" for d in deprived.TITLE for how in ("exact", "learned")))


def chance_of(module, baseline: str) -> float:
    """The analytic chance a baseline is judged against: the deprivation's own
    (`NO_HAND_CHANCE`, ... in the task's solver module) where the task's
    construction sets one, else the task's text-only chance."""
    if baseline == "text-only":
        return module.CHANCE
    return getattr(module, f"{baseline.split()[0].upper()}_CHANCE", module.CHANCE)


def _failures(row: dict) -> list[str]:
    out = []
    oracle = row["oracle"]
    if oracle["hits"] < oracle["n"]:
        out.append(f"oracle missed {oracle['n'] - oracle['hits']}")
    for name in BASELINES:
        rate = row.get(name)
        if rate and wilson(rate["hits"], rate["n"], Z_VERDICT)[0] > row["bars"][name]:
            out.append(f"{HEADERS.get(name, name)} above chance")
    if row["position p"] < BALANCE_P:
        out.append("answer position unbalanced")
    if row["balance p"] < BALANCE_P:
        out.append(f"{row['balance worst']} unbalanced")
    return out


COLUMNS = ("task", "n", "oracle", *BASELINES, "chance", "position p", "balance p", "verdict")
# Column titles in the README's words; an exact solver's column is the bare deprivation.
HEADERS = {f"{d} {how}": name + (" learned" if how == "learned" else "")
           for d, name in deprived.TITLE.items() for how in ("exact", "learned")}


def _cell(row: dict, column: str) -> str:
    value = row.get(column)
    if column in ("oracle", *BASELINES):
        if value is None:
            return "-"
        lo, hi = wilson(value["hits"], value["n"])
        bar = row["bars"].get(column, row["chance"])
        own = f" (chance {100 * bar:.1f})" if column != "oracle" and bar != row["chance"] else ""
        return f"{100 * value['hits'] / value['n']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]{own}"
    if column == "chance":
        return f"{100 * value:.1f}"
    if column in ("position p", "balance p"):
        return f"{value:.3f}" + (f" ({row['balance worst']})" if column == "balance p" else "")
    if column == "verdict":
        return "; ".join(row["failures"]) or "ok"
    return str(value)


def table(rows: list[dict], markdown: bool) -> str:
    """One table, task rows; accuracies in % with their 95 % interval."""
    header = [HEADERS.get(c, c) for c in COLUMNS]
    cells = [[_cell(r, c) for c in COLUMNS] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])
    widths = [max(len(x) for x in col) for col in zip(header, *cells)]
    fmt = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, cells)])


def run(out: Path, train_dir: Path | None, markdown: bool, workers: int) -> int:
    episodes = episode_paths(out)
    train = episode_paths(train_dir) if train_dir else {}
    if train_dir and (missing := [t for t in episodes if len(train.get(t, ())) < learned.MIN_TRAIN]):
        raise UserError(f"{train_dir} has fewer than {learned.MIN_TRAIN} episodes of {', '.join(missing)}")
    tasks = [t for t in TASKS if t in episodes]
    rows = Parallel(n_jobs=workers)(delayed(audit_task)(t, episodes[t], train.get(t)) for t in tasks)
    print(table(rows, markdown))
    print("\naccuracy % [95 % interval]; query-only, no-hand, no-context-language: exact deprived solvers; "
          "learned: a model on hand-made features; chance: the task's text-only analytic chance, or the "
          "deprivation's own where its construction sets one (in brackets after the figure); "
          "the verdict fails a baseline whose 99.9 % interval lies above its chance")
    return 1 if any(r["failures"] for r in rows) else 0


