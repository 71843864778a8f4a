"""The pages of files a process maps to read, let go of as it reads them.

`datasets` memory-maps the Arrow file it writes an export's rows to, and
writing that file out again (to Parquet, and to the save_to_disk copy) reads
it whole through the mapping: every page read stays resident in the process
until the dataset is dropped. So `mewl export --to hf` held a task's Arrow
file in its resident memory, and that grew with the items (issue 41: 322 MB
of RSS at 1,000 episodes, 827 MB at 16,000, its anonymous memory flat).

Those pages are the page cache's, not the process's: `let_go` drops them from
the process (madvise MADV_DONTNEED on its read-only mappings of the files
under a folder). Nothing read changes: a page of a file's mapping read again
comes back from the page cache, or the disk, as the same bytes, since nothing
writes to the file while it is mapped. `letting_go` does it every EVERY
seconds while a block of code reads the files.

It must not drop the pages of memory that only once was such a mapping: an
address a mapping left may be given to new memory, whose pages
MADV_DONTNEED would empty. So the mappings must live while `letting_go`
runs: the code in the block reads the files through objects made before it
and dropped after it (results.export_hf; tests/results/test_export.py checks
that every pass over a task's cache sees its one mapping, unchanged).
Elsewhere than Linux it does nothing.
"""
from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

MADV_DONTNEED = 4  # Linux's value
# Seconds between two passes of letting_go: an export reads its Arrow files at a few hundred MB a second, and
# a pass costs a read of /proc/self/maps (export hf at 4,000 episodes: 409 MB of max RSS at 0.1 s, 400 at 0.02).
EVERY = 0.02


@functools.cache
def _madvise():
    """libc's madvise, looked up when first needed (every `mewl` command imports this module); None
    elsewhere than Linux."""
    if sys.platform != "linux":
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.madvise.restype = ctypes.c_int
    return libc.madvise


def mappings(folder: Path) -> list[tuple[int, int]]:
    """(start, end) of each of this process's read-only mappings of a file under `folder`."""
    prefix = os.path.join(os.path.realpath(folder), "")
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(maxsplit=5)  # address perms offset dev inode pathname
        if len(fields) == 6 and "w" not in fields[1] and fields[5].startswith(prefix):
            start, end = (int(a, 16) for a in fields[0].split("-"))
            found.append((start, end))
    return found


def let_go(folder: Path) -> None:
    """Drop the resident pages of this process's read-only mappings of the files under `folder`."""
    madvise = _madvise()
    if madvise is None:
        return
    for start, end in mappings(folder):
        madvise(start, end - start, MADV_DONTNEED)  # a failure only leaves the pages resident


@contextmanager
def letting_go(folder: Path, every: float = EVERY):
    """let_go(folder) every `every` seconds while the block runs, and once at its end. The mappings
    of those files must outlive the block (the module's docstring says why)."""
    if _madvise() is None:
        yield
        return
    stop = threading.Event()

    def loop():
        while not stop.wait(every):
            let_go(folder)

    thread = threading.Thread(target=loop, name="mapped.letting_go", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        let_go(folder)
