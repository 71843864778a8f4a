"""The stores `make bench ONLY=scale` measures, and the floor beside them.

A store is OUT in the real layout with real files and records: MEWL's nine
tasks, items sampled as `mewl render` samples them (their release files, the
specs at draft quality), each image a PNG of a real draft render with its
ground truth, and each item's record of checksums. Rendering 16,000 episodes
is a week of CPU, so the images of a few rendered episodes are reused across
items, round robin (each a file of its own, not a link): the bytes a command
reads, hashes and decodes are those of real renders, but an image does not
show its item's scene. The manifest says so (`bench`), and so does the report.

The floor: every PNG of the store read, hashed (sha256) and decoded by a
plain loop in one process, nothing else: what any reader of every image pays
per core.
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mewl_gen.cluster.item_job import at_quality, write_release_files
from mewl_gen.store import bookkeeping, layout, reader
from mewl_gen.store.manifest import claim_output
from mewl_gen.tasks import catalog

BENCHMARK = "mewl"  # the release the benchmark stands for
SPLIT = "train"
QUALITY = "draft"
RENDERED_TASKS = ("shape", "relation")  # the episodes rendered once for their images (14 images)
NOTE = ("scale benchmark: images of a few real draft renders reused across items (each image a copy), so an "
        "image does not show its item's scene")


@dataclass(frozen=True)
class Image:
    png: bytes
    truth: bytes  # its ground truth JSON, as the renderer and the item wrote it


def ensure_renders(folder: Path) -> Path:
    """A draft render of item 0 of RENDERED_TASKS in `folder` (rendered once, reused by later runs)."""
    if all(layout.is_complete(folder, SPLIT, task, 0) for task in RENDERED_TASKS):
        return folder
    command = [sys.executable, "-m", "mewl_gen", "render", "--task", ",".join(RENDERED_TASKS), "--n", "1",
               "--quality", QUALITY, "--split", SPLIT, "--out", str(folder)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return folder


def pool_of(rendered: Path) -> list[Image]:
    """Every image of a rendered store, with its ground truth."""
    found = reader.read(rendered, images=True)
    pool = [Image(stored.image(scene).read_bytes(), (stored.folder / f"{scene}.json").read_bytes())
            for items in found.items.values() for stored in items for scene in stored.item().scenes()]
    if not pool:
        raise ValueError(f"{rendered} holds no rendered images")
    return pool


def tasks() -> list[str]:
    return [t.name for t in catalog.benchmarks()[BENCHMARK].tasks]


def counts(n: int) -> dict[str, int]:
    """N items dealt over the benchmark's tasks, as evenly as a release deals them."""
    names = tasks()
    return {t: n // len(names) + (k < n % len(names)) for k, t in enumerate(names)}


def build(out: Path, n: int, pool: list[Image]) -> dict:
    """A store of N items in OUT (which must not exist); what it holds and how long it took."""
    start = time.perf_counter()
    claim_output(out, {"seed": 0, "quality": QUALITY, "kind": "rendered", "bench": NOTE})
    staging = out / layout.STAGING / "bench"
    images = k = 0
    for task, many in counts(n).items():
        bookkeeping.record_plan(out, SPLIT, task, many)
        for index in range(many):
            item = at_quality(catalog.sample_item(task, 0, SPLIT, index), QUALITY)
            tmp = staging / task / str(index)
            tmp.mkdir(parents=True)
            for scene in item.scenes():
                image = pool[k % len(pool)]
                (tmp / f"{scene}.png").write_bytes(image.png)
                (tmp / f"{scene}.json").write_bytes(image.truth)
                k += 1
                images += 1
            write_release_files(out, tmp, item)
            layout.publish(tmp, out, SPLIT, task, index, durable=False)
    shutil.rmtree(out / layout.STAGING, ignore_errors=True)
    return {"items": n, "images": images, "bytes": tree_bytes(out), "build_seconds": time.perf_counter() - start}


def tree_bytes(folder: Path) -> int:
    """The bytes of every file under a folder (0 when it is absent)."""
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed while walked (a staging folder renamed)
    return total


def pngs(out: Path) -> list[Path]:
    return sorted(p for split, task, i in reader.item_folders(out)
                  for p in layout.item_dir(out, split, task, i).glob("*.png"))


def floor(out: Path) -> dict:
    """Read, sha256 and decode every PNG of OUT in one process: seconds, and per image."""
    from PIL import Image as PILImage

    files = pngs(out)
    start = time.perf_counter()
    cpu = time.process_time()
    size = 0
    for path in files:
        data = path.read_bytes()
        hashlib.sha256(data).hexdigest()
        with PILImage.open(io.BytesIO(data)) as im:
            im.load()
        size += len(data)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"images": len(files), "bytes": size, "seconds": wall, "cpu_seconds": cpu,
            "seconds_per_image": wall / max(len(files), 1)}
