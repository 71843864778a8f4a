"""The inspector's picture of each pass an image has (docs/passes.md): 8-bit PNGs a browser shows, drawn
at build time from the pass files read through the item's door. Depth is grey, near light and far dark,
with the scale's ends returned for the page to write; normals are their world-space components as RGB;
albedo is turned from linear light into sRGB; instance ids take the mask overlay's palette.

A pass file that is not what its name says (another size than its image, a depth that is no float
array, a PNG this tool did not write) is DamagedItem: one line naming it."""
from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image

from mewl_gen.errors import shown
from mewl_gen.render.passes import file_name, read_png16
from mewl_gen.tasks.stored import DamagedItem, StoredItem

from .gallery_masks import PALETTE

UNIT = 65535


def _depth(data: bytes) -> np.ndarray:
    z = np.load(io.BytesIO(data), allow_pickle=False)
    if z.dtype != np.float32 or z.ndim != 2:
        raise ValueError("not a float32 array of one value a pixel")
    return z


def _srgb(linear: np.ndarray) -> np.ndarray:
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1 / 2.4) - 0.055)


def _picture(kind: str, data: bytes) -> tuple[np.ndarray, tuple[float, float] | None]:
    """The pass's 8-bit picture, (H, W) or (H, W, 3); for depth, the nearest and farthest depth shown."""
    if kind == "depth":
        z = _depth(data)
        hit = np.isfinite(z)
        if not hit.any():
            return np.zeros(z.shape, np.uint8), None
        near, far = float(z[hit].min()), float(z[hit].max())
        grey = 1 - (np.where(hit, z, far) - near) / max(far - near, 1e-9)
        return np.where(hit, np.rint(40 + 215 * grey), 0).astype(np.uint8), (near, far)
    stored = read_png16(data)
    if kind == "instance":
        if stored.ndim != 2:
            raise ValueError("not a grey PNG")
        colors = np.array([(0, 0, 0), *PALETTE], np.uint8)
        return np.where(stored[..., None] > 0, colors[1 + (stored.astype(np.int64) - 1) % len(PALETTE)], 0), None
    if stored.ndim != 3:
        raise ValueError("not an RGB PNG")
    values = stored.astype(np.float64) / UNIT
    shown_values = values if kind == "normal" else _srgb(values)
    return np.rint(np.clip(shown_values, 0, 1) * 255).astype(np.uint8), None


def draw(stored: StoredItem, scene: str, kind: str, size: tuple[int, int]) -> tuple[bytes, tuple[float, float] | None]:
    """The picture of the scene's pass `kind`, a PNG's bytes, and the depth scale's ends, for depth."""
    name = file_name(scene, kind)
    data = stored.read_file(name)
    try:
        pixels, scale = _picture(kind, data)
    except (ValueError, IndexError, struct.error, zlib.error, EOFError) as err:
        raise DamagedItem(f"{shown(str(stored.folder / name))}: not a {kind} pass of this tool ({shown(err, 120)})") \
            from None
    if pixels.shape[:2] != (size[1], size[0]):
        raise DamagedItem(f"{shown(str(stored.folder / name))}: {pixels.shape[1]}x{pixels.shape[0]} pixels, its "
                          f"image {size[0]}x{size[1]}")
    png = io.BytesIO()
    Image.fromarray(pixels).save(png, "PNG")
    return png.getvalue(), scale
