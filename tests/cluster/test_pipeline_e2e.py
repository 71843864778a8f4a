"""`mewl render` end to end: MEWL's loaders read the result, every image
agrees with its ground truth, a kill -9 resumes to the pinned dataset (every
byte), SIGTERM stops cleanly and leaves only complete episodes."""
from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from PIL import Image

from mewl_gen.store import layout
from tests.command import MEWL, mewl_here
from tests.conftest import RENDERED_QUALITY, RENDERED_SEED, rendered_all
from tests.test_pinned_output import assert_pinned, digests

pytestmark = [pytest.mark.e2e, pytest.mark.render]

REPO = Path(__file__).resolve().parents[2]
# The reference covers every MEWL task: the session's one preview render of
# every task (tests/conftest.py, 63 of its images are MEWL's);
# MEWL_E2E_TASKS=number,pragmatic renders a quicker one of its own. The kill -9
# run renders two tasks with different shapes of episode (many objects; the
# hand) at the shared render's quality, and must give their pinned bytes (tests/test_pinned_output.py,
# PNGs included on a pinned CPU).
TASKS = os.environ.get("MEWL_E2E_TASKS", "mewl")
RESUME_TASKS = "number,pragmatic"
N = 1


def render_args(out: Path, tasks: str, n: int = N) -> list[str]:
    return [*MEWL, "render", "--task", tasks, "--n", str(n), "--out", str(out), "--quality", RENDERED_QUALITY,
            "--device", "cpu", "--seed", RENDERED_SEED, "--workers", "1"]


def episode_folders(out: Path) -> list[Path]:
    return sorted(p for p in out.glob("train/*/*") if p.is_dir() and not p.name.startswith("."))


def panel_names(folder: Path) -> list[str]:
    info = json.loads((folder / "info.json").read_text())
    return [p["name"] for p in info["context_panels"]] + ["question"]


POLL = 0.02  # seconds between looks while waiting for an event; no outcome depends on it


def wait_for(what: str, found, proc: subprocess.Popen, timeout: float, each=lambda: None):
    """Look every POLL seconds until `found()` returns something true and return it; fail the
    test naming `what` if `proc` ends first or `timeout` seconds pass. `each()` runs at every look."""
    deadline = time.monotonic() + timeout
    while True:
        each()
        result = found()
        if result:
            return result
        assert proc.poll() is None, f"mewl render exited ({proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"{what}: not seen within {timeout:.0f} s"
        time.sleep(POLL)


def staged_images(out: Path, task: str = "*") -> dict[Path, int]:
    """Items being rendered now (in a writer's staging folder) and how many of their PNGs are
    written (each is renamed into place whole, so a PNG there is a finished image)."""
    counts: dict[Path, int] = {}
    for png in out.glob(f".staging/*/train/{task}/*/*.png"):
        counts[png.parent] = counts.get(png.parent, 0) + 1
    return counts


def is_whole(folder: Path) -> bool:
    """Every file an episode has: info, episode, and a PNG and JSON per image."""
    names = {p.name for p in folder.iterdir()}
    if not {"info.json", "episode.json"} <= names:
        return False
    return all({f"{n}.png", f"{n}.json"} <= names for n in panel_names(folder))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "data"
    if TASKS == "mewl":  # MEWL's task folders of the shared render, alone as a MEWL release holds them
        for task in task_names():
            (out / "train").mkdir(parents=True, exist_ok=True)
            (out / "train" / task).symlink_to(rendered_all() / "train" / task, target_is_directory=True)
        return out
    r = subprocess.run(render_args(out, TASKS), capture_output=True, text=True, cwd=REPO, timeout=900)
    assert r.returncode == 0, r.stderr
    assert f"render finished: done {len(task_names())}, skipped 0" in r.stderr
    return out


def task_names() -> list[str]:
    from mewl_gen.tasks.mewl.item import TASKS as ALL

    return list(ALL) if TASKS == "mewl" else TASKS.split(",")


