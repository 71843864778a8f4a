"""`mewl eval --plot`'s layout, measured on the drawn figure: no two marks overlap, no mark or interval
crosses a bar's label, whatever the reference rows and the people measured (--human) report."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.transforms import Bbox

from mewl_gen.results import plot
from mewl_gen.results.reference import paper_records
from mewl_gen.results.study.human import LABEL
from mewl_gen.tasks import catalog


def _rows(tasks: list[str], accuracy: float, human: dict | None = None) -> list[dict]:
    return [{"split": "test", "task": t, "benchmark": catalog.task(t).benchmark, "accuracy": accuracy,
             "interval": [max(0.0, accuracy - 0.1), min(1.0, accuracy + 0.1)], "n": 600, "planned": 600,
             "chance": catalog.task(t).chance if hasattr(catalog.task(t), "chance") else 0.2,
             **({LABEL: human} if human is not None else {})} for t in tasks]


def _drawn(monkeypatch, rows, records, who=""):
    """The figure `draw` makes, kept open to be measured."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    kept = []
    monkeypatch.setattr(pyplot, "close", kept.append)
    monkeypatch.setattr(pyplot.Figure, "savefig", lambda self, *a, **k: self.canvas.draw())
    plot.draw(rows, records, None, who)
    return kept[0]


def _marks(fig) -> list[Bbox]:
    """Every scattered mark's box on the canvas (a square around its area)."""
    ax = fig.axes[0]
    boxes = []
    for c in ax.collections:
        if not isinstance(c, PathCollection):
            continue
        side = np.sqrt(c.get_sizes()[0]) * fig.dpi / 72
        for x, y in ax.transData.transform(c.get_offsets()):
            boxes.append(Bbox.from_bounds(x - side / 2, y - side / 2, side, side))
    return boxes


def _labels(fig) -> list[Bbox]:
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    return [t.get_window_extent(renderer) for t in [*ax.texts, *ax.get_xticklabels(), ax.title] if t.get_text()]


def _apart(a: Bbox, b: Bbox, slack: float = 0.5) -> bool:
    return a.x1 <= b.x0 + slack or b.x1 <= a.x0 + slack or a.y1 <= b.y0 + slack or b.y1 <= a.y0 + slack


@pytest.mark.parametrize("benchmark", sorted(b.name for b in catalog.BENCHMARKS if b.published))
def test_the_papers_marks_stand_apart_and_clear_of_the_labels(benchmark, monkeypatch):
    """Every task of a benchmark whose papers report rows (MEWL's four models between 18 and 21.5 % once
    sat on each other), the model's bars low."""
    tasks = [t.name for t in catalog.benchmarks()[benchmark].tasks]
    records = paper_records(tasks)
    fig = _drawn(monkeypatch, _rows(tasks, 0.05), records)
    marks, labels = _marks(fig), _labels(fig)
    assert len(marks) == len(records)
    for a, b in itertools.combinations(marks, 2):
        assert _apart(a, b), (a, b)
    for mark, label in itertools.product(marks, labels):
        assert _apart(mark, label), (mark, label)


def test_a_crowd_of_equal_rows_is_dodged(monkeypatch):
    """As many rows as there are columns reporting 20 to 22 % on one task, on a figure of one column's
    width: all drawn, none on another."""
    records = [{"task": "shape", "model": f"m{k}", "paper": "P (x)", "table": "T1", "human": k < 2,
                "accuracy": 0.2 + 0.01 * (k % 3)} for k in range(len(plot.COLUMNS))]
    marks = _marks(_drawn(monkeypatch, _rows(["shape", "color"], 0.5), records))
    assert len(marks) == len(records)
    assert all(_apart(a, b) for a, b in itertools.combinations(marks, 2))


def test_people_measured_here_are_labelled_so_and_their_interval_misses_the_label(monkeypatch):
    human = {"accuracy": 0.06, "interval": [0.0, 0.3]}
    fig = _drawn(monkeypatch, _rows(["shape", "pragmatic"], 0.05, human), [])
    ax = fig.axes[0]
    assert any(h.get_label() == LABEL for h in ax.containers)
    renderer = fig.canvas.get_renderer()
    bars = [c for c in ax.containers if c.get_label() == LABEL][0]
    labels = _labels(fig)
    assert len(labels) == 2
    for line in bars.lines[2]:  # the interval's vertical segments
        for label in labels:
            assert _apart(line.get_window_extent(renderer), label), label


@pytest.mark.parametrize("benchmark", sorted(catalog.benchmarks()))
def test_the_bars_labels_stand_apart(benchmark, monkeypatch):
    """Every task of a benchmark on one figure, each split and task part-made (its label the longest)."""
    tasks = [t.name for t in catalog.benchmarks()[benchmark].tasks]
    rows = [{**r, "n": 5, "planned": 600} for r in _rows(tasks, 0.05)]
    fig = _drawn(monkeypatch, rows, [])
    labels = _labels(fig)
    assert len(labels) == len(tasks) + 1  # and the title
    legend = fig.axes[0].get_legend().get_window_extent(fig.canvas.get_renderer())
    assert all(_apart(a, b) for a, b in itertools.combinations([*labels, legend], 2))


def test_the_bar_names_who_answered_where_the_predictions_say(monkeypatch):
    """People's majority answers (mewl study score's predictions name them) are not drawn as "this model"."""
    fig = _drawn(monkeypatch, _rows(["shape"], 0.7), [], who="people (majority)")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["chance", "people (majority) (95 % interval)"]
    fig = _drawn(monkeypatch, _rows(["shape"], 0.7), [])
    assert "this model (95 % interval)" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("who", ["$\\frac{$", "$x^$", "\x1b[2Jmine$"])
def test_a_model_name_from_a_predictions_file_is_drawn_as_text_never_as_a_formula(monkeypatch, who):
    """The name comes from a file nobody here trusts: a malformed formula (matplotlib's mathtext) raised while
    drawing, and a control character was handed to the font."""
    fig = _drawn(monkeypatch, _rows(["shape"], 0.7), [], who=who)
    label = fig.axes[0].get_legend().get_texts()[-1].get_text()
    assert label == plot.plain(who) + " (95 % interval)" and "\x1b" not in label
