"""`mewl eval --plot FILE`: a figure a paper can print at column width.

One bar per scored split and task (accuracy, its 95 % Wilson interval, the
value and n written on it), chance as a dashed line across each bar, and
every reference row (results.reference: the paper's people and models) as a
labelled mark: people as stars, each model its own marker. A part-made
dataset (fewer items than its plan) says so in the title and on each short
bar. The legend sits below the axes, outside the data. The file's suffix
picks the format (.png, .pdf, .svg); a PNG is drawn at 300 dpi.
"""
from __future__ import annotations

from pathlib import Path

from mewl_gen.store.status import of_planned
from mewl_gen.tasks import catalog

from .study.human import LABEL

SUFFIXES = (".png", ".pdf", ".svg")
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "p", "d")
HUMANS = ("#c44e52", "#e8a33d", "#8c564b", "#e377c2", "#7f7f7f")  # people: stars, one colour per row
WIDTH = 3.4  # inches: one column of a two-column paper
FONT = 8


def draw(rows: list[dict], records: list[dict], path: Path) -> None:
    """Draw the rows' bars (evaluate.rows) and the reference records of their tasks into `path`."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    pyplot.rcParams.update({"font.size": FONT, "axes.titlesize": FONT, "legend.fontsize": FONT - 1})
    x = list(range(len(rows)))
    fig, ax = pyplot.subplots(figsize=(max(WIDTH, 0.62 * len(rows) + 1.0), 3.2))
    acc = [r["accuracy"] for r in rows]
    err = [[a - r["interval"][0] for a, r in zip(acc, rows)], [r["interval"][1] - a for a, r in zip(acc, rows)]]
    ax.bar(x, acc, width=0.7, yerr=err, capsize=2, color="#9ab8d6", edgecolor="#2f5d8a", linewidth=0.6,
           error_kw={"elinewidth": 0.8, "ecolor": "#2f5d8a"}, label="this model (95 % interval)", zorder=2)
    for i, r in enumerate(rows):
        ax.hlines(r["chance"], i - 0.42, i + 0.42, colors="black", linestyles=(0, (3, 2)), linewidth=1.0,
                  label="chance" if i == 0 else None, zorder=3)
        short = f"\nof {r['planned']}" if r["planned"] > r["n"] else ""  # a part-made split and task says so
        ax.text(i - 0.2, 0.02, f"{100 * r['accuracy']:.0f}%\nn={r['n']}{short}", ha="center", va="bottom",
                fontsize=FONT - 1.5, zorder=5, bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    styles: dict[str, tuple[str, str]] = {}
    palette = pyplot.get_cmap("tab10").colors
    for i, r in enumerate(rows):
        for rec in records:
            if rec["task"] != r["task"]:
                continue
            label = f"{rec['model']} ({rec['paper'].split(' (')[0]} {rec['table']})"
            if label not in styles:
                k = sum(1 for s in styles.values() if (s[0] == "*") == rec["human"])
                styles[label] = ("*", HUMANS[k % len(HUMANS)]) if rec["human"] else (MARKERS[k % len(MARKERS)],
                                                                                      palette[k % len(palette)])
            marker, color = styles[label]
            seen = any(h.get_label() == label for h in ax.collections)
            ax.scatter([i + 0.25], [rec["accuracy"]], marker=marker, s=40 if marker == "*" else 16, color=color,
                       edgecolors="black", linewidths=0.3, zorder=4, label=None if seen else label)
    ours = [(i, r[LABEL]) for i, r in enumerate(rows) if r.get(LABEL)]  # `mewl eval --human` (mewl study)
    if ours:
        acc = [h["accuracy"] for _, h in ours]
        err = [[a - h["interval"][0] for a, (_, h) in zip(acc, ours)], [h["interval"][1] - a for a, (_, h) in zip(acc, ours)]]
        ax.errorbar([i - 0.25 for i, _ in ours], acc, yerr=err, fmt="D", markersize=3, color="#55a868", capsize=2,
                    elinewidth=0.8, label=LABEL, zorder=5)
    tilted = len(rows) > 2
    ax.set_xticks(x, [f"{r['task']}\n{r['split']}" for r in rows], fontsize=FONT - 1,
                  rotation=30 if tilted else 0, ha="right" if tilted else "center", rotation_mode="anchor")
    ax.set_ylim(0, 1.05)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("accuracy")
    n, planned = sum(r["n"] for r in rows), sum(r["planned"] for r in rows)
    if planned > n:  # the figure travels without the table: it says itself that the dataset is part-made
        ax.set_title(f"incomplete dataset: {of_planned(n, planned, catalog.noun([r['task'] for r in rows]))}",
                     color="#b03030")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3 if tilted else -0.2), ncol=2, frameon=False,
              title="marks: reported on the original data" if styles else None, title_fontsize=FONT - 1)
    fig.savefig(path, dpi=300, bbox_inches="tight")
    pyplot.close(fig)
