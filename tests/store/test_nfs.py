"""The rules open(2), link(2) and rename(2) give for NFS (store/nfs.py),
checked on local disk with the replies NFS may give: an exclusive creation is
decided by the link count whatever link() answers, an uncertain rename by
reading back what is there, and the attribute cache is read from the mount."""
from __future__ import annotations

import errno
import os

import pytest

from mewl_gen.store import nfs


@pytest.fixture
def held(tmp_path):
    """tmp_path's descriptor, as the door holds a folder."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def test_exclusive_creation_trusts_the_link_count_over_what_link_answers(tmp_path, held, monkeypatch):
    path = tmp_path / "claim.json"
    assert nfs.create_exclusive(held, path, "first\n") and not nfs.create_exclusive(held, path, "second\n")
    assert path.read_text() == "first\n" and [p.name for p in tmp_path.iterdir()] == ["claim.json"]
    link = os.link

    def retransmitted(src, dst, **kw):  # the link is made, but its reply was lost: the retry finds the name taken
        link(src, dst, **kw)
        raise FileExistsError(errno.EEXIST, "File exists", str(dst))

    monkeypatch.setattr(os, "link", retransmitted)
    other = tmp_path / "other.json"
    assert nfs.create_exclusive(held, other, "mine\n") and other.read_text() == "mine\n"
    assert not nfs.create_exclusive(held, other, "late\n")


def uncertain_renames(code: int):
    """os.replace as NFS may answer it with `code`: (one that renamed and then failed, one that failed)."""
    replace = os.replace

    def done_yet_failed(src, dst, **kw):
        replace(src, dst, **kw)
        raise OSError(code, os.strerror(code))

    def failed(src, dst, **kw):
        raise OSError(code, os.strerror(code))

    return done_yet_failed, failed


@pytest.mark.parametrize("code", [errno.ESTALE, errno.EIO, errno.ENOENT])  # ENOENT: a retransmission after success
def test_an_uncertain_rename_is_verified_by_reading_back(tmp_path, held, monkeypatch, code):
    done_yet_failed, failed = uncertain_renames(code)
    tmp, path = tmp_path / "new", tmp_path / "settings.json"
    tmp.write_bytes(b"ours")
    monkeypatch.setattr(os, "replace", done_yet_failed)
    nfs.replace(held, tmp, held, path, b"ours")
    assert path.read_bytes() == b"ours"
    tmp.write_bytes(b"again")
    monkeypatch.setattr(os, "replace", failed)
    with pytest.raises(OSError):
        nfs.replace(held, tmp, held, path, b"again")  # not done: what is there is not ours


@pytest.mark.parametrize("code", [errno.ESTALE, errno.ENOENT])
def test_a_file_written_line_by_line_is_verified_by_its_digest(tmp_path, monkeypatch, code):
    """files.write_lines_atomic keeps no copy of what it wrote: an uncertain rename is judged by the sha256."""
    from mewl_gen.store.files import write_lines_atomic

    done_yet_failed, failed = uncertain_renames(code)
    path = tmp_path / "train.text.jsonl"
    monkeypatch.setattr(os, "replace", done_yet_failed)
    write_lines_atomic(tmp_path, path, (f"{i}\n" for i in range(1000)))
    assert path.read_text() == "".join(f"{i}\n" for i in range(1000)) and sorted(tmp_path.iterdir()) == [path]
    monkeypatch.setattr(os, "replace", failed)
    with pytest.raises(OSError):
        write_lines_atomic(tmp_path, path, ["another\n"])  # not done: what is there is not ours
    assert path.read_text().startswith("0\n1\n") and sorted(tmp_path.iterdir()) == [path]


MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:50 / /shared rw,relatime shared:20 - nfs4 filer:/export rw,vers=4.2,rsize=1048576,hard,proto=tcp,timeo=600
41 40 0:51 / /shared/slow\\040cache rw - nfs filer:/slow rw,vers=3,acregmax=600,acdirmax=30
42 40 0:52 / /shared/noac rw - nfs4 filer:/noac rw,vers=4.1,noac
"""


def test_the_attribute_cache_is_read_from_the_mount():
    cache = {where: nfs.mount_cache(where, MOUNTINFO) for where in ("/data", "/shared/out", "/shared/slow cache/out", "/shared/noac")}
    assert cache == {"/data": None, "/shared/out": 60.0, "/shared/slow cache/out": 600.0, "/shared/noac": 0.0}


def test_an_item_whose_rename_into_place_is_uncertain_is_published_when_its_record_is_there(tmp_path, monkeypatch):
    from mewl_gen.store import layout
    from mewl_gen.store.manifest import claim_output
    from mewl_gen.store.record import RECORD

    out = tmp_path / "out"
    claim_output(out, {"seed": 0})
    staged = out / layout.STAGING / "staged"  # a writer's staging folder: inside OUT, as publish requires
    staged.mkdir(parents=True)
    (staged / "episode.json").write_text("{}\n")
    (staged / RECORD).write_text('{"episode.json": "ours"}\n')
    replace = os.replace

    def done_yet_failed(src, dst, **kw):
        replace(src, dst, **kw)
        raise OSError(errno.ESTALE, os.strerror(errno.ESTALE))

    monkeypatch.setattr(os, "replace", done_yet_failed)
    assert layout.publish(staged, out, "train", "shape", 0, durable=False)
    assert (layout.item_dir(out, "train", "shape", 0) / RECORD).read_text() == '{"episode.json": "ours"}\n'

    def failed(src, dst, **kw):  # the same reply, the rename not made: nothing of ours is there
        raise OSError(errno.ESTALE, os.strerror(errno.ESTALE))

    staged.mkdir()
    (staged / RECORD).write_text('{"episode.json": "again"}\n')
    monkeypatch.setattr(os, "replace", failed)
    with pytest.raises(OSError):
        layout.publish(staged, out, "train", "shape", 1, durable=False)
    assert not layout.item_dir(out, "train", "shape", 1).exists()
