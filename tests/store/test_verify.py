"""`mewl verify` of many damaged items: its damage notes are one file a task, the damaged items' indices as
ranges, written once a run (store/damage.py), so a folder of empty item folders costs what checking
them costs, not a file an item. The figure at 100,000 folders, and the command that takes it, are in
docs/security.md."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mewl_gen.store import damage
from mewl_gen.store.status import task_status

EMPTY = 500  # empty item folders beside the dataset's genuine ones


def test_verify_writes_one_file_of_notes_a_task_and_syncs_it_once(sampled, mewl, monkeypatch):
    w = sampled
    for i in range(3, 3 + EMPTY):
        w.item(i).mkdir()
    genuine = w.item(0).joinpath("episode.json").read_bytes()
    w.item(0).joinpath("episode.json").write_text("{}")  # one damaged item among the genuine ones
    synced = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), fsync(fd))[1])
    code, out, err = mewl("verify", w.out)
    assert code == 1 and out.count("damaged: ") == EMPTY + 1, err
    assert len(synced) == 1  # the task's one file of notes
    notes = w.out / ".mewl" / "damaged" / "train"
    assert sorted(p.name for p in notes.iterdir()) == [f"{w.task}.json", f"{w.task}.lock"]
    assert json.loads((notes / f"{w.task}.json").read_text())["damaged"] == f"0,3-{2 + EMPTY}"
    synced.clear()
    w.item(0).joinpath("episode.json").write_bytes(genuine)
    assert mewl("verify", w.out)[0] == 1  # again: restored item 0's note cleared, the others kept
    assert len(synced) == 1 and not damage.is_damaged(w.out, "train", w.task, 0)
    assert damage.is_damaged(w.out, "train", w.task, 3) and damage.is_damaged(w.out, "train", w.task, 2 + EMPTY)
    synced.clear()
    assert mewl("verify", w.out)[0] == 1 and synced == []  # nothing new found: nothing written



LIMIT = 100_000  # the folder count docs/security.md states verify's figure at


@pytest.mark.slow
def test_verify_at_its_stated_limit_notes_every_empty_folder_in_one_file(sampled, mewl):
    """At the limit docs/security.md states (100,000 empty item folders), the run ends with every one
    noted in the task's one file and said once each: how long it takes is the docs' figure, not a test's."""
    w = sampled
    for i in range(3, 3 + LIMIT):
        os.mkdir(w.item(i))
    code, out, err = mewl("verify", w.out)
    assert code == 1 and out.count("damaged: ") == LIMIT, err[-500:]
    notes = w.out / ".mewl" / "damaged" / "train"
    assert json.loads((notes / f"{w.task}.json").read_text())["damaged"] == f"3-{2 + LIMIT}"
    assert sorted(p.name for p in notes.iterdir()) == [f"{w.task}.json", f"{w.task}.lock"]

def test_an_older_versions_notes_are_read_and_superseded_by_the_next_verify(sampled, mewl):
    """Notes of one file an item (0.3's) still count for status and render until verify merges them in."""
    w = sampled
    legacy = w.out / ".mewl" / "damaged" / "train" / w.task
    legacy.mkdir(parents=True)
    (legacy / "1.json").write_text(json.dumps({"task": w.task, "split": "train", "index": 1, "problem": "x"}))
    (legacy / "7.json").write_text("{}")  # an item not there: verify does not check it, its note is kept
    assert damage.is_damaged(w.out, "train", w.task, 1)
    assert task_status(w.out, "train", w.task).damaged == [1]
    code, out, _ = mewl("verify", w.out)
    assert code == 0 and "damaged: " not in out  # item 1 is sound: its note is cleared
    assert not legacy.exists() and list(damage.noted(w.out, "train", w.task)) == [7]


@pytest.mark.parametrize("text", ["3-1", "1,1", "x", "1,", "99999999", "1-2,,4"])
def test_a_notes_file_that_is_not_one_is_one_line_and_verify_rewrites_it(sampled, mewl, text):
    w = sampled
    path = damage.notes_path(w.out, "train", w.task)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"split": "train", "task": w.task, "damaged": text}))
    code, _, err = mewl("status", w.out)
    assert code == 2 and "field damaged" in err and len(err.strip().splitlines()) == 1, err
    assert mewl("verify", w.out)[0] == 0  # its check is the newer word
    assert json.loads(path.read_text())["damaged"] == "" and mewl("status", w.out)[0] == 0


def test_clearing_one_item_of_a_long_range_costs_the_ranges_not_the_items():
    noted = damage.Noted([(0, 9_999_999)])
    less = noted.changed(add=(), remove={5})
    assert (list(zip(less.firsts, less.lasts)) == [(0, 4), (6, 9_999_999)] and 5 not in less
            and len(less) == 9_999_999)
    assert damage.parse(less.text(), Path("n")).text() == "0-4,6-9999999"
