"""The extra passes of a render, on request (no bpy): one entry of REGISTRY each, naming its file
beside the image, where Blender gives it, how Blender's float buffer becomes that file and how the
file is read back (docs/passes.md has the conventions: units, axes, what stands where nothing is hit).

Every pass comes from the same Cycles render as the PNG. Files lie beside `<scene>.png` as
`<scene>.<pass>.<ext>`: a scene's name never holds a dot, so no pass file is another scene's image.
Depth is float32 NumPy, the others 16-bit PNGs (png16), which any PNG reader opens.
"""
from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from mewl_gen.errors import UserError

NO_SURFACE = 1e10  # Cycles' depth where a camera ray hits nothing (measured, Blender 5.0.1)
UNIT = 65535


# -- each pass: Blender's buffer to the file's bytes, and the file back to its values --------------
def _depth_file(pixels: np.ndarray) -> bytes:
    z = pixels[..., 0].astype(np.float32)
    z[z >= NO_SURFACE] = np.inf
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(z), allow_pickle=False)
    return buffer.getvalue()


def _depth_values(path: Path) -> np.ndarray:
    return np.load(path, allow_pickle=False)


def _normal_file(pixels: np.ndarray) -> bytes:
    n = pixels[..., :3].astype(np.float64)
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    hit = length[..., 0] > 0
    unit = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    stored = np.rint((unit + 1) / 2 * UNIT)
    stored[~hit] = 0
    return png16(stored.astype(np.uint16))


def _normal_values(path: Path) -> np.ndarray:
    stored = read_png16(path.read_bytes())
    n = stored.astype(np.float64) / UNIT * 2 - 1
    n[(stored == 0).all(axis=-1)] = 0.0
    return n


def _albedo_file(pixels: np.ndarray) -> bytes:
    return png16(np.rint(np.clip(pixels[..., :3], 0.0, 1.0) * UNIT).astype(np.uint16))


def _albedo_values(path: Path) -> np.ndarray:
    return read_png16(path.read_bytes()).astype(np.float64) / UNIT


def _instance_file(index: np.ndarray) -> bytes:
    return png16(index.astype(np.uint16))


def _instance_values(path: Path) -> np.ndarray:
    return read_png16(path.read_bytes()).astype(np.int32)


# The view layer's switch of each Blender pass (render.blender_stage turns them on only when asked for).
def _use_z(layer, on: bool) -> None:
    layer.use_pass_z = on


def _use_normal(layer, on: bool) -> None:
    layer.use_pass_normal = on


def _use_diffuse_color(layer, on: bool) -> None:
    layer.use_pass_diffuse_color = on


@dataclass(frozen=True)
class LayerPass:
    """Where Blender gives a pass: the view layer's switch, the render layer node's output, and the
    type of the compositor's File Output item that writes it to an EXR."""
    switch: Callable[[object, bool], None]
    socket: str
    item: str


@dataclass(frozen=True)
class Pass:
    """One pass: adding a pass is adding one of these to REGISTRY (and its line in docs/passes.md)."""
    name: str  # as --passes, manifests and export columns name it
    suffix: str  # its file beside <scene>.png
    meaning: str  # one line, for the dataset card (store.card) and `mewl render-spec`'s users
    layer: LayerPass | None  # None: the object-index pass that every render writes for the masks
    encode: Callable[[np.ndarray], bytes]  # (H, W, channels) float, row 0 the top (instance: the index image)
    read: Callable[[Path], np.ndarray]  # the file back to its values


REGISTRY = (  # the order of files, manifests and columns
    Pass("depth", ".depth.npy",
         "float32 NumPy, distance along the camera's optical axis in scene units, +inf where nothing is hit",
         LayerPass(_use_z, "Depth", "FLOAT"), _depth_file, _depth_values),
    Pass("normal", ".normal.png",
         "16-bit RGB PNG, world-space unit normal (x, y, z; z up) as (n + 1) / 2 * 65535, 0 where nothing is hit",
         LayerPass(_use_normal, "Normal", "VECTOR"), _normal_file, _normal_values),
    Pass("albedo", ".albedo.png",
         "16-bit RGB PNG, diffuse reflectance in linear light times 65535 (0 on metal, glass and sky)",
         LayerPass(_use_diffuse_color, "Diffuse Color", "RGBA"), _albedo_file, _albedo_values),
    Pass("instance", ".instance.png",
         "16-bit grey PNG, object index + 1 (the hand last), 0 for the background: the masks' own pass",
         None, _instance_file, _instance_values),
)
PASS = {p.name: p for p in REGISTRY}
PASSES = tuple(PASS)


class PassError(UserError, ValueError):
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
    return scene + PASS[kind].suffix


def is_pass_file(name: str) -> bool:
    return name.endswith(tuple(p.suffix for p in REGISTRY))


def files_of(scene: str, passes: tuple[str, ...]) -> list[str]:
    return [file_name(scene, kind) for kind in passes]


def read(path: Path) -> np.ndarray:
    """A pass file as its values: depth in scene units (inf: no surface), normals as unit vectors
    (0 where no surface), albedo in [0, 1], instance ids as integers."""
    name = Path(path).name
    kind = next((p for p in REGISTRY if name.endswith(p.suffix)), None)
    if kind is None:
        raise ValueError(f"{name} is not a pass file (expected a name ending in "
                         f"{', '.join(p.suffix for p in REGISTRY)})")
    return kind.read(Path(path))


# -- 16-bit PNG ---------------------------------------------------------------------------------------
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
