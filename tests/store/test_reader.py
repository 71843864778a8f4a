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


def test_items_are_held_as_indexes_and_read_as_the_list_of_storeditems_they_were(tmp_path, mewl):
    import pickle

    import numpy as np

    from mewl_gen.store import door
    from mewl_gen.store.layout import item_dir
    from mewl_gen.store.reader import Items, read
    from mewl_gen.tasks import catalog
    from mewl_gen.tasks.stored import StoredItem

    out = tmp_path / "out"
    assert mewl("sample", "--task", "malevic-pos1", "--n", 6, "--seed", 3, "--out", out, "--workers", 1)[0] == 0
    found = read(out)
    items = found.items[("train", "malevic-pos1")]
    model = catalog.task("malevic-pos1").model
    whole = [StoredItem("train", "malevic-pos1", i, item_dir(out, "train", "malevic-pos1", i), model, door.opener(out))
             for i in range(6)]
    assert isinstance(items, Items) and items.indices.itemsize == 8
    assert len(items) == 6 and list(items) == whole and items[np.int64(2)] == whole[2] and items[-1] == whole[-1]
    assert items[1:4] == whole[1:4] and [s.item().index for s in items] == list(range(6))
    assert list(pickle.loads(pickle.dumps(items))) == whole  # as an audit's worker process receives them