def mewl_style_loader(root: Path, split: str = "train", task: str = "*"):
    """What MEWL's baselines/dataset.py does, minus the model."""
    for episode in pathlib_glob(root, f"{split}/{task}/*"):
        info = json.loads((episode / "info.json").read_text())
        images = [Image.open(episode / f"{p['name']}.png") for p in info["context_panels"]]
        images.append(Image.open(episode / "question.png"))
        choices, answer = info["question"]["choices"], info["question"]["answer"]
        yield episode, images, choices.index(answer)


def pathlib_glob(root: Path, pattern: str) -> list[Path]:
    return list(root.glob(pattern))  # pathlib, as MEWL: hidden names match too


def test_mewl_loaders_read_every_episode(reference):
    loaded = list(mewl_style_loader(reference))
    assert sorted(str(e.relative_to(reference)) for e, _, _ in loaded) == sorted(f"train/{t}/0" for t in task_names())
    for _, images, answer_idx in loaded:
        assert len(images) == 7 and 0 <= answer_idx < 5
        assert all(im.size == (320, 240) for im in images)


def test_every_image_agrees_with_its_ground_truth_and_the_episode(reference):
    for folder in episode_folders(reference):
        episode = json.loads((folder / "episode.json").read_text())
        scenes = [(p["name"], p["scene"]) for p in episode["context_panels"]] + [("question", episode["query"])]
        for name, scene in scenes:
            assert scene["render"]["quality"] == RENDERED_QUALITY  # what was rendered, recorded
            truth = json.loads((folder / f"{name}.json").read_text())
            with Image.open(folder / f"{name}.png") as im:
                assert im.size == (scene["camera"]["width"], scene["camera"]["height"])
            assert truth["image_filename"] == f"{name}.png"
            assert len(truth["objects"]) == len(scene["objects"]) + (scene["hand"] is not None)  # the hand last
            for o, spec in zip(truth["objects"], scene["objects"]):
                assert [o[k] for k in ("shape", "color", "material", "size")] == [spec[k] for k in ("shape", "color", "material", "size")]
                assert o["3d_coords"][:2] == pytest.approx(spec["position"])
                x, y, w, h = o["bbox"]
                assert o["visible_pixels"] >= 200 and 0 <= x and x + w <= 320 and 0 <= y and y + h <= 240
            hand = scene["hand"]
            assert truth["points_to"] == (None if hand is None else hand["target"])
        if episode["task"] == "pragmatic":  # its panels point
            assert any(p["scene"]["hand"] for p in episode["context_panels"])


