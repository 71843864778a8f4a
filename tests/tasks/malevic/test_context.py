"""MALeViC judged against the context, not against the target's neighbours: every target has an object
a level below and one a level above, so a rule reading the neighbours stays at 1/2, and a solver reading
every size but not k stays at its exact floor (floor.py), which an empirical Bayes table confirms."""
from __future__ import annotations

import functools
from collections import Counter

import pytest

from mewl_gen.tasks.malevic.floor import full_size_floor, ranges, seen_law
from mewl_gen.tasks.audit.statistics import Z_VERDICT, wilson
from mewl_gen.tasks.audit import Probe
from mewl_gen.tasks.malevic.probes import CHANCE, Seen, below_its_floor, neighbour_rule, probes, without_k
from mewl_gen.tasks.malevic.rules import TASK_RULES, reference_set
from tests.tasks.malevic.test_sample import statements

THRESHOLD_TASKS = tuple(f"malevic-{name}" for name, r in TASK_RULES.items() if not r.superlative)


@functools.cache
def seen(task: str) -> tuple[Seen, ...]:
    """Every statement of the task as the probes see it, once per process (each test reads it)."""
    rules = TASK_RULES[task.removeprefix("malevic-")]
    return tuple(Seen(label, adjective, st.levels[st.target], st.levels, index, retry,
                 reference_set(rules, st.shapes, st.target))
            for _, label, adjective, st, index, retry in statements(task))


@pytest.mark.parametrize("task", THRESHOLD_TASKS)
@pytest.mark.slow
def test_every_target_has_an_object_a_level_below_and_above_and_the_neighbour_rule_never_fires(task):
    for s in seen(task):
        assert s.around(-1) > 0 and s.around(1) > 0 and s.gap(True) == s.gap(False) == 1
    assert not neighbour_rule(seen(task)).leaks


@pytest.mark.parametrize("task", THRESHOLD_TASKS)
@pytest.mark.slow
def test_the_neighbours_counts_have_one_law_for_true_and_false_items(task):
    """Per adjective, the counts one level below, at and above the target: a chi-square test of their
    law against the label finds nothing (levels drawn alike are exchangeable)."""
    from scipy.stats import chi2_contingency

    for adjective in ("big", "small"):
        cells = Counter((s.label, (s.around(-1), s.around(0), s.around(1))) for s in seen(task)
                        if s.adjective == adjective)
        keys = sorted({k for _, k in cells})
        table = [[cells[(label, k)] + 1 for k in keys] for label in (True, False)]  # +1: no empty cell
        assert chi2_contingency(table).pvalue > 1e-4


@pytest.mark.parametrize("task", THRESHOLD_TASKS)
@pytest.mark.slow
def test_every_probe_stays_at_its_floor(task):
    found = probes(seen(task), rules=TASK_RULES[task.removeprefix("malevic-")])
    assert {"neighbour rule", "neighbours", "sizes without k", "target-relative"} <= set(found)
    assert not [name for name, p in found.items() if p.leaks], {n: p.cell() for n, p in found.items()}
    assert found["neighbours"].floor == CHANCE


@pytest.mark.parametrize("task", THRESHOLD_TASKS)
@pytest.mark.slow
def test_the_floor_without_k_is_what_sampled_items_give_a_bayes_table(task):
    """The exact floor against the in-sample Bayes table over (n, m, min, max, target level) of 2,000
    statements (in-sample, so a little above the floor by chance, never far)."""
    rules = TASK_RULES[task.removeprefix("malevic-")]
    votes: dict[tuple, Counter] = {}
    for s in seen(task):
        ref = s.reference_levels
        key = (s.adjective, len(s.levels), len(ref), min(ref), max(ref), s.target_level)
        votes.setdefault(key, Counter())[s.label] += 1
    table = sum(max(c.values()) for c in votes.values()) / len(seen(task))
    assert 0.9 < full_size_floor(rules) < 1 and abs(table - full_size_floor(rules)) < 0.02
    assert abs(sum(u + v for u, v in seen_law(rules).values()) - 1) < 1e-9


@pytest.mark.parametrize("task", THRESHOLD_TASKS)
@pytest.mark.slow
def test_the_floor_without_k_is_reached_by_its_own_solver(task):
    """A floor is one only if the solver that defines it reaches it on drawn items: the Bayes solver
    without k (floor.decide), never fitted on them, lands within its 99.9 % interval of the stated floor,
    so no redraw of the sampler has moved the law the floor is computed from."""
    probe = without_k(TASK_RULES[task.removeprefix("malevic-")], list(seen(task)))
    low, high = wilson(probe.hits, probe.n, Z_VERDICT)
    assert low <= probe.floor <= high, (probe.cell(), probe.floor)


def test_a_floor_its_own_solver_cannot_reach_is_flagged():
    """The audit's check of the no-k floor both ways: 0.967 of 1,600 (the reported POS-hard reading) lies
    below 0.9763 only at 95 %; 0.95 of 1,600 lies below it at 99.9 % too. Few items judged exactly: one miss
    in two (a solver at 0.976 does so one time in twenty) is no finding, three misses in three are."""
    assert not below_its_floor(Probe(1547, 1600, 0.9763))
    assert below_its_floor(Probe(1520, 1600, 0.9763))
    assert not below_its_floor(Probe(0, 0, 0.9763))
    assert not below_its_floor(Probe(1, 2, 0.9763)) and not below_its_floor(Probe(0, 1, 0.9763))
    assert below_its_floor(Probe(0, 3, 0.9763))


def test_the_law_of_ranges_is_exact_and_puts_t_between_the_pair():
    """Every range of the law puts T between a and a + 1 for some k, and reaches past the pair."""
    for a in range(1, 8):
        for m in range(4, 10):
            for (lo, hi), p in ranges(a, m).items():
                assert lo <= a - 1 and hi >= a + 2 and hi - lo < m and p > 0


def test_the_neighbour_rule_flags_the_old_construction():
    """The construction before: the named object's twin one level away, nothing guaranteed on its other
    side. A true 'big' target had its twin below and often nothing above."""
    old = [Seen(True, "big", 5, (5, 4, 2, 1, 8), i, 0, (0, 1, 2, 3, 4)) for i in range(0, 200, 2)] + [
        Seen(False, "big", 4, (4, 5, 7, 8, 1), i, 0, (0, 1, 2, 3, 4)) for i in range(1, 200, 2)]
    assert neighbour_rule(old).leaks
