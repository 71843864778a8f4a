"""Pixels compared with a tolerance that holds on any CPU (docs/pixels.md): each image of a render against
the reference `make pins-update` wrote for it (tests/pinned_pixels.zip).

A PNG's bytes depend on the CPU (Cycles' kernels and Embree pick code paths by it), so a reference keeps
what a change of code path leaves alone and a real change moves:

- ids: the image's instance ids, read from the ground truth's masks (0 where no object is);
- sums: per id, its pixel count and the sums of its pixels' red, green and blue (8-bit values);
- blocks: the sums of red, green and blue over each BLOCK x BLOCK block of the image.

A render matches its reference when its ids differ in at most EDGE_PIXELS pixels, each on an edge of the
reference's ids; each region of the reference's ids keeps its mean colour within MEAN_TOLERANCE, or, in a
small region, within SUM_TOLERANCE spread over its pixels; and the blocks' means stay above MIN_PSNR.
"""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.scenes.image_truth import ImageTruth

REFERENCES = Path(__file__).with_name("pinned_pixels.zip")
FIELDS = ("ids", "sums", "blocks")
DTYPES = (np.uint8, np.int32, np.uint32)  # ids below 256; sums below 2 ** 31 up to 8 million pixels
# Blocks of 40 pixels (a 320 x 240 image has 48) keep a reference small: a noisy image's sums hardly compress,
# and the finer work is the regions' and the ids'.
BLOCK = 40
# The tolerances leave several times the largest difference measured between Cycles' CPU code paths, and
# stay well below what a changed shade, roughness or camera moves (docs/pixels.md gives both).
EDGE_PIXELS = 40  # instance ids that may differ, each on an edge of the reference's objects
MEAN_TOLERANCE = 0.5  # a region's mean, per channel, in 8-bit values
SUM_TOLERANCE = 3 * 255  # a region's sum, per channel: three pixels turned from black to white
MIN_PSNR = 65.0  # dB, of the blocks' means against the reference's


@dataclass(frozen=True)
class Reference:
    ids: np.ndarray  # (height, width) uint8
    sums: np.ndarray  # (ids, 4) int32: pixel count, then the sums of R, G and B
    blocks: np.ndarray  # (height // BLOCK, width // BLOCK, 3) uint32 sums


def images(out: Path) -> dict[str, Path]:
    """Every rendered image under OUT (split/task/item/scene.png beside its ground truth), by its path
    relative to OUT without the suffix."""
    return {str(p.relative_to(out).with_suffix("")): p for p in sorted(out.glob("*/*/*/*.png"))
            if p.with_suffix(".json").is_file()}


def instance_ids(png: Path) -> np.ndarray:
    """The image's instance ids, from the masks of its ground truth (the JSON file beside it)."""
    truth = ImageTruth.model_validate_json(png.with_suffix(".json").read_bytes())
    ids = np.zeros((truth.camera.height, truth.camera.width), np.uint8)
    for obj in truth.objects:
        mask = mask_utils.decode({"size": list(obj.mask.size), "counts": obj.mask.counts.encode()})
        ids[mask.astype(bool)] = obj.index
    return ids


def pixels(png: Path) -> np.ndarray:
    with Image.open(png) as im:
        return np.asarray(im.convert("RGB"), np.int64)


def region_sums(ids: np.ndarray, rgb: np.ndarray, regions: int) -> np.ndarray:
    """Per id below `regions`: its pixel count and its R, G, B sums."""
    flat = ids.ravel()
    counts = np.bincount(flat, minlength=regions)[:regions]
    sums = [np.bincount(flat, weights=rgb[..., c].ravel(), minlength=regions)[:regions] for c in range(3)]
    return np.stack([counts, *sums], axis=1).round().astype(np.int32)


def block_sums(rgb: np.ndarray) -> np.ndarray:
    h, w = rgb.shape[0] // BLOCK, rgb.shape[1] // BLOCK
    return rgb[: h * BLOCK, : w * BLOCK].reshape(h, BLOCK, w, BLOCK, 3).sum(axis=(1, 3)).astype(np.uint32)


def reference(png: Path) -> Reference:
    ids, rgb = instance_ids(png), pixels(png)
    return Reference(ids=ids, sums=region_sums(ids, rgb, int(ids.max()) + 1), blocks=block_sums(rgb))


