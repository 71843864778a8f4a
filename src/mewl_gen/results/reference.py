"""The rows `mewl eval` prints beside a model's scores: every row each benchmark's paper reports for a
scored task, as one record per (row, task), grouped by paper and table with that table's own model names.

A record: {"kind": "paper", "benchmark", "paper", "table", "model", "condition", "task", "accuracy", "n",
"human"}; `n` is None where the paper does not give it. Another source of rows (a study of people run on
this dataset) adds records of its own kind with the same fields; `groups` keeps each source's tables apart.
"""
from __future__ import annotations

from mewl_gen.tasks import catalog

PAPER = "paper"


def paper_records(tasks: list[str]) -> list[dict]:
    """Every published row's figure for each of these tasks, in the benchmarks' and the papers' order."""
    wanted = set(tasks)
    found = []
    for bench in catalog.BENCHMARKS:
        for p in bench.published:
            for task, accuracy in p.accuracy.items():
                if task in wanted:
                    found.append({"kind": PAPER, "benchmark": bench.name, "paper": p.paper, "table": p.table,
                                  "model": p.who, "condition": p.condition.get(task, ""), "task": task,
                                  "accuracy": accuracy, "n": p.n.get(task), "human": p.human})
    return found


def groups(records: list[dict]) -> dict[tuple[str, str, str, str], list[dict]]:
    """(benchmark, kind, paper, table) -> its records, in the order first seen."""
    found: dict[tuple[str, str, str, str], list[dict]] = {}
    for r in records:
        found.setdefault((r["benchmark"], r["kind"], r["paper"], r["table"]), []).append(r)
    return found


def grid(records: list[dict]) -> tuple[list[str], dict[str, dict[str, dict]]]:
    """One table's records as (its tasks in order, model -> task -> record)."""
    tasks = list(dict.fromkeys(r["task"] for r in records))
    rows: dict[str, dict[str, dict]] = {}
    for r in records:
        rows.setdefault(r["model"], {})[r["task"]] = r
    return tasks, rows
