"""Writers told apart by more than their pid, without Blender: a writer in
another PID namespace (a real `unshare --pid`), on another host or from an
earlier boot is judged by its heartbeat alone; a silent one's items count as
missing for `mewl status` and `mewl slurm`, a heard one's as running; a
waiting writer says when it takes over, and does; any run removes dead
writers' leftovers; and the staleness limit exceeds NFS's attribute cache."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mewl_gen.store import bookkeeping, claims, layout, nfs, writers
from tests.cluster.slurm.test_arrays import claimed, mark_complete
from tests.command import MEWL
from tests.command import mewl_here as mewl

REPO = Path(__file__).resolve().parents[2]


def plant(out: Path, index: int, who: dict, age: float = 0.0) -> Path:
    """A claim of item `index` of shape by `who`, last heard `age` seconds ago."""
    path = claims.claim_path(out, "train", "shape", index)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(who))
    heard = time.time() - age
    os.utime(path, (heard, heard))
    return path


STALE = writers.STALE_AFTER + 5  # seconds unheard: dead when judged by the heartbeat


def test_a_writer_in_another_pid_namespace_is_judged_by_its_heartbeat(tmp_path):
    inside = subprocess.Popen(
        ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-c",
         "import json, sys; from mewl_gen.store import writers; print(json.dumps(writers.identity()), flush=True); sys.stdin.read()"],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = inside.stdout.readline()
        if not line:
            pytest.skip(f"cannot unshare a PID namespace here ({inside.stderr.read().strip()})")
        who = json.loads(line)
        here = writers.identity()
        assert who["pid"] == 1 and who["pidns"] != here["pidns"]
        assert (who["host"], who["boot"]) == (here["host"], here["boot"])
        # pid 1 here is this machine's init, started long before: judged by pid, the writer would be dead
        assert writers.is_alive(who, time.time()) and not writers.is_alive(who, time.time() - STALE)
        out = tmp_path / "out"
        out.mkdir()
        with writers.Writer(out) as mine:
            path = plant(out, 0, who)
            until = time.strftime("%H:%M:%S", time.localtime(path.stat().st_mtime + writers.STALE_AFTER))
            assert claims.claim(mine, "train", "shape", 0).endswith(f"taken over at {until} if it stays silent")
            plant(out, 0, who, age=STALE)
            assert claims.claim(mine, "train", "shape", 0) is None  # silent too long: taken over
    finally:
        inside.kill()
        inside.wait()


def test_silent_writers_elsewhere_count_as_missing_and_heard_ones_as_running(tmp_path):
    out = claimed(tmp_path / "data")
    bookkeeping.record_plan(out, "train", "shape", 3)
    here = writers.identity()
    node = {**here, "host": "node7", "writer": "node7-4242-ab", "pid": 4242, "slurm_job": "4242_0"}
    earlier_boot = {**here, "boot": "0" * 36, "writer": "this-host-earlier-boot"}  # its pid now names this test
    plant(out, 0, node)
    plant(out, 1, node, age=STALE)
    plant(out, 2, earlier_boot, age=STALE)
    rows = json.loads(mewl("status", out, "--json").stdout)
    assert (rows[0]["in_progress"], rows[0]["missing"]) == ([0], [1, 2])
    report = mewl("status", out).stdout
    assert "1 claim(s) of writers on other hosts or in other PID namespaces, judged by their heartbeat" in report
    assert "0 staging folder(s) and 2 claim(s) of dead writers" in report, report
    plan = mewl("slurm", "--task", "shape", "--n", 3, "--out", out, "--array", 3)
    assert "2 of 3 shards (1-2), 2 episode(s) missing" in plan.stderr, plan.stderr
    for i in (1, 2):
        mark_complete(out, "shape", i)
    plan = mewl("slurm", "--task", "shape", "--n", 3, "--out", out, "--array", 3)
    assert plan.returncode == 0 and plan.stdout.startswith("nothing to submit now: 1 episode(s) of train are claimed "
                                                           "by live writers; 1 by writers on other hosts"), plan.stdout
    assert "count as missing by " in plan.stdout and not (out / "slurm").exists()


@pytest.mark.slow
def test_a_waiting_writer_says_when_it_takes_over_and_does(tmp_path):
    out = tmp_path / "specs"
    node = {**writers.identity(), "host": "node7", "writer": "node7-4242-ab"}
    path = plant(out, 0, node)
    heard = path.stat().st_mtime
    sampler = subprocess.Popen([*MEWL, "sample", "--task", "shape", "--n", "1", "--out", str(out), "--workers", "1"],
                               cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        said = sampler.stderr.readline()  # it waits for the live claim and says until when
        clock = time.strftime("%H:%M:%S", time.localtime(heard))
        until = time.strftime("%H:%M:%S", time.localtime(heard + writers.STALE_AFTER))
        assert said == (f"sample: waiting: shape episode 0 is being written by another writer (node7-4242-ab, "
                        f"last heard {clock}: taken over at {until} if it stays silent)\n"), said
        assert sampler.poll() is None and not layout.is_complete(out, "train", "shape", 0)
        plant(out, 0, node, age=STALE)  # the node falls silent
        assert sampler.wait(timeout=120) == 0, sampler.stderr.read()
    finally:
        sampler.kill()
    assert layout.is_complete(out, "train", "shape", 0) and not claims.all_claims(out)


def test_any_run_removes_dead_writers_leftovers_even_with_nothing_to_do(tmp_path):
    out = claimed(tmp_path / "data")
    for i in range(2):
        mark_complete(out, "shape", i)
    dead = {**writers.identity(), "host": "node7", "writer": "node7-1-dead"}
    stale = out / writers.STAGING / dead["writer"]
    (stale / "train/shape/1").mkdir(parents=True)
    plant(out, 1, dead, age=STALE)
    (stale / writers.WRITER_FILE).write_text(json.dumps(dead))
    old = time.time() - STALE
    os.utime(stale / writers.WRITER_FILE, (old, old))
    with writers.Writer(out) as live:
        r = mewl("render", "--task", "shape", "--n", 2, "--out", out, "--device", "cpu")
        assert r.returncode == 0, r.stderr
        assert "nothing to do, 2 episode(s) already complete" in r.stderr
        assert "removed 1 staging folder(s) of dead writers" in r.stderr, r.stderr
        assert not stale.exists() and not claims.all_claims(out) and live.root.is_dir()


YEAR = 365 * 24 * 3600.0


def test_a_heartbeat_in_the_future_keeps_nothing_alive(tmp_path):
    """A claim or a staging folder dated a year ahead (a wrong clock, or a hand with os.utime) would hold its
    item for a year: it is a dead writer's, said in one line with its date, and a run takes it over."""
    out = claimed(tmp_path / "data")
    bookkeeping.record_plan(out, "train", "shape", 3)
    node = {**writers.identity(), "host": "node7", "writer": "node7-4242-ab"}
    plant(out, 0, node, age=-YEAR)
    plant(out, 1, node, age=-writers.AHEAD / 2)  # clocks that disagree within the lease's room: alive
    stale = out / writers.STAGING / "node7-1-ahead"
    (stale / "train/shape/2").mkdir(parents=True)
    (stale / writers.WRITER_FILE).write_text(json.dumps({**node, "writer": "node7-1-ahead"}))
    ahead = time.time() + YEAR
    os.utime(stale / writers.WRITER_FILE, (ahead, ahead))
    rows = json.loads(mewl("status", out, "--json").stdout)
    assert (rows[0]["in_progress"], rows[0]["missing"]) == ([1], [0, 2])
    said = [line for line in mewl("status", out).stdout.splitlines() if "in the future" in line]
    assert len(said) == 1 and "1 claim(s) and 1 staging folder(s)" in said[0], said
    assert time.strftime("%Y-%m-%d", time.localtime(ahead)) in said[0]  # not today: its date is shown
    specs = tmp_path / "specs"
    plant(specs, 0, node, age=-YEAR)
    r = mewl("sample", "--task", "shape", "--n", 1, "--out", specs, "--workers", 1)
    assert r.returncode == 0 and "waiting" not in r.stderr, r.stderr
    assert [line for line in r.stderr.splitlines() if "in the future" in line], r.stderr
    assert layout.is_complete(specs, "train", "shape", 0) and not claims.all_claims(specs)


