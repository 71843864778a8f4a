"""`mewl audit icy OUT` on small sampled datasets: it passes what the sampler writes, and fails a planted
leak (the answer's place given by the index) and a planted repeat (a train item in test)."""
from __future__ import annotations

import json
import shutil

import pytest

from mewl_gen.cli.main import main
from mewl_gen.store.record import write_record
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.icy.audit import names_probe

from ..shapeworld.test_audit import _copy, _rows


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    out = tmp_path_factory.mktemp("icy") / "data"
    for split, n in (("train", 120), ("test", 20)):
        assert main(["sample", "--task", "icy", "--n", str(n), "--split", split, "--out", str(out), "--seed", "11",
                     "--workers", "1"]) == 0
    return out


def test_the_audit_passes_sampled_items(sampled, mewl):
    code, printed, err = mewl("audit", "icy", sampled, "--markdown", "--workers", "1")
    assert code == 0
    rows = _rows(printed)
    assert sorted(rows) == [(s, t) for s in ("test", "train") for t in ("icy-episodes", "icy-naming")]
    for (split, task), row in rows.items():
        assert row["oracle"] == "1.000" and row["held-out share"] == ("1.000" if split == "test" else "0.000")
        assert row["repeats"].startswith("0.0 ") and row["verdict"] == "ok", row
        learned = split == "train"  # 20 test items are too few to learn from
        assert (row["text-only"] != "-") == learned and (row["identity fields"] != "-") == learned, row
        assert (row["names-only"] != "-") == (task == "icy-episodes" and learned), row  # 20: under MIN_ITEMS
    assert rows["train", "icy-episodes"]["text-only"].endswith("/ 20.0")


def test_an_answer_placed_by_the_index_fails_the_identity_probe(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    for path in sorted((out / "train/icy-episodes").glob("*/item.json")):
        item = json.loads(path.read_text())
        choices = [c for c in item["choices"] if c != item["answer"]]
        choices.insert(item["index"] % 2, item["answer"])  # the answer first at even indices, second at odd
        item["choices"] = choices
        path.write_text(json.dumps(item))
        write_record(path.parent)
    code, printed, err = mewl("audit", "icy", out, "--markdown", "--workers", "1")
    assert code == 1
    row = _rows(printed)["train", "icy-episodes"]
    assert "identity fields above its floor" in row["verdict"], row


def test_a_train_item_in_test_is_a_repeat(sampled, tmp_path, mewl):
    out = _copy(sampled, tmp_path)
    shutil.rmtree(out / "test/icy-episodes/3")
    shutil.copytree(sampled / "train/icy-episodes/3", out / "test/icy-episodes/3")
    code, printed, err = mewl("audit", "icy", out, "--markdown", "--workers", "1")
    assert code == 1
    verdict = _rows(printed)["test", "icy-episodes"]["verdict"]
    assert "1 test items repeat an item of another split" in verdict, verdict


@pytest.fixture(scope="module")
def records():
    """icy-episodes items as their item.json reads, on a seed no other test uses."""
    return [json.loads(sample_item("icy-episodes", 8128, "train", i).model_dump_json()) for i in range(200)]


def test_names_only_is_at_its_floor(records):
    found = names_probe(records)
    assert found.n == len(records) and not found.leaks, found.cell()


def test_a_panel_named_after_the_answer_is_flagged(records):
    planted = [dict(r, context_panels=[dict(r["context_panels"][0], name=r["answer"]), *r["context_panels"][1:]])
               for r in records]
    assert names_probe(planted).leaks
