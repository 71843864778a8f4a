"""What the hostile-dataset tests share: genuine small datasets to spoil, a folder outside OUT whose
listing and contents must never change, and `mewl` run as its own process, bounded in memory and time."""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import numpy as np
from PIL import Image

from mewl_gen.render.ground_truth import build
from mewl_gen.scenes.camera import project
from mewl_gen.store.record import RECORD, write_record
from mewl_gen.tasks import catalog
from tests.command import mewl_process

REPO = Path(__file__).resolve().parents[2]
MEMORY = 2 << 30  # bytes of address space a command may add to what it starts with
TIMEOUT = 60  # seconds a command may take
RENDERED_TASK = "malevic-pos1"  # exported, indexed, in the gallery
SAMPLED_TASK = "shape"  # has text inputs


def mewl(*args, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    """`mewl ARGS` as its own process (a fork of this one, tests/command.py), which may grow by at most
    MEMORY and run for at most TIMEOUT; it must end with no traceback."""
    if args[0] == "export":
        _export_libraries()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "HF_DATASETS_OFFLINE": "1"}
    r = mewl_process(*args, cwd=REPO, env=env, timeout=timeout, memory=MEMORY)
    assert "Traceback" not in r.stderr, r.stderr[-4000:]
    assert "MemoryError" not in r.stderr, r.stderr[-2000:]
    return r


@functools.cache
def _export_libraries() -> None:
    """What `mewl export` imports when it runs (webdataset, which brings torch, and datasets: seconds each)
    imported once in this test process, offline as the commands run, so that each forked export starts
    with them. What the export then allocates is still bounded by MEMORY."""
    with mock.patch.dict(os.environ, {"HF_DATASETS_OFFLINE": "1"}):
        import datasets  # noqa: F401
        import webdataset  # noqa: F401


def one_line(r: subprocess.CompletedProcess, code: int = 2) -> str:
    """The command stopped with `code` and said why in one short line, escaped."""
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == code, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert len(lines) == 1 and len(lines[0]) < 1000, lines[:5]
    assert "\x1b" not in r.stderr and "\x1b" not in r.stdout
    return lines[0]


def sample(out: Path, task: str, n: int = 3) -> None:
    r = mewl("sample", "--task", task, "--n", n, "--out", out, "--seed", 3, "--workers", 1, timeout=300)
    assert r.returncode == 0, r.stderr


def fake_render(out: Path, task: str) -> None:
    """Give every sampled item of `task` its images and ground truth as a render would (a square of pixels
    per object in the index pass, no Blender), and a new record of checksums."""
    for folder in sorted(p for p in (out / "train" / task).iterdir() if p.is_dir()):
        item = catalog.read_item(folder)
        for name, spec in item.scenes().items():
            truth, index = fake_image(spec, name)
            (folder / f"{name}.json").write_text(json.dumps(item.label_image(name, truth), indent=2) + "\n")
            Image.fromarray((index * 40).astype(np.uint8)).convert("RGB").save(folder / f"{name}.png")
        (folder / RECORD).unlink()
        write_record(folder)


def fake_image(spec, name: str) -> tuple[dict, np.ndarray]:
    """The ground truth of a scene and its object-index pass as a render would give them: a square of
    pixels per object, no Blender."""
    index = np.zeros((spec.camera.height, spec.camera.width), np.uint8)
    for i, o in enumerate(spec.objects):
        u, v, _ = project(spec.camera, [o.center])[0]
        x, y = int(np.clip(u, 8, spec.camera.width - 8)), int(np.clip(v, 8, spec.camera.height - 8))
        index[y - 6:y + 6, x - 6:x + 6] = i + 1
    return build(spec, index, image_filename=f"{name}.png", device="CPU", blender_version="test"), index


def rendered_dataset(root: Path) -> Path:
    """A genuine dataset of RENDERED_TASK, its images made without Blender."""
    out = root / "rendered"
    sample(out, RENDERED_TASK)
    fake_render(out, RENDERED_TASK)
    return out


def copy(source: Path, out: Path) -> Path:
    shutil.copytree(source, out, symlinks=True)
    return out


def outside_folder(root: Path) -> Path:
    """A user's own folder beside OUT, which nothing may read into an output, write, link or delete."""
    outside = root / "outside"
    (outside / "sub").mkdir(parents=True)
    for i in range(3):
        (outside / f"{i}.json").write_text(json.dumps({"mine": i}) + "\n")
    (outside / "secret.txt").write_text("PRIVATE KEY of the user\n")
    (outside / "sub" / "notes.md").write_text("the user's notes\n")
    return outside


def snapshot(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every path under a folder with what it is and its bytes (a link's target), nothing followed."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                found[str(p.relative_to(folder))] = ("link", os.readlink(p).encode())
            elif p.is_file():
                found[str(p.relative_to(folder))] = ("file", p.read_bytes())
            else:
                found[str(p.relative_to(folder))] = ("folder", b"")
    return found


def png_claiming(path: Path, width: int, height: int) -> None:
    """A valid PNG of `width` x `height` one-bit pixels: a few kB on disk, gigabytes decoded in colour."""
    Image.new("1", (width, height)).save(path, optimize=True)


def rle_claiming(height: int, width: int) -> dict:
    """A COCO RLE whose size says `height` x `width` and whose counts are a few bytes."""
    return {"size": [height, width], "counts": "0" * 8}


def rerecord(folder: Path) -> None:
    """Write an item's record of checksums again, as a hostile author would to make damage look sound."""
    (folder / RECORD).unlink(missing_ok=True)
    write_record(folder)


class World:
    """OUT, a copy of a genuine dataset to spoil, beside the user's own folder."""

    def __init__(self, tmp_path: Path, source: Path):
        self.root = tmp_path
        self.out = copy(source, tmp_path / "out")
        self.outside = outside_folder(tmp_path)
        self.task = RENDERED_TASK if source.name == "rendered" else SAMPLED_TASK
        self.before: dict | None = None

    def item(self, i: int) -> Path:
        return self.out / "train" / self.task / str(i)

    def link(self, at: Path, target: Path) -> None:
        if at.is_dir() and not at.is_symlink():
            shutil.rmtree(at)
        elif at.exists() or at.is_symlink():
            at.unlink()
        at.parent.mkdir(parents=True, exist_ok=True)
        at.symlink_to(target)

    def freeze(self) -> None:
        """What the outside folder holds once the hostile dataset is built."""
        self.before = snapshot(self.outside)

    def untouched(self) -> None:
        assert snapshot(self.outside) == self.before
        assert all(os.stat(p).st_nlink == 1 for p in self.outside.rglob("*") if p.is_file() and not p.is_symlink())

    def no_secret_in(self, *folders: Path) -> None:
        for folder in folders:
            for p in folder.rglob("*") if folder.exists() else []:
                if p.is_file() and not p.is_symlink() and self.outside not in p.parents:
                    assert b"PRIVATE" not in p.read_bytes(), p
