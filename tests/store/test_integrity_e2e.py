"""Rendered datasets you can trust, end to end at preview quality: two
`mewl render` at once into one OUT, one of them in another PID namespace
(`unshare --pid`, as in a container), equal one uninterrupted run byte for
byte with no episode rendered twice; a killed writer's claim is taken over;
damage found by `mewl verify` is rendered again to the same bytes; a full
disk stops the run in one line and the rerun resumes; an OUT removed or
unmounted under a run stops it in one line and is never made again."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from mewl_gen.store import claims, writers
from mewl_gen.store.record import full_problem
from tests.command import MEWL, mewl_here

pytestmark = [pytest.mark.e2e, pytest.mark.render]

REPO = Path(__file__).resolve().parents[2]
TASKS, N = "shape", 2  # two episodes: two renders at once share them, two are damaged and repaired
ITEMS = len(TASKS.split(",")) * N


def render_args(out: Path, tasks: str = TASKS, n: int = N, *extra) -> list[str]:
    return [*MEWL, "render", "--task", tasks, "--n", str(n), "--out", str(out), "--quality", "preview",
            "--device", "cpu", "--seed", "11", "--workers", "1", *extra]


def files(root: Path, under: str = "") -> dict[str, bytes]:
    """Every file a user sees (bookkeeping and staging aside): PNG and JSON bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / under).rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith((".mewl", ".staging", ".damaged"))}


def done(stderr: str) -> tuple[int, int]:
    """(rendered by this run, finished by another writer) from the summary line."""
    m = re.search(r"render finished: done (\d+), skipped \d+ \(already complete\), failed 0(?:, (\d+) by another writer)?", stderr)
    assert m, stderr
    return int(m.group(1)), int(m.group(2) or 0)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single") / "data"
    r = subprocess.run(render_args(out), capture_output=True, text=True, cwd=REPO, timeout=900)
    assert r.returncode == 0, r.stderr
    assert done(r.stderr) == (ITEMS, 0)
    return out


def test_two_renders_at_once_one_in_another_pid_namespace_equal_one_uninterrupted_run(reference, tmp_path):
    """A writer in a container (its own PID namespace, where it is pid 1) and a plain one judge each other
    by their heartbeats: neither takes the other's claims or staging folder for a dead writer's."""
    out = tmp_path / "data"
    contained = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *render_args(out)],
                                 cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    procs = [contained]
    seen_incomplete = []
    deadline = time.monotonic() + 900
    try:
        while not [f for f in (out / ".staging").glob("[!.]*") if f.is_dir()]:  # the plain writer starts beside a live one
            if contained.poll() is not None:
                err = contained.stderr.read()
                if err.startswith("unshare:"):
                    pytest.skip(f"cannot unshare a PID namespace here ({err.strip()})")
                raise AssertionError(err)
            assert time.monotonic() < deadline, "the contained writer had no staging folder after 900 s"
            time.sleep(0.05)  # between looks; the loop ends on the folder appearing
        procs.append(subprocess.Popen(render_args(out), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        while any(p.poll() is None for p in procs):  # until both have exited, a look at what is published
            seen_incomplete += [f for f in out.glob("train/*/*") if full_problem(f) is not None]
            assert time.monotonic() < deadline, "the two renders had not finished after 900 s"
            time.sleep(0.2)  # between looks; the loop ends on the processes' exit
    except BaseException:
        for p in procs:
            p.kill()
        raise
    errs = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    assert not seen_incomplete, f"published incomplete: {seen_incomplete}"
    assert files(out) == files(reference)  # every byte: PNG, JSON, the card
    counts = [done(e) for e in errs]
    assert sum(mine for mine, _ in counts) == ITEMS, errs  # each episode rendered exactly once
    assert sum(other for _, other in counts) <= ITEMS
    assert not list((out / ".staging").iterdir()) and not claims.all_claims(out)


def test_a_killed_writers_claim_and_staging_are_taken_over(reference, tmp_path):
    out = tmp_path / "data"
    first = subprocess.run(render_args(out, "shape", 1), capture_output=True, text=True, cwd=REPO, timeout=600)
    assert first.returncode == 0, first.stderr
    shutil.rmtree(out / "train/shape/0")
    dead = subprocess.Popen(["true"])
    dead.wait()
    who = {**writers.identity(), "pid": dead.pid, "writer": f"{writers.identity()['host']}-{dead.pid}-dead"}
    path = claims.claim_path(out, "train", "shape", 0)
    path.write_text(json.dumps(who))
    staging = out / ".staging" / who["writer"]
    (staging / "train/shape/0").mkdir(parents=True)
    (staging / "train/shape/0/question.png").write_bytes(b"half")
    (staging / "writer.json").write_text(json.dumps(who))
    r = subprocess.run(render_args(out, "shape", 1), capture_output=True, text=True, cwd=REPO, timeout=600)
    assert r.returncode == 0, r.stderr
    assert done(r.stderr) == (1, 0) and "removed 1 staging folder(s) of dead writers" in r.stderr
    assert files(out, "train/shape/0") == files(reference, "train/shape/0")
    assert not staging.exists() and not path.exists()


def test_damage_is_named_by_verify_and_rendered_again_to_the_same_bytes(reference, tmp_path):
    out = tmp_path / "data"
    shutil.copytree(reference, out)
    png = out / "train/shape/0/question.png"
    png.write_bytes(png.read_bytes()[:1000])  # truncated: a plain rerun sees it by its size
    flipped = out / "train/shape/1/question.png"
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only the hash finds it
    flipped.write_bytes(bytes(data))
    r = mewl_here("verify", out)
    assert r.returncode == 1 and r.stdout.count("damaged: ") == 2, r.stdout
    assert "train/shape/0: question.png is 1000 bytes" in r.stdout and "train/shape/1: question.png: sha256" in r.stdout
    r = subprocess.run(render_args(out, TASKS, N, "--repair"), capture_output=True, text=True, cwd=REPO, timeout=600)
    assert r.returncode == 0, r.stderr
    assert done(r.stderr) == (2, 0)
    assert files(out) == files(reference)
    assert len(list((out / ".damaged").glob("train/*/*"))) == 2


@pytest.fixture
def small_fs(tmp_path):
    target = tmp_path / "fs"
    target.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(target)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()})")
    yield target
    subprocess.run(["umount", "-l", str(target)], capture_output=True)


