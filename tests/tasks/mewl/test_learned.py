"""The learned baselines' tables keep an episode's rows small and give every value back as it was."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mewl_gen.tasks.mewl.solver import learned
from mewl_gen.tasks.mewl.solver.deprived import IDENTITY, view
from tests.conftest import FEW, episodes


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=8),
                  elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, np.nan, np.inf, -1e300])))
def test_rows_come_back_bit_for_bit(rows):
    back = learned.given_back(learned.kept(rows))
    assert back.shape == rows.shape and back.dtype == rows.dtype
    assert np.array_equal(back.view(np.int64), rows.view(np.int64))  # NaN and -0.0 included


def test_identity_rows_are_kept_as_one_row_and_their_positions_and_given_back_as_made():
    eps = episodes("shape", FEW)
    table = learned.Table("shape", IDENTITY, eps)
    made = [table.features(view(ep, IDENTITY, keep_lexicon=True)) for ep in eps]
    first, differ, values = table.x[0]  # the identity rows differ in the position column only
    assert list(differ) == [0] and values.shape == (len(eps[0].choices), 1)
    assert sum(k.nbytes for k in table.x[0]) * 3 < made[0].nbytes
    x, _ = table.rows()
    assert np.array_equal(x.view(np.int64), np.vstack(made).view(np.int64))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda width: st.lists(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.just(width)),
               elements=st.sampled_from([0.0, -0.0, 1.0, 2.5, np.nan, np.inf])), min_size=1, max_size=6)))
def test_a_tables_rows_are_stacked_as_vstack_stacks_them(episodes_rows):
    """Table.rows writes the kept rows into one array: the same values, bit for bit, as stacking each
    episode's rows given back."""
    kept = [learned.kept(rows) for rows in episodes_rows]
    stacked = learned.stacked(kept)
    expected = np.vstack(episodes_rows)
    assert stacked.shape == expected.shape and stacked.dtype == expected.dtype
    assert np.array_equal(stacked.view(np.int64), expected.view(np.int64))
