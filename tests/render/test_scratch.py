"""A worker killed with SIGKILL leaves its scratch folder in the system's temporary folder (Blender's log and
files); the next worker's start removes it, and only it: a living worker's folder (its lock held), a young
folder without a lock, another's link or file are left alone (render.worker.sweep_scratch). Pure: the workers
here are small processes holding the lock as a worker does; a real kill -9 of a render is
tests/cluster/test_pipeline_e2e.py's."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from mewl_gen.render.worker import ALIVE, LOCKLESS_AGE, SCRATCH_PREFIX, sweep_scratch

HOLD = ("import fcntl, os, sys\n"
        "fd = os.open(os.path.join(sys.argv[1], '.alive'), os.O_RDWR | os.O_CREAT, 0o600)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n")


def holder(folder: Path) -> subprocess.Popen:
    """A process holding the folder's lock as a worker does, until its stdin closes."""
    folder.mkdir()
    (folder / "blender.log").write_text("Blender's log\n")
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline() == "held\n"  # the event: the lock is held
    return proc


def test_a_killed_workers_folder_goes_and_a_living_ones_stays(tmp_path):
    root = tmp_path / "tmp"
    root.mkdir()
    killed, living = holder(root / f"{SCRATCH_PREFIX}killed"), holder(root / f"{SCRATCH_PREFIX}living")
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    young, old = root / f"{SCRATCH_PREFIX}young", root / f"{SCRATCH_PREFIX}old"  # no lock file
    young.mkdir()
    old.mkdir()
    (old / "blender.log").write_text("")
    long_ago = time.time() - LOCKLESS_AGE - 60
    os.utime(old, (long_ago, long_ago))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ALIVE).write_text("")
    (outside / "keep").write_text("kept")
    (root / f"{SCRATCH_PREFIX}link").symlink_to(outside)
    (root / f"{SCRATCH_PREFIX}file").write_text("a file of that name")
    (root / "other").mkdir()
    try:
        assert sweep_scratch(root) == 2
        assert sorted(p.name for p in root.iterdir()) == sorted(
            ["other", f"{SCRATCH_PREFIX}living", f"{SCRATCH_PREFIX}young", f"{SCRATCH_PREFIX}link",
             f"{SCRATCH_PREFIX}file"])
        assert (root / f"{SCRATCH_PREFIX}living" / "blender.log").is_file()
        assert sorted(p.name for p in outside.iterdir()) == [ALIVE, "keep"]
    finally:
        living.stdin.close()
        living.wait()
    assert sweep_scratch(root) == 1  # its worker gone, the living one's folder goes too
    assert sweep_scratch(tmp_path / "no such folder") == 0
