"""`mewl audit OUT` on a dataset whose render stopped early: the audit runs on what is there and says, in one
line, how far short of its plan the dataset is."""
from __future__ import annotations

from mewl_gen.store import bookkeeping


def test_a_part_made_dataset_is_audited_and_named_so(tmp_path, mewl):
    out = tmp_path / "data"
    assert mewl("sample", "--task", "pragmatic", "--n", 5, "--out", out, "--workers", 1)[0] == 0
    code, _, err = mewl("audit", "mewl", out, "--no-card", "--workers", 1)
    assert code == 0 and "incomplete" not in err, err
    bookkeeping.record_plan(out, "train", "pragmatic", 600)  # a render of 600 stopped after 5
    code, printed, err = mewl("audit", "mewl", out, "--no-card", "--workers", 1)
    assert code == 0 and "train  pragmatic  5 " in printed
    assert err.splitlines() == ["mewl audit: incomplete dataset: train/pragmatic: 5 of 600 planned episodes; "
                                "`mewl status OUT` names the missing ones, the render command renders them"]
