"""A dataset you can trust, without Blender: every episode's record of
checksums, `mewl verify` naming damage of five kinds and a rerun restoring
every byte, episode claims between writers (a dead writer's taken over, a
live one's respected), dead writers' staging folders cleaned and reported,
a real full filesystem and a read-only one. Rendered datasets get the same
checks in test_pipeline_e2e.py."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mewl_gen.store import claims, layout, writers
from mewl_gen.store.files import folder as held_folder
from mewl_gen.store.record import RECORD, full_problem, read_record
from tests.command import MEWL
from tests.command import mewl_here as mewl

REPO = Path(__file__).resolve().parents[2]


def sample(out: Path, n: int = 5) -> subprocess.CompletedProcess:
    return mewl("sample", "--task", "shape", "--n", n, "--out", out, "--seed", 3, "--workers", 1)


def files(root: Path) -> dict[str, bytes]:
    """Every file a user sees (bookkeeping and staging aside), by path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith((".mewl", ".staging", ".damaged"))}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "specs"
    assert sample(out).returncode == 0
    return out


def test_every_episode_has_a_record_of_its_files_written_last(reference):
    folder = reference / "train/shape/0"
    record = read_record(folder)
    assert set(record) == {p.name for p in folder.iterdir()} - {RECORD} == {"episode.json", "info.json"}
    assert all(record[name]["size"] == (folder / name).stat().st_size for name in record)
    assert full_problem(folder) is None
    assert "_" in RECORD  # a panel's name is lowercase letters, digits, spaces and '#': never this


