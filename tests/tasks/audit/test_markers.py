"""The marker scan and the learned view, on hand-made scenes and samples: the statistics say what they
claim, the two-sample test holds its level where both samples come from one law (sparse values
included) and finds a planted difference, the bound is divided among the statistics tested, and the
learned view finds a marker in a column nobody named."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.tasks.audit import Probe
from mewl_gen.tasks.audit.markers import VERDICT_P, coin, object_statistics, panel_statistics, scan, two_sample_p
from mewl_gen.tasks.audit.views import flatten, halves_probe

SCENE = [{"shape": "cube", "color": "red"}, {"shape": "cube", "color": "blue"},
         {"shape": "sphere", "color": "red"}, {"shape": "cube", "color": "red"}]


def test_object_statistics_count_what_each_object_shares():
    rows = object_statistics(SCENE, ("shape", "color"), anchor=0)
    assert rows[1] == {"objects": 4, "description unique": True, "shape": "cube", "shape shared": 2,
                       "shape unique": False, "shape distinct": 2, "color": "blue", "color shared": 0,
                       "color unique": True, "color distinct": 2, "color shared among shape-mates": 0,
                       "color unique among shape-mates": True, "same shape as the anchor": True,
                       "same color as the anchor": False}
    assert rows[2]["color shared"] == 2 and rows[2]["color unique among shape-mates"]
    assert not rows[0]["description unique"] and "same shape as the anchor" not in rows[0]


def test_panel_statistics_give_distinct_values_and_count_histograms():
    assert panel_statistics(SCENE, ("shape", "color")) == {
        "objects": 4, "unique descriptions": 2, "shape distinct": 2, "shape counts": "3+1",
        "color distinct": 2, "color counts": "3+1"}


def test_the_two_sample_test_finds_a_shift_and_merges_sparse_values():
    rng = np.random.default_rng(0)
    same = [two_sample_p(list(rng.integers(0, 3, 300)), list(rng.integers(0, 3, 300))) for _ in range(200)]
    assert np.mean(np.array(same) < 0.01) < 0.04
    shifted = two_sample_p(list(rng.integers(0, 3, 300)), list(rng.integers(1, 4, 300)))
    assert shifted < 1e-10
    rare = [0] * 200 + [5, 6, 7]  # three values seen once: merged, not tested on expected counts near 0
    assert 0.05 < two_sample_p(rare, [0] * 200 + [8, 9, 10]) <= 1
    assert two_sample_p([1, 1], [1, 1, 1]) is None and two_sample_p([True] * 9, [False] * 9) < 1e-3


@pytest.mark.slow
def test_an_honest_scan_is_flagged_at_the_verdicts_rate_whatever_the_statistics():
    """Ten statistics, one law for both samples: over 100 scans the family-wise rate of a flag is the
    verdict's 1 in 1,000 (at most one flag, P 0.005), where the bound undivided would flag about one
    scan in a hundred."""
    rng = np.random.default_rng(1)
    flags = 0
    for _ in range(100):
        def rows(n):
            return [{f"s{k}": int(rng.integers(0, 2 + k % 4)) for k in range(10)} for _ in range(n)]
        found = scan(rows(150), rows(150))
        assert len(found.p) == 10 and found.bound == VERDICT_P / 10
        flags += bool(found.flagged)
    assert flags <= 1


def test_the_scan_names_the_statistic_that_stands_out():
    rng = np.random.default_rng(2)
    role = [{"unique": True, "noise": int(rng.integers(3))} for _ in range(200)]
    pool = [{"unique": bool(rng.random() < 0.7), "noise": int(rng.integers(3))} for _ in range(200)]
    found = scan(role, pool)
    assert found.flagged == ["unique"] and "unique" in found.cell() and found.failures("the twin")
    assert scan([], []).cell() == "-" and not scan([], []).flagged


def test_coins_read_the_index_only():
    assert coin(7, 5) == coin(7, 5) and {coin(i, 3) for i in range(50)} == {0, 1, 2}


def test_a_best_of_several_probe_has_its_bound_divided():
    assert Probe(556, 1000, 0.5).leaks and not Probe(556, 1000, 0.5, tests=8).leaks
    assert Probe(566, 1000, 0.5, tests=8).leaks


def test_a_view_flattens_categories_and_groups_without_knowing_them():
    view = {"adjective": "big", "size": 3, "below": [{"color": "red", "unique": True, "shared": 2},
                                                     {"color": "red", "unique": False, "shared": 0}], "above": []}
    assert flatten(view) == {"adjective=big": 1.0, "size": 3.0, "below: count": 2.0, "below: color=red": 2.0,
                             "below: sum unique": 1.0, "below: min unique": 0.0, "below: max unique": 1.0,
                             "below: sum shared": 2.0, "below: min shared": 0.0, "below: max shared": 2.0,
                             "above: count": 0.0}


@pytest.mark.slow
def test_the_learned_view_finds_a_marker_in_a_group_and_stays_at_chance_without_one():
    rng = np.random.default_rng(3)

    def item(i, planted):
        label = bool(rng.integers(2))
        side = [{"unique": bool(rng.random() < 0.5), "color": str(rng.choice(["red", "blue"]))} for _ in range(3)]
        if planted:  # the label's side alone holds an object whose 'unique' is always true
            side[0]["unique"] = label or side[0]["unique"] and rng.random() < 0.3
        return i, {"below": side, "adjective": "big"}, label

    planted = halves_probe([item(i, True) for i in range(600)], None, 0.5)
    honest = halves_probe([item(i, False) for i in range(600)], None, 0.5)
    assert planted.n == 300 and planted.leaks and not honest.leaks
