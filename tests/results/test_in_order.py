"""The exports make their rows in worker processes (results.export.in_order): the writer gets them in
the items' order, whatever order the workers finish in, and a worker's error reaches the writer."""
from __future__ import annotations

import time

import pytest

from mewl_gen.results.export import in_order


def slow_for_small(n: int) -> int:
    """Finishes later the smaller n is, so that workers finish out of order."""
    time.sleep(0.002 * (40 - n) if n < 40 else 0)
    return n * n


def fails_at_seven(n: int) -> int:
    if n == 7:
        raise ValueError("item 7 is damaged")
    return n


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.slow
def test_rows_come_in_the_items_order(workers):
    assert list(in_order(list(range(60)), slow_for_small, workers)) == [n * n for n in range(60)]


def test_a_workers_error_reaches_the_writer_after_the_rows_before_it():
    made = []
    with pytest.raises(ValueError, match="item 7 is damaged"):
        for row in in_order(list(range(20)), fails_at_seven, 2):
            made.append(row)
    assert made == list(range(7))