def test_a_full_disk_stops_the_render_in_one_line_and_the_rerun_resumes(reference, small_fs, tmp_path):
    # With the renderer's scratch folder (TMPDIR) on the small disk, the smaller size leaves no room for the
    # first image's object-index EXR and the larger one cuts Blender's PNG short, which Blender does not report
    # (the sizes are docs/reference.md's storage faults); either way the line names the scratch's disk. With
    # the scratch elsewhere, the images copied into OUT do not fit, and the line names OUT. Then room: the same
    # command completes.
    out, scratch, roomy = small_fs / "data", small_fs / "tmp", tmp_path / "tmp"
    scratch.mkdir()
    roomy.mkdir()
    for size, tmp, full in (("300k", scratch, scratch), ("1400k", scratch, scratch), ("300k", roomy, out)):
        subprocess.run(["mount", "-o", f"remount,size={size}", str(small_fs)], check=True)
        start = time.monotonic()
        r = subprocess.run(render_args(out, "shape", N), capture_output=True, text=True, cwd=REPO, timeout=600,
                           env={**os.environ, "TMPDIR": str(tmp)})
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        errors = [line for line in r.stderr.splitlines() if line.startswith("mewl: error")]
        assert len(errors) == 1 and f"no space left on {full} (" in errors[0], r.stderr
        assert not list(tmp.glob("mewl-worker-*"))  # the worker's scratch folder removed
        assert "renderer crashed" not in r.stderr and "failed:" not in r.stderr and time.monotonic() - start < 300
        assert not list(out.glob(".mewl/failed/**/*.json"))  # a full disk is no item's failure
        assert all(full_problem(f) is None for f in out.glob("train/*/*"))  # nothing half-written published
        assert not list((out / ".staging").glob("*"))  # nor left in staging, Blender's scratch included
    subprocess.run(["mount", "-o", "remount,size=16m", str(small_fs)], check=True)
    r = subprocess.run(render_args(out, "shape", N), capture_output=True, text=True, cwd=REPO, timeout=600)
    assert r.returncode == 0, r.stderr
    for i in range(N):
        assert files(out, f"train/shape/{i}") == files(reference, f"train/shape/{i}")
    assert mewl_here("verify", out).returncode == 0


@pytest.mark.parametrize("how", ["deleted", "unmounted"])
def test_an_out_removed_mid_run_stops_the_render_in_one_line_and_is_never_made_again(small_fs, how):
    subprocess.run(["mount", "-o", "remount,size=16m", str(small_fs)], check=True)
    out = small_fs / "data" if how == "deleted" else small_fs  # unmounted: OUT is the mount point, left empty
    proc = subprocess.Popen(render_args(out, "icy-naming", 6), cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list(out.glob("train/icy-naming/*")):  # the first item published: the run is mid-way
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1]
        time.sleep(0.1)
    if how == "deleted":
        shutil.rmtree(out)
    else:
        subprocess.run(["umount", "-l", str(small_fs)], check=True)
    stderr = proc.communicate(timeout=300)[1]
    assert proc.returncode == 2 and stderr.count("mewl: error") == 1 and "Traceback" not in stderr, stderr
    assert f"mewl: error: {out} was removed or became unreadable while this run wrote it" in stderr, stderr
    assert not out.exists() if how == "deleted" else not list(out.iterdir()), sorted(str(p) for p in out.rglob("*"))  # nothing made again