def test_times_not_of_today_carry_their_date():
    now = time.time()
    assert writers.clock(now) == time.strftime("%H:%M:%S", time.localtime(now))
    assert writers.clock(now + YEAR) == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now + YEAR))


def test_the_staleness_limit_exceeds_a_heartbeat_and_nfs_attribute_cache(tmp_path):
    assert writers.STALE_AFTER > writers.HEARTBEAT + nfs.NFS_CACHE_DEFAULT  # nfs(5)'s default acregmax, acdirmax
    assert writers.nfs_warning(tmp_path) is None  # local disk here


def test_a_writer_makes_nothing_in_what_an_out_unmounted_under_it_leaves(tmp_path, monkeypatch):
    """OUT unmounted (or emptied) after the writer last found its manifest (layout.present) and before it
    makes a folder, the race that a loaded machine widens: OUT's path names the empty folder left under the
    mount point. What the writer makes there (a claim's or an item's staging folders, the task's folder an
    item is published into) is removed again, and each is one Vanished line."""
    from mewl_gen.cluster.planning import Settings
    from mewl_gen.errors import Vanished
    from mewl_gen.store.manifest import claim_output

    out = tmp_path / "data"
    claim_output(out, Settings(out=out, split="train", seed=0, quality="preview").manifest("rendered"), ["mewl"])
    with writers.Writer(out, heartbeat=False) as writer:
        staged = writer.staging("train", "shape", 0)
        (staged / "record").write_text("{}")
        layout.present(out)
        for entry in list(out.iterdir()):  # unmounted: what is left at OUT's path is an empty folder
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        monkeypatch.setattr(layout, "present", lambda out: None)  # as publish's look before the unmount found it
        for make in (lambda: claims.claim(writer, "train", "shape", 1), lambda: writer.staging("train", "shape", 1),
                     lambda: layout.publish(staged, out, "train", "shape", 0)):
            with pytest.raises(Vanished, match=f"^{out} was removed or became unreadable while this run wrote it"):
                make()
            assert not list(out.iterdir())
