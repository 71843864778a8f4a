"""The extra passes of a render, on request (no bpy): their names, their files beside the image, and
how Blender's float buffers become those files (docs/passes.md has the conventions).

Every pass comes from the same Cycles render as the PNG. Files lie beside `<scene>.png` as
`<scene>.<pass>.<ext>`: a scene's name never holds a dot, so no pass file is another scene's image.

- depth: `.depth.npy`, float32 (H, W), row 0 the top of the image: distance from the camera along its
  optical axis (z-depth, not the length of the ray) to the first surface, in scene units; +inf where
  no surface is hit. Cycles takes it from the pixel's first sample, as it takes the object index.
- normal: `.normal.png`, 16-bit RGB: the first surface's world-space unit normal (x, y, z in R, G, B;
  z up), each component n stored as round((n + 1) / 2 * 65535); (0, 0, 0) where no surface is hit.
  Averaged over the pixel's samples and scaled back to unit length.
- albedo: `.albedo.png`, 16-bit RGB: Cycles' Diffuse Color pass, the diffuse reflectance of the first
  surface in linear light (not sRGB), round(c * 65535); metal and glass reflect no diffuse light (0).
- instance: `.instance.png`, 16-bit grey: the object-index pass the masks are read from: object i is
  i + 1, the hand len(objects) + 1, the background 0.
"""
from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np

PASSES = ("depth", "normal", "albedo", "instance")  # the order of files, manifests and columns
SUFFIXES = {"depth": ".depth.npy", "normal": ".normal.png", "albedo": ".albedo.png", "instance": ".instance.png"}
# One line each, for the dataset card (store.card) and `mewl render-spec`'s users.
MEANING = {
    "depth": "float32 NumPy, distance along the camera's optical axis in scene units, +inf where nothing is hit",
    "normal": "16-bit RGB PNG, world-space unit normal (x, y, z; z up) as (n + 1) / 2 * 65535, 0 where nothing is hit",
    "albedo": "16-bit RGB PNG, diffuse reflectance in linear light times 65535 (0 on metal, glass and sky)",
    "instance": "16-bit grey PNG, object index + 1 (the hand last), 0 for the background: the masks' own pass",
}
NO_SURFACE = 1e10  # Cycles' depth where a camera ray hits nothing (measured, Blender 5.0.1)
UNIT = 65535


class PassError(ValueError):
    """A --passes value that names no pass: one line."""


def parse(value: str) -> tuple[str, ...]:
    """'normal,depth' -> ('depth', 'normal'): known names, in PASSES order, each once; 'all' is every pass."""
    names = [p.strip() for p in value.split(",")]
    if names == ["all"]:
        return PASSES
    bad = [p for p in names if p not in PASSES]
    if bad:
        shown = repr(bad[0]) if bad[0] else "an empty name"
        raise PassError(f"--passes {value!r}: {shown} is not a pass; expected a comma list of "
                        f"{', '.join(PASSES)}, or all")
    return tuple(p for p in PASSES if p in names)


def file_name(scene: str, kind: str) -> str:
    return scene + SUFFIXES[kind]


def is_pass_file(name: str) -> bool:
    return name.endswith(tuple(SUFFIXES.values()))


def files_of(scene: str, passes: tuple[str, ...]) -> list[str]:
    return [file_name(scene, kind) for kind in passes]


# -- Blender's buffers to files ---------------------------------------------------------------------
def encode(kind: str, pixels: np.ndarray) -> bytes:
    """A file's bytes from a pass as Blender gives it, (H, W, channels) float with row 0 at the top
    (the instance pass: the integer index image)."""
    if kind == "depth":
        z = pixels[..., 0].astype(np.float32)
        z[z >= NO_SURFACE] = np.inf
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(z), allow_pickle=False)
        return buffer.getvalue()
    if kind == "normal":
        n = pixels[..., :3].astype(np.float64)
        length = np.linalg.norm(n, axis=-1, keepdims=True)
        hit = length[..., 0] > 0
        unit = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
        stored = np.rint((unit + 1) / 2 * UNIT)
        stored[~hit] = 0
        return png16(stored.astype(np.uint16))
    if kind == "albedo":
        return png16(np.rint(np.clip(pixels[..., :3], 0.0, 1.0) * UNIT).astype(np.uint16))
    if kind == "instance":
        return png16(pixels.astype(np.uint16))
    raise ValueError(f"unknown pass {kind!r}")


def png16(image: np.ndarray) -> bytes:
    """A 16-bit PNG of a (H, W) grey or (H, W, 3) RGB uint16 image. Every row uses the Up filter (its
    bytes less the row above's): smooth passes compress to about a third of the unfiltered size."""
    h, w = image.shape[:2]
    rows = np.ascontiguousarray(image, dtype=">u2").view(np.uint8).reshape(h, -1)
    up = rows.copy()
    up[1:] -= rows[:-1]  # uint8 arithmetic wraps modulo 256, as the filter is defined
    raw = np.concatenate([np.full((h, 1), 2, np.uint8), up], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", w, h, 16, 0 if image.ndim == 2 else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# -- files back to arrays ---------------------------------------------------------------------------
def read(path: Path) -> np.ndarray:
    """A pass file as its values: depth in scene units (inf: no surface), normals as unit vectors
    (0 where no surface), albedo in [0, 1], instance ids as integers."""
    name = Path(path).name
    if name.endswith(SUFFIXES["depth"]):
        return np.load(path, allow_pickle=False)
    stored = read_png16(Path(path).read_bytes())
    if name.endswith(SUFFIXES["normal"]):
        n = stored.astype(np.float64) / UNIT * 2 - 1
        n[(stored == 0).all(axis=-1)] = 0.0
        return n
    if name.endswith(SUFFIXES["albedo"]):
        return stored.astype(np.float64) / UNIT
    if name.endswith(SUFFIXES["instance"]):
        return stored.astype(np.int32)
    raise ValueError(f"{name} is not a pass file (expected a name ending in {', '.join(SUFFIXES.values())})")


def read_png16(data: bytes) -> np.ndarray:
    """The uint16 pixels of a PNG that png16 wrote (16-bit grey or RGB, rows unfiltered or Up-filtered);
    other PNGs are refused: any PNG reader opens these files, this one reads only ours."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (size,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + size
    if header is None or header[2] != 16 or header[3] not in (0, 2) or header[6] != 0:
        raise ValueError("not a 16-bit grey or RGB PNG without interlacing")
    w, h, channels = header[0], header[1], 1 if header[3] == 0 else 3
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(h, 1 + 2 * w * channels)
    filters, rows = raw[:, 0], raw[:, 1:].copy()
    if not np.isin(filters, (0, 2)).all():
        raise ValueError("rows filtered other than None or Up")
    for y in np.flatnonzero(filters == 2):
        if y > 0:
            rows[y] += rows[y - 1]
    pixels = rows.view(">u2").astype(np.uint16)
    return pixels.reshape(h, w) if channels == 1 else pixels.reshape(h, w, 3)
