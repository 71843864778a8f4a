"""The audit's frame: a benchmark states its probes (its cells and the verdict's words), the frame puts
split and task first, fills the repeats column and writes the verdict."""
from __future__ import annotations

from types import SimpleNamespace

from mewl_gen.tasks.audit import REPEATS, Audit, AuditRun, Findings


def shown(stored) -> str:  # what an item shows: here, its one word
    return stored.word


def items(*words: str) -> list:
    return [SimpleNamespace(word=w) for w in words]


def counted(split, task, found, run) -> Findings:
    fails = [] if len(found) > 1 else ["too few items"]
    return Findings({"n": len(found), "first": found[0].word}, fails)


AUDIT = Audit(("n", "first"), counted, shown)


def test_the_frame_adds_split_task_repeats_and_the_verdict():
    assert AUDIT.columns == ("split", "task", "n", "first", "repeats", "verdict")
    row = AUDIT.row("train", "toy-count", items("a", "b"), AuditRun(1, others=items("a", "c")))
    assert row == {"split": "train", "task": "toy-count", "n": 2, "first": "a",
                   "repeats": "50.0 [9.5, 90.5] / 0.0", "verdict": "ok"}  # train may repeat val


def test_the_verdict_joins_the_probes_words_then_the_repeats():
    row = AUDIT.row("test", "toy-count", items("a"), AuditRun(1, others=items("a")))
    assert row["verdict"] == "too few items; 1 test items repeat an item of another split"
    assert AUDIT.row("test", "toy-count", items("a", "b"), AuditRun(1))["verdict"] == "ok"


def test_a_benchmark_may_place_the_repeats_column_among_its_own():
    placed = Audit(("n", REPEATS, "first"), counted, shown)
    assert placed.columns == ("split", "task", "n", "repeats", "first", "verdict")
