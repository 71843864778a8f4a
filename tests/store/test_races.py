"""Another job on a shared disk swaps OUT's folders for links while a command writes OUT: a check of a path
is worth nothing if the write goes by the path again. A process exchanges a folder of OUT with a link to a
folder outside it, as fast as it can, while each writing command runs again and again: every run ends with
its usual result or one line, never a traceback, and the folder outside keeps its listing and every byte
(no note, index, card or temporary file lands there, nothing is removed). A command that writes only
outside OUT (an export, a gallery, a study) reads nothing of the folder outside into what it writes."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from mewl_gen.store import damage

from .hostile import RENDERED_TASK, mewl, rerecord, snapshot

RUNS = 30  # runs of each command while its folder flips
SWAPPER = r"""
import ctypes, os, sys, time
inside, link, until = sys.argv[1], sys.argv[2], time.monotonic() + float(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
exchange = getattr(libc, "renameat2", None)
def swap():
    if exchange is not None and exchange(AT_FDCWD, inside.encode(), AT_FDCWD, link.encode(), RENAME_EXCHANGE) == 0:
        return
    aside = inside + ".aside"  # no renameat2 on this kernel or file system: rename loops, a gap between
    os.rename(inside, aside); os.rename(link, inside); os.rename(aside, link)
print("ready", flush=True)
while time.monotonic() < until:
    swap()
"""


@contextlib.contextmanager
def flipping(folder: Path, target: Path, seconds: float = 120):
    """`folder` of OUT exchanged with a link to `target` (outside OUT) in a loop by another process until the
    block ends, then left as it was: the real folder in its place."""
    link = folder.with_name(folder.name + ".swap")
    link.symlink_to(target)
    proc = subprocess.Popen([sys.executable, "-c", SWAPPER, str(folder), str(link), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "ready\n"
        yield
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if folder.is_symlink():  # stopped between two exchanges
            os.rename(folder, folder.with_name("gone"))
            os.rename(link, folder)
            os.unlink(folder.with_name("gone"))
        else:
            os.unlink(link)


def mirror(w, inside: Path, name: str) -> Path:
    """A copy outside OUT of one of its folders, the very names a write by path would land on; frozen."""
    target = w.outside / name
    shutil.copytree(inside, target, symlinks=True)
    return target


def ended_well(r, codes=(0, 1)) -> str:
    """Its usual result, or one line (a link met on the way, exit 2), after what it said of its work so far."""
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if r.returncode == 2:
        errors = [line for line in lines if line.startswith("mewl: error:")]
        assert errors == lines[-1:] and "Traceback" not in r.stderr and "\x1b" not in r.stderr, r.stderr[-2000:]
        return "refused"
    assert r.returncode in codes, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return "done"


def strays(out: Path) -> list[str]:
    """Temporary files or folders a write left behind in OUT."""
    return [str(p) for p in out.rglob("*") if p.name.endswith(".tmp") or p.name.endswith(".swap.aside")]


@pytest.mark.slow
def test_verify_never_writes_a_damage_note_outside_while_its_bookkeeping_flips(sampled):
    w = sampled
    for i in (1, 2):
        (w.item(i) / "episode.json").write_text("{}")  # damaged: every run writes their notes
    assert mewl("verify", w.out).returncode == 1
    notes = damage.notes_path(w.out, "train", w.task)  # with a stale note of sound item 0, which a run clears
    notes.write_text(json.dumps({"split": "train", "task": w.task, "damaged": "0-2"}))
    target = mirror(w, w.out / ".mewl", "bookkeeping")
    w.freeze()
    seen = []
    with flipping(w.out / ".mewl", target):
        for _ in range(RUNS):
            seen.append(ended_well(mewl("verify", w.out)))
            w.untouched()
    assert strays(w.out) == [] and "done" in seen, seen
    r = mewl("verify", w.out)
    assert r.returncode == 1 and f"train/{w.task}/1" in r.stdout


@pytest.mark.parametrize("command, dataset", [("index", "rendered"), ("text", "sampled")])
@pytest.mark.slow
def test_index_and_text_never_write_outside_while_their_split_folder_flips(command, dataset, request):
    w = request.getfixturevalue(dataset)
    target = mirror(w, w.out / "train", "split")
    w.freeze()
    with flipping(w.out / "train", target):
        for _ in range(RUNS):
            ended_well(mewl(command, w.out))
            w.untouched()
    assert strays(w.out) == []
    assert ended_well(mewl(command, w.out)) == "done"


@pytest.mark.parametrize("folder", [".mewl", ".staging"])
@pytest.mark.slow
def test_a_run_never_claims_plans_or_stages_outside_while_its_bookkeeping_flips(sampled, folder):
    """A run's writes of OUT's bookkeeping (the manifest's lock, plans, claims, failure notes) and of its
    staging folder (its writer's folder, an item's files, the publish), each run adding an item (sampled)."""
    w = sampled
    (w.out / folder).mkdir(exist_ok=True)
    target = mirror(w, w.out / folder, folder.strip("."))
    w.freeze()
    with flipping(w.out / folder, target):
        for n in range(4, 4 + RUNS // 2):
            ended_well(mewl("sample", "--task", w.task, "--n", n, "--out", w.out, "--seed", 3, "--workers", 1))
            w.untouched()
    assert strays(w.out) == []
    r = mewl("sample", "--task", w.task, "--n", 4 + RUNS // 2, "--out", w.out, "--seed", 3, "--workers", 1)
    assert r.returncode == 0, r.stderr
    assert mewl("verify", w.out).returncode == 0


READS = 3  # runs of each reading command (an export, a gallery, a study) while OUT's split flips


def rendered_draft(w) -> None:
    """The fake render's manifest as `mewl render --quality draft` pins it, so `render --repair` takes it for
    its own: with every item sound, it checks them all, notes and clears, and renders nothing."""
    manifest = w.out / "mewl-dataset.json"
    settings = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**settings, "kind": "rendered", "quality": "draft"}, indent=2) + "\n")


@pytest.mark.slow
def test_render_repair_never_locks_notes_or_plans_outside_while_its_bookkeeping_flips(rendered):
    """The repair's path before any render: the manifest's lock, the plan, the full check and its notes (a
    stale note of a sound item, planted before each run, which the run clears)."""
    w = rendered
    rendered_draft(w)
    repair = ("render", "--task", w.task, "--n", 3, "--seed", 3, "--out", w.out, "--repair", "--quality", "draft",
              "--device", "cpu", "--workers", 1)
    assert mewl(*repair).returncode == 0
    target = mirror(w, w.out / ".mewl", "bookkeeping")
    w.freeze()
    for _ in range(4):
        notes = w.out / ".mewl" / "damaged" / "train"
        notes.mkdir(parents=True, exist_ok=True)
        (notes / f"{w.task}.json").write_text(json.dumps({"split": "train", "task": w.task, "damaged": "1"}))
        with flipping(w.out / ".mewl", target):
            r = mewl(*repair)
            ended_well(r, codes=(0,))
            assert "render: nothing to do" in r.stderr or r.returncode == 2, r.stderr
        w.untouched()
    assert strays(w.out) == []
    r = mewl(*repair)  # the folder still: the stale note is cleared
    assert r.returncode == 0 and not damage.is_damaged(w.out, "train", w.task, 1), r.stderr


@pytest.mark.slow
def test_audit_never_writes_its_note_or_card_outside_while_its_bookkeeping_flips(rendered):
    w = rendered
    (w.out / ".mewl").mkdir(exist_ok=True)
    target = mirror(w, w.out / ".mewl", "bookkeeping")
    w.freeze()
    with flipping(w.out / ".mewl", target):
        for _ in range(READS):
            ended_well(mewl("audit", w.out))
            w.untouched()
    assert strays(w.out) == []


def spoiled_split(w) -> tuple[Path, list[bytes]]:
    """A copy outside OUT of its split whose images differ (each painted one colour) yet agree with their
    records: what a reader that followed the link would take for sound items. Returns it and its images."""
    target = mirror(w, w.out / "train", "split")
    images = []
    for png in sorted(target.rglob("image.png")):
        with Image.open(png) as im:
            Image.new(im.mode, im.size, (13, 37, 201)[: len(im.getbands())]).save(png)
        images.append(png.read_bytes())
        rerecord(png.parent)
    return target, images


@pytest.mark.parametrize("command", [("export", "{out}", "--to", "webdataset", "{dir}"),
                                     ("export", "{out}", "--to", "hf", "{dir}"),
                                     ("gallery", "{out}", "--out", "{dir}"),
                                     ("study", "{out}", "--out", "{dir}", "--task", RENDERED_TASK, "--split", "train",
                                      "--items", "1", "--practice", "1", "--catch", "1", "--seed", "3", "--pilot")],
                         ids=["webdataset", "hf", "gallery", "study"])
@pytest.mark.slow
def test_exports_gallery_and_study_never_read_outside_while_the_split_flips(rendered, command):
    """These write outside OUT (DIR, the user's), so only what they read is at stake: nothing of the copy
    outside reaches DIR, and nothing outside is changed."""
    w = rendered
    target, foreign = spoiled_split(w)
    w.freeze()
    seen = []
    with flipping(w.out / "train", target):
        for k in range(READS):
            dest = w.root / f"dest{k}"
            seen.append(ended_well(mewl(*(a.format(out=w.out, dir=dest) for a in command))))
            w.untouched()
            written = [p.read_bytes() for p in dest.rglob("*") if p.is_file() and not p.is_symlink()]
            assert not [p for p in written if any(image in p for image in foreign)]
    assert strays(w.out) == []



STAGING_SWAPPER = r"""
import ctypes, os, sys, time
staging, target, which, until = sys.argv[1], sys.argv[2], sys.argv[3], time.monotonic() + float(sys.argv[4])
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2

def item_folder():  # .staging/<writer>/<split>/<task>/<index>
    for top, dirs, _ in os.walk(staging):
        rel = os.path.relpath(top, staging)
        parts = rel.split(os.sep)
        if len(parts) == 3 and not any(part.startswith(".") for part in parts + dirs[:1]) and dirs:
            return os.path.join(top, dirs[0])
    return None

print("ready", flush=True)
item = None
while time.monotonic() < until and item is None:
    item = item_folder()
    time.sleep(0.001)
if which == "staging":  # the very folders a write by path would land in, made outside OUT
    swapped = staging
    for top, dirs, _ in os.walk(staging):
        for d in dirs:
            os.makedirs(os.path.join(target, os.path.relpath(os.path.join(top, d), staging)), exist_ok=True)
else:
    swapped = item
    os.makedirs(target, exist_ok=True)
link = swapped + ".swap"
os.symlink(target, link)
if libc.renameat2(AT_FDCWD, swapped.encode(), AT_FDCWD, link.encode(), RENAME_EXCHANGE) != 0:
    aside = swapped + ".aside"  # no renameat2 here: a gap between the renames
    os.rename(swapped, aside); os.rename(link, swapped); os.rename(aside, link)
print("swapped", flush=True)
"""


@pytest.mark.parametrize("which", ["staging", "item"])
@pytest.mark.slow
def test_a_render_never_writes_outside_when_its_staging_folder_becomes_a_link(tmp_path, which):
    """`mewl render` while another job, once the item's staging folder appears (Blender renders for it
    next), swaps OUT/.staging for a link to a mirror of its folders outside OUT (staging), or the item's
    staging folder for a link to a folder outside (item): Blender's process writes only in its worker's
    scratch folder and the item's files are copied in through held folders, so no file lands outside (a
    by-path save of the image, its passes or its truth would); the run ends as usual or in one line, and
    the next run renders the item."""
    from .hostile import outside_folder

    out, outside = tmp_path / "out", outside_folder(tmp_path)
    before = snapshot(outside)
    render = ("render", "--task", RENDERED_TASK, "--seed", 3, "--out", out, "--quality", "draft", "--device", "cpu",
              "--workers", 1, "--passes", "all")
    staging = out / ".staging"
    seen = []
    for k in range(3):
        staging.mkdir(parents=True, exist_ok=True)
        swapper = subprocess.Popen([sys.executable, "-c", STAGING_SWAPPER, str(staging), str(outside / f"in{k}"),
                                    which, "60"], stdout=subprocess.PIPE, text=True)
        try:
            assert swapper.stdout.readline() == "ready\n"
            r = mewl(*render, "--n", k + 1, timeout=120)  # a new item each run
            swapped = swapper.stdout.readline() == "swapped\n"
        finally:
            swapper.kill()
            swapper.wait()
        if staging.is_symlink():  # back as it was: the real folder in its place
            os.unlink(staging)
            os.rename(out / ".staging.swap", staging)
        seen.append((swapped, ended_well(r)))
        written = {k: v for k, v in snapshot(outside).items() if v[0] != "folder" or k in before}
        assert written == before, sorted(set(written) - set(before))
    assert (True, "refused") in seen, seen
    r = mewl(*render, "--n", 3, timeout=120)
    assert r.returncode == 0 and mewl("verify", out).returncode == 0, r.stderr
    assert strays(out) == []
