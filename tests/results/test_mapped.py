"""results.mapped: the pages of the files an export maps to read are let go of, and nothing read changes."""
from __future__ import annotations

import hashlib
import mmap
import sys
import threading
import time

import pytest

from mewl_gen.results import mapped

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="madvise and /proc/self/maps are Linux's")

SIZE = 32 * 2**20


def resident_file_kb() -> int:
    """This process's resident pages of mapped files (RssFile), in kB."""
    line = next(x for x in open("/proc/self/status") if x.startswith("RssFile:"))
    return int(line.split()[1])


def read_all(view) -> str:
    return hashlib.sha256(view[:]).hexdigest()


def a_file(path, size=SIZE):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(range(256)) * (size // 256))
    return open(path, "rb")


def test_let_go_drops_the_pages_read_through_a_mapping_and_they_read_the_same_again(tmp_path):
    with a_file(tmp_path / "maps" / "data.arrow") as f, a_file(tmp_path / "other" / "kept.arrow") as g:
        view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        kept = mmap.mmap(g.fileno(), 0, access=mmap.ACCESS_READ)
        digest = read_all(view)
        read_all(kept)
        assert len(mapped.mappings(tmp_path / "maps")) == 1  # the other folder's file is not its
        before = resident_file_kb()
        mapped.let_go(tmp_path / "maps")
        assert before - resident_file_kb() > 0.75 * SIZE / 1024, "the mapping's pages stayed resident"
        assert read_all(view) == digest
        dropped_again = resident_file_kb()
        mapped.let_go(tmp_path / "maps")
        assert dropped_again - resident_file_kb() > 0.75 * SIZE / 1024  # read again, and let go again
        view.close()
        kept.close()


def test_a_mapping_written_to_is_never_let_go_of(tmp_path):
    """A private mapping the process wrote to holds the only copy of what it wrote: dropping its pages
    would lose it. Only read-only mappings are let go of."""
    with a_file(tmp_path / "maps" / "data.arrow") as f:
        view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        view[:4] = b"mewl"
        assert mapped.mappings(tmp_path / "maps") == []
        mapped.let_go(tmp_path / "maps")
        assert view[:4] == b"mewl"
        view.close()


def test_letting_go_runs_while_the_block_runs_and_stops_with_it_also_on_an_error(tmp_path):
    with a_file(tmp_path / "maps" / "data.arrow") as f:
        view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        with pytest.raises(RuntimeError, match="the block failed"):
            with mapped.letting_go(tmp_path / "maps", every=0.01):
                before = resident_file_kb()
                read_all(view)
                deadline = time.monotonic() + 30
                while resident_file_kb() - before > 0.25 * SIZE / 1024:  # until the thread's next pass
                    assert time.monotonic() < deadline, "no pass let the pages go"
                    time.sleep(0.01)
                raise RuntimeError("the block failed")
        assert not any(t.name == "mapped.letting_go" for t in threading.enumerate())
        view.close()