def test_resume_after_kill_9_gives_the_pinned_dataset(tmp_path):
    out, scratch = tmp_path / "data", tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(render_args(out, RESUME_TASKS), cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "TMPDIR": str(scratch)})
    partial, published = [], []
    # Killed mid-episode after a random number of the next episode's 7 images (at least one is
    # missing): the event is that image's PNG appearing in the writer's staging folder.
    images_before_kill = random.randint(1, 6)

    def watch() -> None:  # every published episode folder must be whole the moment it is seen
        folders = episode_folders(out) if out.exists() else []
        partial.extend(f for f in folders if not is_whole(f))
        published[:] = folders

    try:
        wait_for("the first published episode (no episode was finished before the time limit)",
                 lambda: published, proc, 300, each=watch)
        wait_for(f"image {images_before_kill} of the next episode in staging",
                 lambda: [f for f, n in staged_images(out).items() if n >= images_before_kill], proc, 120, each=watch)
        assert proc.poll() is None, "the run ended before the kill"
    finally:
        with contextlib.suppress(ProcessLookupError):  # gone already: the assertion above says so
            os.killpg(proc.pid, signal.SIGKILL)  # the parent and its Blender children
        proc.wait()
    assert not partial, f"partial episodes were visible: {partial}"
    assert published, "no episode was finished before the time limit"
    # Blender's files (log, object-index EXR, the image before it is copied in) lie in its worker's scratch
    # folder in the system's temporary folder, never under OUT, whose folders others may swap for links
    assert list(scratch.glob("mewl-worker-*/blender.log"))
    assert not [p for p in out.rglob("*") if "mewl-worker-" in p.name or p.name in ("blender.log", "renders")]
    r = subprocess.run(render_args(out, RESUME_TASKS), capture_output=True, text=True, cwd=REPO,
                       timeout=600, env={**os.environ, "TMPDIR": str(scratch)})
    assert r.returncode == 0, r.stderr
    assert "removed 1 staging folder(s) of dead writers" in r.stderr
    # The killed workers' scratch folders went with the resumed run's first start, its own at its end.
    assert not list(scratch.glob("mewl-worker-*"))
    assert not layout.partial_items(out) and not list(out.glob(".staging/*"))

    tasks = RESUME_TASKS.split(",")
    assert [str(f.relative_to(out)) for f in episode_folders(out)] == [f"train/{t}/0" for t in sorted(tasks)]
    # every file of both items, PNGs too where this CPU is pinned: what one uninterrupted run gave before
    assert_pinned(digests(out), RENDERED_QUALITY, tasks)


def test_sigterm_stops_cleanly_leaving_only_complete_episodes(tmp_path):
    out = tmp_path / "data"
    proc = subprocess.Popen(render_args(out, "shape", n=3), cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # Mid-render: an episode in a writer's staging folder has its first image, Blender renders the next.
        wait_for("the first image of an episode in staging (no episode was started)",
                 lambda: staged_images(out, "shape"), proc, 120)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    blenders = children(proc.pid)
    assert blenders, "no Blender worker is running"
    start = time.monotonic()
    # As SLURM or `timeout make render` do: the whole group, Blender included, twice; the
    # second once mewl has taken the first (it ignores SIGTERM from then on) and is cleaning up.
    os.killpg(proc.pid, signal.SIGTERM)
    _wait_until_ignored(proc.pid, signal.SIGTERM, timeout=20)
    os.killpg(proc.pid, signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert time.monotonic() - start < 20
    assert "terminated" in stderr and "Traceback" not in stderr
    assert not layout.partial_items(out)
    assert all(is_whole(f) for f in episode_folders(out))
    deadline = time.monotonic() + 5  # every Blender ends with mewl: they had the group's SIGTERM and mewl's
    while left := [pid for pid in blenders if Path(f"/proc/{pid}").exists() and not _zombie(pid)]:
        assert time.monotonic() < deadline, f"Blender worker(s) {left} still running 5 s after mewl exited"
        time.sleep(POLL)


def _wait_until_ignored(pid: int, sig: int, timeout: float) -> None:
    """Until process `pid` ignores `sig` (its SigIgn mask in /proc): mewl's handler of a
    first SIGINT or SIGTERM sets both to ignored before it cleans up. Also returns when
    `pid` has exited already (a zombie, not yet waited for: it took the signal)."""
    deadline = time.monotonic() + timeout
    while True:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        if fields["State"].split()[0] == "Z" or int(fields["SigIgn"], 16) & (1 << (sig - 1)):
            return
        assert time.monotonic() < deadline, f"mewl render did not take the first SIGTERM within {timeout:.0f} s"
        time.sleep(POLL)


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def test_inspect_overlays_a_rendered_episode(reference, tmp_path):
    folder = reference / "train/pragmatic/0"
    sheet = tmp_path / "sheet.png"
    r = mewl_here("inspect", folder, "--overlay", sheet)
    assert r.returncode == 0, r.stderr
    assert "points to #" in r.stdout and "choices:" in r.stdout
    with Image.open(sheet) as im:
        assert im.size == (4 * 640, 2 * (480 + 18))
