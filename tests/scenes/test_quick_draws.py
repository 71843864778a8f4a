"""QuickDraws gives NumPy's own values and leaves the generator as NumPy would: mixed sequences of every draw it
makes, against the same calls on a twin generator, over many seeds."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.scenes.quick_draws import QuickDraws


def twin_draws(seed: int, steps: int = 200) -> None:
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    plan = np.random.default_rng(10_000 + seed)  # which draws, of what sizes
    got, want = [], []
    with QuickDraws(ours) as q:
        for _ in range(steps):
            kind = int(plan.integers(4))
            if kind == 0:  # small ranges (one value draws nothing), and large ones with many rejections
                low = int(plan.integers(0, 3))
                high = low + int(plan.choice([1, 2, 3, 7, 8, 9, 40_000, 2**31 + 5]))
                got.append(q.integers(low, high))
                want.append(int(numpys.integers(low, high)))
            elif kind == 1:
                n = int(plan.integers(0, 12))
                size = int(plan.integers(0, n + 1))
                values = [f"v{i}" for i in range(n)]
                got.append(q.choice(values, size))
                want.append([values[i] for i in numpys.choice(n, size=size, replace=False)])
            elif kind == 2:
                got.append(q.random())
                want.append(numpys.random())
            else:  # an odd number of 32-bit draws leaves half a 64-bit output buffered
                got.append(q.integers(0, 5))
                want.append(int(numpys.integers(0, 5)))
    assert got == want
    assert ours.bit_generator.state == numpys.bit_generator.state
    assert ours.integers(1000, size=8).tolist() == numpys.integers(1000, size=8).tolist()  # and after the block


@pytest.mark.parametrize("seed", range(0, 400, 8))
def test_every_draw_and_the_state_after_are_numpys(seed):
    twin_draws(seed)


def test_a_block_that_ends_on_a_buffered_half_hands_it_back():
    ours, numpys = np.random.default_rng(7), np.random.default_rng(7)
    with QuickDraws(ours) as q:
        q.integers(0, 10)
    numpys.integers(0, 10)
    assert ours.bit_generator.state["has_uint32"] == 1
    assert [int(ours.integers(0, 10)) for _ in range(3)] == [int(numpys.integers(0, 10)) for _ in range(3)]


def test_another_bit_generator_is_drawn_by_numpy_itself():
    ours, numpys = (np.random.Generator(np.random.MT19937(3)) for _ in range(2))
    with QuickDraws(ours) as q:
        got = [q.integers(2, 9), q.choice("abcdef", 3), q.random()]
    want = [int(numpys.integers(2, 9)), ["abcdef"[i] for i in numpys.choice(6, size=3, replace=False)],
            float(numpys.random())]
    assert got == want


@pytest.mark.parametrize("draw", [lambda q: q.integers(3, 3), lambda q: q.integers(0, 2**32),
                                  lambda q: q.choice("ab", 3), lambda q: q.choice(range(10_001), 2)])
def test_what_numpy_would_draw_otherwise_is_refused(draw):
    with QuickDraws(np.random.default_rng(0)) as q, pytest.raises(ValueError):
        draw(q)
