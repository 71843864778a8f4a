"""`mewl audit icy`: the names-only and identity probes stay at 1/5 on sampled icy-episodes items and
flag a leak planted in either channel."""
from __future__ import annotations

import json

import pytest

from cli.main import main
from tasks.audit import leaking
from tasks.catalog import sample_item
from tasks.icy.audit import probes

N = 200


@pytest.fixture(scope="module")
def records():
    """icy-episodes items as their item.json reads, on a seed no other test uses."""
    return [json.loads(sample_item("icy-episodes", 8128, "train", i).model_dump_json()) for i in range(N)]


def test_names_and_identity_are_at_their_floor(records):
    found = probes(records)
    assert set(found) == {"names-only learned", "identity learned"} and all(p.n == N for p in found.values())
    assert not leaking(found), {name: p.cell() for name, p in found.items()}


def test_a_panel_named_after_the_answer_is_flagged(records):
    planted = [dict(r, context_panels=[dict(r["context_panels"][0], name=r["answer"]), *r["context_panels"][1:]])
               for r in records]
    assert leaking(probes(planted)) == ["names-only learned above its floor"]


def test_a_retry_count_that_tells_the_answer_is_flagged(records):
    planted = [dict(r, retry=r["choices"].index(r["answer"])) for r in records]
    assert leaking(probes(planted)) == ["identity learned above its floor"]


def test_the_command_prints_a_row_per_task(tmp_path, capsys):
    out = tmp_path / "icy"
    assert main(["sample", "--task", "icy", "--n", "30", "--out", str(out), "--seed", "8128", "--workers", "1"]) == 0
    assert main(["audit", "icy", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "icy-naming" in printed and "/ 20.0" in printed