def _edges(ids: np.ndarray) -> np.ndarray:
    """Pixels with a neighbour (of eight) of another id."""
    padded = np.pad(ids, 1, mode="edge")
    h, w = ids.shape
    edge = np.zeros(ids.shape, bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            edge |= padded[dy : dy + h, dx : dx + w] != ids
    return edge


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((np.asarray(a, float) - np.asarray(b, float)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


@dataclass
class Comparison:
    """An image against its reference: the largest differences of each kind, and what broke a tolerance."""

    ids_moved: int = 0  # pixels whose instance id differs
    ids_off_edge: int = 0  # of those, pixels off every edge of the reference's ids
    mean_shift: float = 0.0  # the largest move of a region's mean, of a channel, in 8-bit values
    sum_shift: float = 0.0  # the largest move of a region's sum, of a channel
    block_psnr: float = float("inf")
    failures: list[str] = field(default_factory=list)


def compare(ref: Reference, png: Path) -> Comparison:
    """The image at `png` (and its ground truth beside it) against its reference."""
    ids, rgb = instance_ids(png), pixels(png)
    if ids.shape != ref.ids.shape or rgb.shape[:2] != ref.ids.shape:
        return Comparison(failures=[f"size {rgb.shape[1]} x {rgb.shape[0]}, reference {ref.ids.shape[1]} x "
                                    f"{ref.ids.shape[0]}"])
    moved = ids != ref.ids
    c = Comparison(ids_moved=int(moved.sum()), ids_off_edge=int((moved & ~_edges(ref.ids)).sum()))
    if c.ids_moved > EDGE_PIXELS or c.ids_off_edge:
        c.failures.append(f"instance ids differ at {c.ids_moved} pixels, {c.ids_off_edge} of them off the "
                          f"objects' edges (tolerance: {EDGE_PIXELS}, all on edges)")
    for k, (now, then) in enumerate(zip(region_sums(ref.ids, rgb, len(ref.sums)), ref.sums)):
        n = int(then[0])
        if not n:
            continue
        total = float(np.abs(now[1:] - then[1:]).max())
        c.sum_shift, c.mean_shift = max(c.sum_shift, total), max(c.mean_shift, total / n)
        allowed = max(MEAN_TOLERANCE, SUM_TOLERANCE / n)
        if total / n > allowed:
            what = "the background" if k == 0 else f"object {k}"
            c.failures.append(f"{what}'s mean colour moved by {total / n:.2f} ({n} pixels; tolerance {allowed:.2f})")
    c.block_psnr = psnr(block_sums(rgb) / BLOCK**2, ref.blocks / BLOCK**2)
    if c.block_psnr < MIN_PSNR:
        c.failures.append(f"PSNR of {BLOCK}-pixel blocks {c.block_psnr:.1f} dB (tolerance: at least {MIN_PSNR:g})")
    return c


def differences(ref: Reference, png: Path) -> list[str]:
    """What of the image at `png` is out of its reference's tolerance; [] if nothing."""
    return compare(ref, png).failures


def _member(archive: zipfile.ZipFile, name: str, body: bytes) -> None:
    # A fixed date: the same references give the same bytes.
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    archive.writestr(info, body, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)


def read_references(path: Path = REFERENCES) -> dict[str, Reference]:
    """The references by image: the archive holds each field of every image end to end (one array a field
    compresses to half of one array an image and field), and index.json each image's name and shapes."""
    with zipfile.ZipFile(path) as archive:
        index = json.loads(archive.read("index.json"))
        flat = {f: np.load(io.BytesIO(archive.read(f"{f}.npy")), allow_pickle=False) for f in FIELDS}
    found, at = {}, dict.fromkeys(FIELDS, 0)
    for name, shapes in index:
        arrays = {}
        for f in FIELDS:
            size = int(np.prod(shapes[f]))
            arrays[f] = flat[f][at[f] : at[f] + size].reshape(shapes[f])
            at[f] += size
        found[name] = Reference(**arrays)
    return found


def write_references(out: Path, path: Path = REFERENCES) -> list[str]:
    """Rewrite `path` with the references of every image under OUT (a render of every task at the quality
    the tests render); the lines saying which images changed. An image that still matches its old
    reference keeps it: a reference moves for a change beyond the tolerance, never for the CPU that wrote it."""
    old = read_references(path) if path.exists() else {}
    kept: dict[str, Reference] = {}
    lines = []
    for name, png in images(out).items():
        if name in old and not differences(old[name], png):
            kept[name] = old[name]
            continue
        kept[name] = reference(png)
        lines.append(f"PIXELS {name}: {'changed' if name in old else 'added'}")
    lines += [f"PIXELS {name}: removed" for name in sorted(set(old) - set(kept))]
    names = sorted(kept)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        index = [[n, {f: list(getattr(kept[n], f).shape) for f in FIELDS}] for n in names]
        _member(archive, "index.json", json.dumps(index, indent=0).encode())
        for f, dtype in zip(FIELDS, DTYPES):
            body = io.BytesIO()
            np.save(body, np.concatenate([getattr(kept[n], f).astype(dtype).ravel() for n in names]), allow_pickle=False)
            _member(archive, f"{f}.npy", body.getvalue())
    path.write_bytes(buffer.getvalue())
    return lines


def report(out: Path, path: Path = REFERENCES) -> list[str]:
    """Every image under OUT that has a reference, against it: the largest difference of each kind (what
    docs/pixels.md measures a CPU's code path by), then each image out of tolerance."""
    refs, found = read_references(path), images(out)
    shared = sorted(set(refs) & set(found))
    results = {name: compare(refs[name], found[name]) for name in shared}
    worst = {kind: max((getattr(r, kind) for r in results.values()), default=0) for kind in
             ("ids_moved", "ids_off_edge", "mean_shift", "sum_shift")}
    lowest = min((r.block_psnr for r in results.values()), default=float("inf"))
    return [f"{len(shared)} images compared ({len(found) - len(shared)} without a reference); largest: "
            f"ids moved {worst['ids_moved']} ({worst['ids_off_edge']} off edges), region mean {worst['mean_shift']:.3f}, "
            f"region sum {worst['sum_shift']:.0f}; lowest {BLOCK}-pixel block PSNR {lowest:.1f} dB",
            *(f"{name}: {failure}" for name, r in results.items() for failure in r.failures)]


if __name__ == "__main__":
    import sys

    print("\n".join(report(Path(sys.argv[1]))))
