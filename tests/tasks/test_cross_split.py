"""No test item repeats another split's: ShapeWorld's sampler by construction (its split rule on the
canonical key), and the audit's shared probe (tasks.audit.repeats) that finds a planted repeat."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import repeat_failures, repeats
from mewl_gen.tasks.benchmark import draw_item
from mewl_gen.tasks.bongard.audit import key as bongard_key
from mewl_gen.tasks.malevic.audit import key as malevic_key
from mewl_gen.tasks.mewl.audit import key as mewl_key
from mewl_gen.tasks.shapeworld import SHAPEWORLD
from mewl_gen.tasks.shapeworld.item import ShapeWorldItem
from mewl_gen.tasks.shapeworld.repeats import allowed, key, on_test_side, stored_key
from mewl_gen.tasks.stored import StoredItem

TASKS = {t.name: t for t in SHAPEWORLD.tasks}


def _key(item) -> str:
    return key(item.task, item.caption, [o.properties for o in item.scene.objects])


def _stored(tmp_path: Path, item, name: str) -> StoredItem:
    folder = tmp_path / name
    folder.mkdir()
    (folder / ShapeWorldItem.RECORD_FILE).write_text(item.model_dump_json())
    return StoredItem(item.split, item.task, item.index, folder, ShapeWorldItem)


@pytest.fixture(scope="module")
def existential_keys() -> dict[str, list[str]]:
    """Keys of 2,100 existential items: three root seeds, 400 train, 100 val and 200 test items each."""
    task, keys = TASKS["shapeworld-existential"], {}
    for seed in range(3):
        for split, n in (("train", 400), ("val", 100), ("test", 200)):
            keys.setdefault(split, []).extend(_key(draw_item(task, seed, split, i)) for i in range(n))
    return keys


@pytest.mark.slow
def test_existential_test_items_never_have_a_key_of_another_split_of_any_seed(existential_keys):
    train, val, test = existential_keys["train"], existential_keys["val"], existential_keys["test"]
    assert all(on_test_side(k) for k in test) and not any(on_test_side(k) for k in train + val)
    assert not set(test) & set(train + val)
    # without the rule they would meet: keys recur within a side (train and val's 1,500 items of five
    # seeds repeat a few, whose objects are drawn as the test side's are)
    assert len(set(train + val)) < len(train + val)


@pytest.mark.parametrize("task", ["shapeworld-relational", "shapeworld-quantification", "shapeworld-logical"])
@pytest.mark.slow
def test_every_task_draws_keys_of_its_split_side(task):
    for split in ("train", "test"):
        assert all(allowed(_key(draw_item(TASKS[task], 7, split, i)), split) for i in range(60))


def test_the_split_rule_puts_half_the_keys_on_the_test_side():
    sides = [on_test_side(key("shapeworld-existential", f"there is a {i}", [("cube", "red", "metal", "small")]))
             for i in range(4000)]
    assert 0.45 < sum(sides) / len(sides) < 0.55


def test_the_stored_key_is_the_samplers_and_ignores_camera_lights_positions_and_seeds(tmp_path):
    item = draw_item(TASKS["shapeworld-existential"], 3, "test", 0)
    moved = item.model_copy(update={"index": 9, "retry": 2, "scene": item.scene.model_copy(update={
        "seed": item.scene.seed + 1, "camera": item.scene.camera.model_copy(update={"location": (9.0, -9.0, 7.0)}),
        "lights": item.scene.lights[1:],
        "objects": tuple(o.model_copy(update={"position": (0.5, -0.5), "rotation": 1.0}) for o in item.scene.objects),
    })})
    assert stored_key(_stored(tmp_path, item, "a")) == stored_key(_stored(tmp_path, moved, "b")) == _key(item)
    flipped = item.model_copy(update={"agreement": not item.agreement})
    assert stored_key(_stored(tmp_path, flipped, "c")) == _key(item), "the answer is no part of the key"


def test_the_probe_counts_a_planted_repeat_and_fails_only_a_test_split(tmp_path):
    task = TASKS["shapeworld-existential"]
    train = [_stored(tmp_path, draw_item(task, 5, "train", i), f"train{i}") for i in range(40)]
    test = [_stored(tmp_path, draw_item(task, 5, "test", i), f"test{i}") for i in range(20)]
    clean = repeats(test, train, stored_key)
    assert (clean.hits, clean.n, repeat_failures("test", clean)) == (0, 20, [])
    planted = json.loads((train[3].folder / "item.json").read_text()) | {"split": "test", "index": 20}
    planted["scene"]["camera"]["location"] = [8.0, -8.0, 6.0]  # another view of the same item
    test.append(_stored(tmp_path, ShapeWorldItem.model_validate(planted), "planted"))
    found = repeats(test, train, stored_key)
    assert (found.hits, found.n) == (1, 21) and found.leaks
    assert repeat_failures("test", found) == ["1 test items repeat an item of another split"]
    assert repeat_failures("train", found) == []  # train and val may share an item


@pytest.mark.parametrize("task, key", [("shape", mewl_key), ("malevic-pos", malevic_key),
                                       ("bongard-basic", bongard_key)])
@pytest.mark.slow
def test_each_benchmarks_key_finds_a_train_item_seen_again_and_nothing_else(tmp_path, task, key):
    """Every benchmark's key: a train item re-viewed (other camera, lights and seeds) is a repeat, another
    item of the same task is not."""
    spec = catalog.task(task)
    train = [draw_item(spec, 3, "train", i) for i in range(3)]
    again = train[1].with_scenes({name: s.model_copy(update={
        "seed": s.seed + 1, "camera": s.camera.model_copy(update={"lens_mm": s.camera.lens_mm + 1}),
        "lights": s.lights[::-1]}) for name, s in train[1].scenes().items()})
    again = again.model_copy(update={"split": "test", "index": 0, "root_seed": 4})
    others = [_stored_as(tmp_path, item, f"train{k}") for k, item in enumerate(train)]
    fresh = draw_item(spec, 5, "test", 1)
    found = repeats([_stored_as(tmp_path, again, "again"), _stored_as(tmp_path, fresh, "fresh")], others, key)
    assert (found.hits, found.n) == (1, 2)


def _stored_as(tmp_path: Path, item, name: str) -> StoredItem:
    folder = tmp_path / name
    folder.mkdir()
    (folder / item.RECORD_FILE).write_text(item.model_dump_json())
    return StoredItem(item.split, item.task, item.index, folder, type(item))
