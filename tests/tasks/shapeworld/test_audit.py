"""`mewl audit shapeworld OUT` on small sampled datasets: it passes what the
sampler writes, and fails, naming the reason, a flipped label, a held-out
combination outside test and a test item without one."""
from __future__ import annotations

import json
import shutil

import pytest

from mewl_gen.store.record import write_record
from tests.conftest import run_mewl

RELATIONS = "docs/shapeworld-heldout-relations.json"


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    out = tmp_path_factory.mktemp("shapeworld") / "data"
    for split, n in (("train", 120), ("test", 16)):
        assert run_mewl("sample", "--task", "shapeworld", "--n", n, "--split", split, "--out", out,
                        "--distribution", RELATIONS, "--workers", 1) == 0
    return out


def _copy(sampled, tmp_path):
    out = tmp_path / "data"
    shutil.copytree(sampled, out)
    return out


def _rows(text: str) -> dict[tuple[str, str], list[str]]:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| ")]
    head = rows[0]
    return {(r[0], r[1]): dict(zip(head, r)) for r in rows[1:]}


@pytest.mark.slow
def test_the_audit_passes_sampled_items_and_prints_a_row_per_split_and_task(sampled, mewl):
    code, printed, err = mewl("audit", "shapeworld", sampled, "--markdown")
    assert code == 0
    rows = _rows(printed)
    assert len(rows) == 8
    for (split, task), row in rows.items():
        assert row["evaluator"] == row["near miss"] == "1.000" and 0.25 < float(row["agree share"]) < 0.75, row
        assert row["held-out items"] == ("16" if split == "test" else "0"), row
        for probe in ("caption-only", "scene statistics", "identity fields", "index pairs"):
            assert row[probe].endswith("/ 50.0") if split == "train" else row[probe] == "-", row
        assert row["repeats"].startswith("0.0 "), row
        assert row["verdict"] == "ok"
    assert float(rows["train", "shapeworld-relational"]["with 'the'"]) > 0.1


@pytest.mark.slow
def test_flipped_labels_fail_the_audit(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    flipped = 0
    for path in sorted((out / "train/shapeworld-quantification").glob("*/item.json"))[:8]:
        item = json.loads(path.read_text())
        if item["agreement"] and flipped < 2:  # two true made false
            item["agreement"], flipped = False, flipped + 1
            path.write_text(json.dumps(item))
            write_record(path.parent)  # as a faulty generator would publish it
    code, printed, err = mewl("audit", "shapeworld", out, "--markdown")
    assert code == 1
    verdict = _rows(printed)["train", "shapeworld-quantification"]["verdict"]
    assert "file-only evaluator disagrees" in verdict


@pytest.mark.slow
def test_labels_paired_by_index_and_unbalanced_fail(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    # as the old generator: one agreeing item per index pair (captions and scenes left, so only the labels speak)
    paths = sorted((out / "train/shapeworld-existential").glob("*/item.json"), key=lambda p: int(p.parent.name))
    for path in paths:
        item = json.loads(path.read_text())
        item["agreement"] = item["index"] % 4 in (0, 3)
        path.write_text(json.dumps(item))
        write_record(path.parent)
    # all but a few agreeing
    for path in sorted((out / "train/shapeworld-logical").glob("*/item.json"))[:100]:
        item = json.loads(path.read_text())
        item["agreement"] = True
        path.write_text(json.dumps(item))
        write_record(path.parent)
    code, printed, err = mewl("audit", "shapeworld", out, "--markdown")
    assert code == 1
    rows = _rows(printed)
    assert "index pairs above its floor" in rows["train", "shapeworld-existential"]["verdict"]
    assert rows["train", "shapeworld-existential"]["index pairs"].startswith("100.0 ")
    assert "agreement not half" in rows["train", "shapeworld-logical"]["verdict"]


@pytest.mark.slow
def test_held_out_combinations_outside_test_and_a_test_item_without_one_fail(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    # a test item among the train items: its caption or scene shows a held-out relation
    shutil.rmtree(out / "train/shapeworld-relational/5")
    shutil.copytree(out / "test/shapeworld-relational/5", out / "train/shapeworld-relational/5")
    # a train item among the test items: no held-out combination
    shutil.rmtree(out / "test/shapeworld-existential/2")
    shutil.copytree(sampled / "train/shapeworld-existential/2", out / "test/shapeworld-existential/2")
    for folder, was, now in (("train/shapeworld-relational/5", "test", "train"),
                             ("test/shapeworld-existential/2", "train", "test")):
        record = out / folder / "item.json"  # its record says where it now lies: a folder must agree with its item
        record.write_text(record.read_text().replace(f'"split": "{was}"', f'"split": "{now}"', 1))
        write_record(record.parent)
    code, printed, err = mewl("audit", "shapeworld", out, "--markdown")
    assert code == 1
    rows = _rows(printed)
    assert "1 train items with a held-out combination" in rows["train", "shapeworld-relational"]["verdict"]
    assert "1 test items without a held-out combination" in rows["test", "shapeworld-existential"]["verdict"]


def test_a_folder_without_shapeworld_items_is_one_line(tmp_path, mewl):
    code, printed, err = mewl("audit", "shapeworld", tmp_path)
    assert code == 2
    assert "is not a dataset of this tool" in err


@pytest.mark.slow
def test_a_damaged_item_is_one_line_naming_it(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    damaged = out / "train/shapeworld-logical/7/item.json"
    damaged.write_text('{"task": "shapeworld-logical", "capt')  # cut short, as by a full disk
    code, printed, err = mewl("audit", "shapeworld", out, "--markdown")
    assert code == 2
    assert err.count("\n") == 1 and "train/shapeworld-logical/7: item.json is" in err and "holds 1 damaged" in err
