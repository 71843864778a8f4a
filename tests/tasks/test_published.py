"""The papers' published rows (tasks/<benchmark>/published.py): real task names, accuracies in [0, 1], the
human rows the papers have, and figures checked against the papers' text (seeds/)."""
from __future__ import annotations

import pytest

from mewl_gen.tasks.benchmark import Published
from mewl_gen.tasks.bongard.published import PUBLISHED as BONGARD
from mewl_gen.tasks.catalog import BENCHMARKS, benchmark_names, benchmarks
from mewl_gen.tasks.icy.published import PUBLISHED as ICY
from mewl_gen.tasks.malevic.published import PUBLISHED as MALEVIC
from mewl_gen.tasks.mewl.published import PUBLISHED as MEWL
from mewl_gen.tasks.shapeworld.published import PUBLISHED as SHAPEWORLD

ROWS = {b.name: b.published for b in BENCHMARKS}  # every benchmark of the catalog, its paper's rows or none
# What each paper has, read from the papers (seeds/): a human study or not.
HAS_HUMANS = {"mewl": True, "malevic": False, "shapeworld": False, "bongard": True, "icy": True}


def problems(benchmark: str, rows: tuple[Published, ...]) -> list[str]:
    """What is wrong with a benchmark's published rows: a task not of that benchmark, an accuracy outside
    [0, 1] (a percentage left unconverted), a row with no task or no table named, a row given twice."""
    names = {t.name for t in benchmarks()[benchmark].tasks}
    found = []
    for row in rows:
        if not row.accuracy:
            found.append(f"{row.who}: no task")
        if "Table" not in row.source:
            found.append(f"{row.who}: the source names no table: {row.source!r}")
        found += [f"{row.who}: {t!r} is not a {benchmark} task" for t in row.accuracy if t not in names]
        found += [f"{row.who}: {t} = {a}" for t, a in row.accuracy.items() if not 0 <= a <= 1]
    keys = [(row.source, row.who) for row in rows]
    found += [f"{key} twice" for key in set(keys) if keys.count(key) > 1]
    return found


def figure(rows: tuple[Published, ...], who: str, task: str, source: str = "") -> float:
    """The one row of `who` (in a source naming `source`) that reports `task`."""
    [row] = [r for r in rows if r.who == who and task in r.accuracy and source in r.source]
    return row.accuracy[task]


def test_each_paper_s_rows_are_its_benchmark_s():
    """The rows of each published.py are the ones its benchmark shows beside a model's scores."""
    for rows in filter(None, (MEWL, MALEVIC, SHAPEWORLD, BONGARD, ICY)):  # a paper may report no row we keep
        [owner] = benchmark_names({task for r in rows for task in r.accuracy})
        assert ROWS[owner] is rows, owner


@pytest.mark.parametrize("benchmark", sorted(ROWS))
def test_rows_name_real_tasks_of_their_benchmark_with_accuracies_in_0_1(benchmark):
    assert problems(benchmark, ROWS[benchmark]) == []


def test_the_check_catches_a_planted_mistake():
    wrong = (Published("MEWL (Jiang et al., ICML 2023), Table 2", "Human", {"shape": 92.4}, human=True),
             Published("MEWL (Jiang et al., ICML 2023), Table 2", "CLIP", {"malevic-pos": 0.5}),
             Published("MEWL (Jiang et al., ICML 2023)", "Aloe", {"shape": 0.342}),
             Published("MEWL (Jiang et al., ICML 2023), Table 2", "Human", {"color": 0.872}, human=True))
    found = problems("mewl", wrong)
    assert any("shape = 92.4" in p for p in found)
    assert any("'malevic-pos' is not a mewl task" in p for p in found)
    assert any("names no table" in p for p in found)
    assert any("twice" in p for p in found)


@pytest.mark.parametrize("benchmark", sorted(HAS_HUMANS))
def test_a_benchmark_has_human_rows_exactly_where_its_paper_has_a_human_study(benchmark):
    humans = [r for r in ROWS[benchmark] if r.human]
    assert bool(humans) == HAS_HUMANS[benchmark]
    assert all("Human" in r.who for r in humans)
    assert not any("Human" in r.who for r in ROWS[benchmark] if not r.human)


def test_mewl_rows_cover_the_nine_tasks():
    nine = {t.name for t in benchmarks()["mewl"].tasks}
    assert len(MEWL) == 7 and all(set(r.accuracy) == nine for r in MEWL)


def test_mewl_figures_as_table_2_prints_them():
    # Table 2: Human pragmatic 54.8, Flamingo-1.1B number 84.2, GPT-3.5 object 98.2, CLIP (w/o TE) shape 16.2
    assert figure(MEWL, "Human", "pragmatic") == 0.548
    assert figure(MEWL, "Flamingo-1.1B", "number") == 0.842
    assert figure(MEWL, "GPT-3.5", "object") == 0.982
    assert figure(MEWL, "CLIP (w/o TE)", "shape") == 0.162


def test_malevic_figures_as_tables_1_and_2_print_them():
    # Table 1, avg test: CNN-LSTM SUP1 0.8066, FiLM SET+POS 0.8788; Table 2: CNN+LSTM+SA POS-hard 0.8653,
    # FiLM SET+POS-hard 0.6513
    assert figure(MALEVIC, "CNN+LSTM", "malevic-sup1") == 0.8066
    assert figure(MALEVIC, "FiLM", "malevic-setpos") == 0.8788
    assert figure(MALEVIC, "CNN+LSTM+SA", "malevic-pos-hard", "Table 2") == 0.8653
    assert figure(MALEVIC, "FiLM", "malevic-setpos-hard", "Table 2") == 0.6513


def test_bongard_figures_as_table_1_prints_them():
    # Table 1: Meta-Baseline-SC FF 66.3 (the best model on FF, as the text says), Human (Expert) BA 99.3,
    # SNAIL CM 60.1 (NV, 61.3, is left out), Human (Amateur) CM/NV 71.0
    assert figure(BONGARD, "Meta-Baseline-SC", "bongard-freeform") == 0.663
    assert max(r.accuracy["bongard-freeform"] for r in BONGARD if not r.human) == 0.663
    assert figure(BONGARD, "Human (Expert)", "bongard-basic") == 0.993
    assert figure(BONGARD, "SNAIL", "bongard-abstract") == 0.601
    assert figure(BONGARD, "Human (Amateur)", "bongard-abstract") == 0.71


def test_icy_figures_as_table_2_prints_them():
    # Table 2 (acc_holdout): ENG SHUFDET 0.7, ENG CONCAT 0.6, SYNTH PROJ 0.02
    assert figure(ICY, "Human (ENG, SHUFDET)", "icy-naming") == 0.7
    assert figure(ICY, "Human (ENG, CONCAT)", "icy-naming") == 0.6
    assert figure(ICY, "Human (SYNTH, PROJ)", "icy-naming") == 0.02
    assert all(set(r.accuracy) == {"icy-naming"} for r in ICY)


def test_every_benchmark_shows_its_papers_rows():
    for name, rows in ROWS.items():
        assert benchmarks()[name].published == rows, name
