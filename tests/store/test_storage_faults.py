"""A disk that fills at each stage of an item, on a real tmpfs that holds OUT
and, beside it, the renderer's scratch folder (where TMPDIR points): the
staging folder, the object-index EXR, Blender's PNG (which Blender leaves cut
short without a word), the item's JSON files and the publish. Each is one
storage fault (NoSpace, exit 2 in `mewl`) naming the filesystem that is full
(the scratch's for Blender's files, OUT's for the rest), never a renderer
crash nor a failed item;
with room again, every item is rendered and `mewl verify` passes (a real
crash meanwhile is retried, its whole reason kept). The stage
is hit exactly: just before it, a ballast file (or empty files, for inodes)
leaves the room measured with statvfs. A log that cannot be written stops
`mewl render` with exit 2 too."""
from __future__ import annotations

import math
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from mewl_gen.cluster.item_job import render_item
from mewl_gen.cluster.planning import Settings
from mewl_gen.render import Worker
from mewl_gen.render.storage import raw_bytes
from mewl_gen.store import bookkeeping, layout
from mewl_gen.errors import NoSpace
from mewl_gen.store.manifest import claim_output
from mewl_gen.store.record import full_problem
from mewl_gen.store.writers import Writer
from mewl_gen.tasks.catalog import sample_item
from tests.command import MEWL, mewl_here
from tests.store.test_integrity import mount

pytestmark = [pytest.mark.e2e, pytest.mark.render]

REPO = Path(__file__).resolve().parents[2]
TASK, PAGE = "icy-naming", 4096  # one image per item; tmpfs counts whole pages


@pytest.fixture
def disk(tmp_path):
    target = tmp_path / "fs"
    mount(target, "size=8m,nr_inodes=2000")
    yield target
    subprocess.run(["umount", str(target)], capture_output=True, check=False)


class Ballast:
    """Fills the mount but for a given room: bytes (one file) or inodes (empty files)."""

    def __init__(self, disk: Path):
        self.folder = disk / "ballast"
        self.folder.mkdir()
        self.files = 0

    def leave(self, room: int = 0, inodes: int | None = None) -> None:
        st = os.statvfs(self.folder)
        if inodes is None:
            with open(self.folder / f"{self.files}", "wb") as f:
                f.write(bytes(st.f_bavail * st.f_frsize - room))
            self.files += 1
            return
        for k in range(st.f_favail - inodes):
            (self.folder / f"{self.files + k}").touch()
        self.files += st.f_favail - inodes

    def clear(self) -> None:
        for p in self.folder.iterdir():
            p.unlink()
        self.files = 0


def test_a_disk_filling_at_each_stage_of_an_item_is_one_fault_and_never_a_failed_item(disk):
    out = disk / "data"
    settings = Settings(out=out, split="train", seed=11, quality="preview")
    claim_output(out, settings.manifest("rendered"), ["icy"])
    bookkeeping.record_plan(out, "train", TASK, 5)
    item = sample_item(TASK, 11, "train", 0)
    camera = next(iter(item.scenes().values())).camera
    exr = math.ceil((raw_bytes(camera.width, camera.height, 4, 4) + 2 * PAGE) / PAGE) * PAGE  # RGBA float32 + header
    news = len(item.release_files()) + 2  # files an item's folder gains after its image: truth, release files, record
    ballast = Ballast(disk)
    stop = threading.Event()
    scratch = disk / "tmp"
    with Writer(out, heartbeat=False) as writer, Worker(device="cpu", temp_dir=scratch) as worker, \
            Writer(out, heartbeat=False) as newcomer:
        def attempt(index: int, before=lambda: None, after_image=lambda: None, by: Writer = writer) -> str:
            before()
            with pytest.raises(NoSpace) as caught:
                render_item(worker, by, settings, TASK, index, stop, on_image=after_image)
            ballast.clear()
            return str(caught.value)

        worker.start()  # Blender's own files at its start are no stage of an item
        stages = {
            # a page for the claim and two for Blender's log: the EXR does not fit
            "exr": attempt(1, lambda: ballast.leave(3 * PAGE)),
            # the EXR fits, and not a page more of Blender's PNG
            "png": attempt(2, lambda: ballast.leave(3 * PAGE + exr + PAGE // 2)),
            # inodes for the claim (its folders are there now; a file and its hard link, which tmpfs
            # counts), not for the three folders of the item in a new writer's staging folder
            "staging": attempt(0, lambda: ballast.leave(inodes=2), by=newcomer),
            # the image is rendered, then no room for its labels nor the release files
            "json": attempt(3, after_image=lambda: ballast.leave(0)),
            # the item's files fit, not the task's folder it is renamed into
            "publish": attempt(4, after_image=lambda: ballast.leave(inodes=news)),
        }
        names = {"staging": f".staging/{newcomer.id}/train", "exr": "pass_index.exr", "png": "render.png",
                 "json": ".json", "publish": f"{out}/train"}
        full = {"exr": f"{scratch} (the renderer's scratch folder: {scratch}/mewl-worker-",
                "png": f"{scratch} (the renderer's scratch folder: {scratch}/mewl-worker-"}
        for stage, message in stages.items():
            assert message.startswith(f"no space left on {full.get(stage, f'{out} (')}"), (stage, message)
            assert names[stage] in message, (stage, message)
        assert not (out / "train").exists() and not list(out.glob(".mewl/failed/**/*.json"))
        assert not list(writer.root.glob(f"train/{TASK}/*"))  # nothing half-written kept in staging
        # Room again: the same items, rendered and published; and a real crash meanwhile (Blender killed)
        # is what is retried, on a fresh Blender, its whole reason kept for a failure's record.
        os.kill(worker.pid, signal.SIGKILL)
        outcomes = [render_item(worker, writer, settings, TASK, i, stop) for i in range(5)]
    assert all(o.ok for o in outcomes) and worker.starts == 2
    assert outcomes[0].reasons[0].startswith("renderer crashed: Blender exited with code -9\n--- Blender log (tail) ---\n")
    assert all(full_problem(layout.item_dir(out, "train", TASK, i)) is None for i in range(5))
    r = mewl_here("verify", out)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_log_that_cannot_be_written_stops_the_render_with_exit_2(tmp_path, disk):
    ballast = Ballast(disk)
    ballast.leave(0)
    out = tmp_path / "data"
    args = [*MEWL, "render", "--task", TASK, "--n", "1", "--out", str(out), "--quality", "preview",
            "--device", "cpu", "--seed", "11", "--workers", "1"]
    with open(disk / "render.log", "w") as log:  # where SLURM keeps a task's log: on a full disk
        r = subprocess.run(args, stdout=log, stderr=log, cwd=REPO, timeout=300, check=False)
    assert r.returncode == 2 and not list(out.glob(".mewl/failed/**/*.json"))
    assert all(full_problem(f) is None for f in out.glob(f"train/{TASK}/*"))
    ballast.clear()
    r = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr

