"""`mewl verify` of many damaged items: its damage notes are batched, one sync per folder of notes written
(not one per note), so a folder of empty item folders takes as long as creating their notes. The figure at
100,000 folders is in the commit that batched them."""
from __future__ import annotations

import os

from mewl_gen.store import bookkeeping

EMPTY = 500  # empty item folders beside the dataset's genuine ones


def test_verify_syncs_each_folder_of_notes_once_not_each_note(sampled, mewl, monkeypatch):
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
    assert len(synced) == 1  # the one folder of notes, train/<task>
    notes = w.out / ".mewl" / "damaged" / "train" / w.task
    assert len(list(notes.iterdir())) == EMPTY + 1
    synced.clear()
    w.item(0).joinpath("episode.json").write_bytes(genuine)
    assert mewl("verify", w.out)[0] == 1  # again: the notes already there are kept, restored item 0's removed
    assert len(synced) == 1 and not bookkeeping.is_damaged(w.out, "train", w.task, 0)
    assert bookkeeping.is_damaged(w.out, "train", w.task, 3)
