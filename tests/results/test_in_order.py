"""The exports make their rows in worker processes (results.export.in_order): the writer gets them in
the items' order, whatever order the workers finish in, and a worker's error reaches the writer."""
from __future__ import annotations

import gc
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
    assert gc.get_freeze_count() == 0, "the writer's objects are frozen only while its workers live"


def frozen_in_worker(n: int) -> int:
    return gc.get_freeze_count()


def test_the_workers_inherit_the_writers_objects_frozen_and_the_writer_gets_them_back():
    """Forked workers share the writer's pages until something writes to them; the collector walking
    the inherited objects would, so they are frozen (never walked) while the workers live."""
    assert min(in_order(list(range(4)), frozen_in_worker, 2)) > 0
    assert gc.get_freeze_count() == 0
