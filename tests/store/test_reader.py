"""store.reader's pool feeding: results in the items' order, never more than a few items given out at once."""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from mewl_gen.store.reader import ahead


def test_ahead_keeps_the_items_order_and_gives_the_pool_at_most_its_limit():
    given = []

    class Pool:  # makes each result at once, and counts what it was given
        def submit(self, work, item):
            given.append(item)
            done = Future()
            done.set_result(work(item))
            return done

    taken, most = 0, 0
    for result in ahead(Pool(), lambda x: 2 * x, range(1000), 8):
        assert result == 2 * taken
        taken += 1
        most = max(most, len(given) - taken)
    assert taken == 1000 and most < 8  # Executor.map would have been given all 1,000 first
    with ThreadPoolExecutor(4) as pool:
        assert list(ahead(pool, str, range(50), 3)) == [str(i) for i in range(50)]