def damage(out: Path) -> dict[int, str]:
    """Five kinds of damage, one episode each; what verify must say."""
    ep = {i: out / f"train/shape/{i}" for i in range(5)}
    data = (ep[0] / "episode.json").read_bytes()
    (ep[0] / "episode.json").write_bytes(data[: len(data) // 2])  # truncated
    info = (ep[1] / "info.json").read_bytes()
    (ep[1] / "info.json").write_bytes(info.replace(b'"', b"'", 1))  # corrupt JSON, same size
    (ep[2] / "info.json").unlink()  # a file deleted
    (ep[3] / "notes.txt").write_text("mine")  # an extra file
    (ep[4] / RECORD).write_text("{garbage")  # a corrupt record
    return {0: "episode.json is", 1: "info.json: sha256 differs", 2: "info.json is missing",
            3: "notes.txt is not in", 4: f"no readable {RECORD}"}


@pytest.mark.slow
def test_verify_names_each_damaged_episode_and_a_rerun_restores_every_byte(reference, tmp_path):
    out = tmp_path / "specs"
    shutil.copytree(reference, out)
    want = damage(out)
    r = mewl("verify", out)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 5
    for i, says in want.items():
        assert any(line.startswith(f"damaged: train/shape/{i}: ") and says in line for line in lines), (i, lines)
    # status and validate never call a damaged episode complete
    r = mewl("status", out)
    assert r.returncode == 1 and "0/5 episodes complete" in r.stdout and "damaged: 0-4" in r.stdout, r.stdout
    for i in range(5):
        for command in ("validate", "inspect"):
            r = mewl(command, out / f"train/shape/{i}")
            assert r.returncode == 2 and r.stderr.count("\n") == 1 and "damaged item" in r.stderr, r.stderr
    # the rerun sets the damaged folders aside (nothing user-made is lost) and writes them again
    assert sample(out).returncode == 0
    assert files(out) == files(reference)
    aside = sorted((out / layout.DAMAGED / "train/shape").iterdir())
    assert len(aside) == 5 and (aside[3] / "notes.txt").read_text() == "mine"
    assert mewl("verify", out).returncode == 0
    r = mewl("status", out)
    assert r.returncode == 0 and "5 damaged episode folder(s) set aside" in r.stdout


def test_verify_tells_an_incomplete_dataset_from_a_damaged_one(reference, tmp_path):
    out = tmp_path / "specs"
    shutil.copytree(reference, out)
    shutil.rmtree(out / "train/shape/4")  # never written: absent, not damaged
    r = mewl("verify", out)
    assert r.returncode == 3 and r.stdout == "" and r.stderr.count("\n") == 1, (r.returncode, r.stdout, r.stderr)
    assert "4 episode(s) checked, 0 damaged; 1 of 5 planned episode(s) not written yet" in r.stderr, r.stderr
    assert mewl("verify", out, "--shard", "1/2").returncode == 0  # episodes 1 and 3: that shard's render is whole
    r = mewl("verify", out, "--shard", "0/2")
    assert r.returncode == 3 and "1 of 3 planned episode(s) of shard 0/2 not written yet" in r.stderr, r.stderr
    (out / "train/shape/0/info.json").unlink()
    r = mewl("verify", out)  # damage outranks absence: exit 1, both said
    assert r.returncode == 1 and "1 damaged" in r.stderr and "1 of 5 planned" in r.stderr, r.stderr
    assert sample(out).returncode == 0 and mewl("verify", out).returncode == 0


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_live_writers_claim_is_respected_and_a_dead_ones_taken_over(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with writers.Writer(out) as a, writers.Writer(out) as b:
        assert claims.claim(a, "train", "shape", 0) is None
        assert claims.claim(b, "train", "shape", 0) == f"{a.id}: taken over when its process {os.getpid()} ends"
        claims.release(a, "train", "shape", 0)
        assert claims.claim(b, "train", "shape", 0) is None
        claims.release(b, "train", "shape", 0)
        # a claim of a killed writer on this host: its pid is gone
        path = claims.claim_path(out, "train", "shape", 1)
        path.parent.mkdir(parents=True, exist_ok=True)
        dead = {**writers.identity(), "pid": dead_pid()}
        path.write_text(json.dumps(dead))
        assert [c.alive for c in claims.all_claims(out)] == [False]
        assert claims.claim(a, "train", "shape", 1) is None  # taken over
        assert claims.claim(b, "train", "shape", 1).startswith(f"{a.id}:")  # once only
        assert json.loads(path.read_text())["writer"] == a.id
        # a claim from another host is alive while its heartbeat is fresh
        other = {**dead, "host": "elsewhere", "writer": "elsewhere-1-x"}
        path2 = claims.claim_path(out, "train", "shape", 2)
        path2.write_text(json.dumps(other))
        assert claims.claim(a, "train", "shape", 2).startswith("elsewhere-1-x, last heard ")
        old = path2.stat().st_mtime - writers.STALE_AFTER - 1
        os.utime(path2, (old, old))
        assert claims.claim(a, "train", "shape", 2) is None


def test_work_runs_while_its_item_is_claimed_and_the_claim_goes_however_it_ends(tmp_path):
    """The farm's work gets fresh staging folders, never the writer; another writer's work on the item never runs."""
    out = tmp_path / "out"
    out.mkdir()
    path = claims.claim_path(out, "train", "shape", 0)
    with writers.Writer(out) as a, writers.Writer(out) as b:
        def work(staging) -> int:
            (staging() / "left.png").write_bytes(b"an earlier attempt")
            assert staging() == a.root / "train/shape/0" and not any(staging().iterdir())  # fresh each time
            assert json.loads(path.read_text())["writer"] == a.id
            assert claims.while_claimed(b, "train", "shape", 0, lambda _: pytest.fail("ran while held")).startswith(a.id)
            raise ValueError("the work failed")

        with pytest.raises(ValueError, match="the work failed"):
            claims.while_claimed(a, "train", "shape", 0, work)
        assert not path.exists()  # released on the way out
        assert claims.while_claimed(b, "train", "shape", 0, lambda staging: 7) == 7 and not path.exists()


def test_two_writers_taking_over_one_dead_claim_never_both_win(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = claims.claim_path(out, "train", "shape", 0)
    path.parent.mkdir(parents=True)
    dead = json.dumps({**writers.identity(), "pid": dead_pid()})
    with writers.Writer(out) as a, writers.Writer(out) as b, held_folder(out, path.parent) as fd:
        for _ in range(20):
            path.write_text(dead)
            # b has judged the claim dead too, but a replaced it first: b's takeover must fail
            assert claims._take_over(a, fd, path, dead, json.dumps(a.who)) is True
            assert claims._take_over(b, fd, path, dead, json.dumps(b.who)) is False
            assert json.loads(path.read_text())["writer"] == a.id


def test_dead_writers_staging_is_cleaned_by_the_next_run_and_reported(reference, tmp_path):
    out = tmp_path / "specs"
    shutil.copytree(reference, out)
    stale = out / writers.STAGING / f"somehost-{dead_pid()}-dead"
    (stale / "train/shape/7").mkdir(parents=True)
    (stale / writers.WRITER_FILE).write_text(json.dumps({**writers.identity(), "pid": dead_pid()}))
    with writers.Writer(out) as live:
        (live.root / "train/shape/8").mkdir(parents=True)
        r = mewl("status", out)
        assert "1 staging folder(s) and 0 claim(s) of dead writers" in r.stdout, r.stdout
        assert "1 writer(s) at work now" in r.stdout
        assert sample(out, n=6).returncode == 0
        assert not stale.exists() and (live.root / "train/shape/8").is_dir()  # a live writer's folder is never touched


def mount(target: Path, options: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()})")


@pytest.fixture
def small_fs(tmp_path):
    target = tmp_path / "fs"
    yield target
    subprocess.run(["umount", str(target)], capture_output=True)


def test_a_full_disk_is_one_line_publishes_nothing_half_written_and_resumes(reference, small_fs):
    mount(small_fs, "size=60k")
    out = small_fs / "specs"
    r = sample(out)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and f"no space left on {out}" in r.stderr, r.stderr
    published = [p for p in out.glob("train/shape/*")]
    assert len(published) < 5 and all(full_problem(p) is None for p in published)
    subprocess.run(["mount", "-o", "remount,size=4m", str(small_fs)], check=True)
    assert sample(out).returncode == 0
    assert files(out) == files(reference)


def test_a_read_only_or_unwritable_out_is_refused_in_one_line(tmp_path, small_fs):
    mount(small_fs, "size=1m,ro")
    under_a_file = tmp_path / "a-file"
    under_a_file.write_text("x")
    for out, says in ((small_fs / "data", "Read-only file system"), (under_a_file / "data", "is not a folder")):
        for args in (["sample", "--task", "shape", "--n", 1],
                     ["render", "--task", "shape", "--n", 1, "--quality", "draft", "--device", "cpu"]):
            r = mewl(*args, "--out", out)
            assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
            assert "Traceback" not in r.stderr and "render:" not in r.stderr  # refused before Blender starts
    assert not list(small_fs.iterdir())
    # a dataset already there, on a filesystem mounted read-only since
    subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert sample(small_fs / "data", n=1).returncode == 0
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    r = sample(small_fs / "data", n=2)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Read-only file system" in r.stderr, r.stderr


@pytest.mark.slow
def test_output_on_a_full_disk_is_one_line_and_exit_2(reference, small_fs):
    """stdout or stderr kept in a file on a full disk (a job's log): the command
    says so in one line where stderr can still be written, and exits 2."""
    mount(small_fs, "size=4k")
    (small_fs / "ballast").write_bytes(b"\0" * 4096)
    with open(small_fs / "out.txt", "w") as full:
        r = subprocess.run([*MEWL, "status", str(reference)], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=REPO, timeout=120, check=False)
    assert r.returncode == 2 and r.stderr == "mewl: error: cannot write this command's output: No space left on device\n"
    with open(small_fs / "out.txt", "w") as full:  # stderr too: the exit status alone says it
        r = subprocess.run([*MEWL, "tasks"], stdout=full, stderr=full, cwd=REPO, timeout=120, check=False)
    assert r.returncode == 2


@pytest.mark.parametrize("side", [16, 700])  # a small PNG is read once, hashed and decoded; a large one streamed
def test_a_pngs_checksum_and_decoding_are_checked_whatever_its_size(tmp_path, side):
    import numpy as np
    from PIL import Image

    from mewl_gen.store.record import WHOLE, write_record

    folder = tmp_path / "item"
    folder.mkdir()
    pixels = np.random.default_rng(side).integers(0, 256, (side, side, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(folder / "a.png", compress_level=0)
    assert ((folder / "a.png").stat().st_size > WHOLE) == (side == 700)
    write_record(folder)
    assert full_problem(folder) is None
    data = bytearray((folder / "a.png").read_bytes())
    data[-20] ^= 1  # the same size, another checksum
    (folder / "a.png").write_bytes(bytes(data))
    assert full_problem(folder) == "a.png: sha256 differs from the record"
    write_record(folder)  # the record agrees with the damaged bytes: they must still decode
    assert full_problem(folder).startswith("a.png: does not decode")
