"""The door into OUT, in its own terms: a path is taken one component at a time and no link is followed,
only regular files of their kind's size open, JSON nests no deeper than its limit, and untrusted text
is escaped and cut before a message quotes it."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from mewl_gen.errors import shown
from mewl_gen.json_depth import DEPTH
from mewl_gen.store import door


@pytest.fixture
def out(tmp_path) -> Path:
    (tmp_path / "out" / "train" / "shape" / "0").mkdir(parents=True)
    (tmp_path / "out" / "train" / "shape" / "0" / "a.json").write_text('{"a": 1}')
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.json").write_text('{"secret": 1}')
    return tmp_path / "out"


def test_a_file_inside_is_read_and_a_path_outside_is_refused(out):
    assert door.read_json(out, out / "train/shape/0/a.json", "json") == {"a": 1}
    for path in (out / "../elsewhere/a.json", out.parent / "elsewhere" / "a.json", Path("/etc/passwd")):
        with pytest.raises(door.Refused, match="is not inside"):
            door.read_bytes(out, path, "json")


def test_a_relative_out_is_its_own_root(out, monkeypatch):
    monkeypatch.chdir(out)
    assert door.read_json(Path("."), Path("train/shape/0/a.json"), "json") == {"a": 1}
    assert door.entries(Path("."), Path("train")) == [("shape", "folder")]


@pytest.mark.parametrize("where", ["train", "train/shape", "train/shape/0", "train/shape/0/a.json"])
def test_a_link_anywhere_on_the_way_is_refused_by_name(out, where):
    at = out / where
    os.rename(at, out.parent / "moved")
    at.symlink_to(out.parent / "moved")
    with pytest.raises(door.Refused, match="symbolic link") as err:
        door.read_bytes(out, out / "train/shape/0/a.json", "json")
    assert err.value.path == at
    with pytest.raises(door.Refused, match="symbolic link"):
        door.guard(out, out / "train/shape/0/a.json")


def test_only_a_regular_file_opens_and_never_waits(out):
    os.mkfifo(out / "fifo.json")
    with pytest.raises(door.Refused, match="not a regular file"):
        door.read_bytes(out, out / "fifo.json", "plan")
    assert door.kind_of(out, out / "fifo.json") == "other"


def test_each_kind_of_file_has_its_size_limit(out):
    path = out / "plan.json"
    with open(path, "wb") as f:
        f.truncate(door.LIMITS["plan"] + 1)
    with pytest.raises(door.Refused, match="bytes, more than a plan file may be"):
        door.read_bytes(out, path, "plan")


def test_json_deeper_than_the_limit_is_refused(out):
    ok = "[" * DEPTH + "]" * DEPTH
    assert door.parse_json(ok, Path("x")) is not None
    for deep in ("[" * (DEPTH + 2) + "]" * (DEPTH + 2), "[" * 100_000 + "]" * 100_000,
                 '{"a":' * 100 + "1" + "}" * 100):
        with pytest.raises(door.Refused, match="deeper"):
            door.parse_json(deep, Path("x"))


def test_unlink_removes_the_name_never_what_a_link_names(out):
    (out / ".mewl").symlink_to(out.parent / "elsewhere")
    with pytest.raises(door.Refused):
        door.unlink(out, out / ".mewl" / "a.json")
    assert (out.parent / "elsewhere" / "a.json").exists()
    door.unlink(out, out / "train/shape/0/a.json")
    door.unlink(out, out / "train/shape/0/a.json")  # gone already: nothing to do
    assert not (out / "train/shape/0/a.json").exists()


def test_a_logs_tail_is_its_last_line_escaped_and_cut(tmp_path):
    log = tmp_path / "1_0.out"
    log.write_bytes(b"x" * 100_000 + b"\nfirst\n\x1b[31m" + b"y" * 500 + b"\n\n")
    last = door.tail_line(log)
    assert last.startswith("\\x1b[31myyy") and "\x1b" not in last and len(last) < 260


def test_untrusted_text_is_escaped_and_cut():
    assert shown("a\x1b[2Jb\nc\x07") == "a\\x1b[2Jb\\nc\\x07"
    assert shown("\u202eevil") == "\\u202eevil"
    cut = shown("x" * 10_000_000)
    assert len(cut) < 260 and cut.endswith("(10000000 characters)")
    assert shown("naïve 日本") == "naïve 日本"
