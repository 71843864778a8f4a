"""NumPy's small draws made in Python: the same values and the same generator state, without NumPy's cost per call.

A sampler that rejects thousands of candidates (a scene redrawn until a rule holds of it)
spends most of its time in the overhead of `Generator.integers` and `Generator.choice` on a handful of values,
not in drawing bits. `QuickDraws(rng)` makes those draws from the generator's own 64-bit outputs with the
algorithms NumPy 1.26 uses for them (Lemire's bounded integers; Floyd's sampling then a Fisher-Yates
shuffle for `choice(..., replace=False)`; 53 bits for `random()`), keeps the half of a 64-bit output that
NumPy buffers for its next 32-bit draw, and gives it back to the generator when the block ends. So a
sampler gives the same bytes with it or without it: tests/scenes/test_quick_draws.py draws both ways,
value for value and state for state, and the pinned digests hold.

    with QuickDraws(rng) as q:
        k = q.integers(1, 4)             # rng.integers(1, 4)
        picked = q.choice(values, k)     # list(rng.choice(values, size=k, replace=False))
        coin = q.random()                # rng.random()

Inside the block the generator itself must not be drawn from; integers() takes ranges under 2**32 - 1 values and
choice() populations of at most 10,000, where NumPy uses these algorithms. A generator other than NumPy's default
(PCG64) is drawn from by NumPy itself, through the same methods.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")

_LOW32 = 0xFFFFFFFF
_FLOYD = 10_000  # populations NumPy samples by Floyd's algorithm (a larger one may be shuffled whole)
_DOUBLE = 1.0 / 9007199254740992.0  # 2**-53


class QuickDraws:
    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._bits = rng.bit_generator
        self._own = isinstance(self._bits, np.random.PCG64)

    def __enter__(self) -> QuickDraws:
        if self._own:
            state = self._bits.state
            self._held, self._half = state["has_uint32"], state["uinteger"]
            self._raw = self._bits.random_raw
        return self

    def __exit__(self, *exc) -> None:
        if self._own:  # the buffered half goes back, as NumPy would have left it
            state = self._bits.state
            state["has_uint32"], state["uinteger"] = self._held, self._half
            self._bits.state = state

    def _next32(self) -> int:
        if self._held:
            self._held = 0
            return self._half
        word = self._raw()
        self._held, self._half = 1, word >> 32
        return word & _LOW32

    def _upto(self, top: int) -> int:
        """Uniform in [0, top] (top < 2**32 - 1): Lemire's multiply and reject, as NumPy's bounded draws."""
        if top == 0:
            return 0  # NumPy draws nothing for a range of one value
        span = top + 1
        product = self._next32() * span
        if (product & _LOW32) < span:
            threshold = (_LOW32 - top) % span
            while (product & _LOW32) < threshold:
                product = self._next32() * span
        return product >> 32

    def integers(self, low: int, high: int) -> int:
        """rng.integers(low, high): low <= value < high."""
        if not self._own:
            return int(self._rng.integers(low, high))
        if not 0 < high - low < _LOW32:
            raise ValueError(f"integers({low}, {high}): a range of 1 to 2**32 - 2 values")
        return low + self._upto(high - low - 1)

    def choice(self, values: Sequence[T], size: int) -> list[T]:
        """list(rng.choice(values, size=size, replace=False)), each value as given (not a NumPy scalar)."""
        if not self._own:
            return [values[int(i)] for i in self._rng.choice(len(values), size=size, replace=False)]
        n = len(values)
        if not 0 <= size <= n <= _FLOYD:
            raise ValueError(f"cannot take {size} of {n} values without replacement (at most {_FLOYD})")
        taken: set[int] = set()
        picked = []
        for j in range(n - size, n):  # Floyd's sampling
            k = self._upto(j)
            if k in taken:
                k = j
            taken.add(k)
            picked.append(k)
        for i in range(size - 1, 0, -1):  # then shuffled
            k = self._upto(i)
            picked[i], picked[k] = picked[k], picked[i]
        return [values[k] for k in picked]

    def random(self) -> float:
        """rng.random(): a float in [0, 1) from 53 bits."""
        if not self._own:
            return float(self._rng.random())
        return (self._raw() >> 11) * _DOUBLE
