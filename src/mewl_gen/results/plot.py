"""`mewl eval --plot FILE`: a figure a paper can print at column width.

One bar per scored split and task (accuracy, its 95 % Wilson interval, the
value and n written under it with its task), chance as a dashed line across
each bar, and every reference row (results.reference: the paper's people and
models) as a labelled mark: people as stars, each model its own marker, rows
of nearly the same accuracy side by side (`dodge`); people measured on this
dataset (--human) left of them. A part-made dataset (fewer items than its
plan) says so in the title and under each short bar. The legend sits below
the axes, outside the data. The file's suffix picks the format (.png, .pdf,
.svg); a PNG is drawn at 300 dpi.
"""
from __future__ import annotations

from pathlib import Path

from mewl_gen.errors import shown
from mewl_gen.store.status import of_planned
from mewl_gen.tasks import catalog

from .study.human import LABEL

SUFFIXES = (".png", ".pdf", ".svg")
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "p", "d")
HUMANS = ("#c44e52", "#e8a33d", "#8c564b", "#e377c2", "#7f7f7f")  # people: stars, one colour per row
WIDTH = 3.4  # inches: one column of a two-column paper
FONT = 8
HEIGHT = 3.2  # inches
# The reference marks of a bar stand in columns beside its centre, each mark in the first column where no
# other lies within CLEAR of its accuracy: rows that report nearly the same accuracy stand side by side
# rather than on each other (six within CLEAR, as many as the papers' most crowded task has). Columns and
# CLEAR hold the largest mark (a star of STAR) apart at this size; the bar's own label is under its tick,
# so nothing is written where marks stand.
COLUMNS = (0.12, 0.24, 0.36, 0.48, -0.12, -0.24)
CLEAR = 0.05
STAR, MARK = 28, 16  # points squared
HUMAN_AT = -0.36  # people measured on this dataset (--human): left of every column


def dodge(values: list[float]) -> list[float]:
    """Each value's offset from its bar's centre (COLUMNS), in the order given."""
    placed: list[list[float]] = [[] for _ in COLUMNS]
    out = [0.0] * len(values)
    for k in sorted(range(len(values)), key=lambda k: values[k]):
        column = next((c for c, taken in enumerate(placed) if all(abs(values[k] - v) >= CLEAR for v in taken)),
                      min(range(len(COLUMNS)), key=lambda c: len(placed[c])))
        placed[column].append(values[k])
        out[k] = COLUMNS[column]
    return out


def _tick(r: dict) -> str:
    """A bar's label: its task and split, then its accuracy and n (of how many planned, where fewer)."""
    short = f"/{r['planned']}" if r["planned"] > r["n"] else ""  # a part-made split and task says so
    return f"{r['task']}\n{r['split']}, {100 * r['accuracy']:.0f}%\nn={r['n']}{short}"


def plain(text: str) -> str:
    """Text from a file nobody here trusts (a predictions file's model name) as a figure shows it: escaped as
    the terminal escapes it (no control character, cut) and with each `$` escaped, so that matplotlib's
    mathtext never parses it (a malformed formula there is an exception while drawing)."""
    return shown(text, 60).replace("$", r"\$")


def draw(rows: list[dict], records: list[dict], path: Path, who: str = "") -> None:
    """Draw the rows' bars (evaluate.rows) and the reference records of their tasks into `path`; `who`
    answered, where the predictions name them (people's majority answers, from mewl study score), else
    "this model"."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    pyplot.rcParams.update({"font.size": FONT, "axes.titlesize": FONT, "legend.fontsize": FONT - 1})
    x = list(range(len(rows)))
    fig, ax = pyplot.subplots(figsize=(max(WIDTH, 0.62 * len(rows) + 1.0), HEIGHT))
    acc = [r["accuracy"] for r in rows]
    err = [[a - r["interval"][0] for a, r in zip(acc, rows)], [r["interval"][1] - a for a, r in zip(acc, rows)]]
    ax.bar(x, acc, width=0.7, yerr=err, capsize=2, color="#9ab8d6", edgecolor="#2f5d8a", linewidth=0.6,
           error_kw={"elinewidth": 0.8, "ecolor": "#2f5d8a"}, label=f"{plain(who) or 'this model'} (95 % interval)",
           zorder=2)
    for i, r in enumerate(rows):
        ax.hlines(r["chance"], i - 0.42, i + 0.42, colors="black", linestyles=(0, (3, 2)), linewidth=1.0,
                  label="chance" if i == 0 else None, zorder=3)
    styles: dict[str, tuple[str, str]] = {}
    palette = pyplot.get_cmap("tab10").colors
    for i, r in enumerate(rows):
        mine = [rec for rec in records if rec["task"] == r["task"]]
        for rec, offset in zip(mine, dodge([rec["accuracy"] for rec in mine])):
            label = f"{rec['model']} ({rec['paper'].split(' (')[0]} {rec['table']})"
            if label not in styles:
                k = sum(1 for s in styles.values() if (s[0] == "*") == rec["human"])
                styles[label] = ("*", HUMANS[k % len(HUMANS)]) if rec["human"] else (MARKERS[k % len(MARKERS)],
                                                                                      palette[k % len(palette)])
            marker, color = styles[label]
            seen = any(h.get_label() == label for h in ax.collections)
            ax.scatter([i + offset], [rec["accuracy"]], marker=marker, s=STAR if marker == "*" else MARK, color=color,
                       edgecolors="black", linewidths=0.3, zorder=4, label=None if seen else label)
    ours = [(i, r[LABEL]) for i, r in enumerate(rows) if r.get(LABEL)]  # `mewl eval --human` (mewl study)
    if ours:
        acc = [h["accuracy"] for _, h in ours]
        err = [[a - h["interval"][0] for a, (_, h) in zip(acc, ours)], [h["interval"][1] - a for a, (_, h) in zip(acc, ours)]]
        ax.errorbar([i + HUMAN_AT for i, _ in ours], acc, yerr=err, fmt="D", markersize=3, color="#55a868", capsize=2,
                    elinewidth=0.8, label=LABEL, zorder=5)
    # Upright labels where more than two bars share the width: a slanted label's neighbour stands in its box.
    upright = len(rows) > 2
    ax.set_xticks(x, [_tick(r) for r in rows], fontsize=FONT - 1, rotation=90 if upright else 0, ha="center",
                  va="top")
    ax.set_ylim(0, 1.05)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("accuracy")
    n, planned = sum(r["n"] for r in rows), sum(r["planned"] for r in rows)
    if planned > n:  # the figure travels without the table: it says itself that the dataset is part-made
        ax.set_title(f"incomplete dataset: {of_planned(n, planned, catalog.noun([r['task'] for r in rows]))}",
                     color="#b03030")
    ax.spines[["top", "right"]].set_visible(False)
    fig.canvas.draw()  # the labels' extent, known once drawn: the legend goes under the lowest
    below = min(ax.transAxes.inverted().transform(t.get_window_extent().p0)[1] for t in ax.get_xticklabels())
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, below - 0.03), ncol=2, frameon=False,
              title="marks: reported on the original data" if styles else None, title_fontsize=FONT - 1)
    fig.savefig(path, dpi=300, bbox_inches="tight")
    pyplot.close(fig)
