"""The mask overlay of one rendered image for `mewl gallery`: a PNG of the image's size that dims every
pixel outside the objects' ground-truth masks (the COCO RLE of its `<scene>.json`) and outlines each mask
in a colour of its own, leaving the objects' own colours as rendered; and the legend of colours to objects.
The truth comes read through its model (StoredItem.image_truth): every field is of its type here."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.scenes.image_truth import HandObject, ImageObject, ImageTruth, Mask

# Twelve colours told apart on CLEVR's grey floor; objects past the twelfth reuse them in order.
PALETTE = ((230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
           (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (170, 110, 40))
DIM = 150  # alpha of the black laid over what no mask covers


def _decode(mask: Mask, height: int, width: int) -> np.ndarray | None:
    """A COCO RLE mask of exactly its image's size; None for one of another size (its size is checked
    before anything is decoded: a mask claiming more pixels than its image never swells)."""
    if tuple(mask.size) != (height, width) or len(mask.counts) > 8 * height * width:
        return None
    try:
        return mask_utils.decode({"size": [height, width], "counts": mask.counts.encode()}).astype(bool)
    except (ValueError, TypeError, UnicodeError):
        return None


def run_lengths(mask: Mask, height: int, width: int) -> list[int] | None:
    """A COCO RLE mask's runs (column by column from the top-left, background first), read off its counts
    string as pycocotools' rleFrString reads them, without decoding a pixel; None for a mask of another
    size than its image's or whose runs do not cover it exactly."""
    if tuple(mask.size) != (height, width) or len(mask.counts) > 8 * height * width:
        return None
    text, found, p = mask.counts, [], 0
    while p < len(text):
        x = k = 0
        more = True
        while more:
            if p == len(text):
                return None
            c = ord(text[p]) - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p, k = p + 1, k + 1
            if not more and c & 0x10:
                x |= -1 << (5 * k)
        found.append(x + found[-2] if len(found) > 2 else x)  # past the third run, each is its delta
    if any(n < 0 for n in found) or sum(found) != height * width:
        return None
    return found


def _grown(m: np.ndarray) -> np.ndarray:
    """The mask and its 4-neighbours."""
    g = m.copy()
    g[1:] |= m[:-1]
    g[:-1] |= m[1:]
    g[:, 1:] |= m[:, :-1]
    g[:, :-1] |= m[:, 1:]
    return g


def _outline(m: np.ndarray) -> np.ndarray:
    """A line two pixels wide around the mask, outside it."""
    return _grown(_grown(m)) & ~m


def what(obj: ImageObject | HandObject) -> str:
    """An object as the legend names it: its description (the hand's is 'pointing hand'), else its shape."""
    text = (obj.description or obj.shape)[:200]
    return text + " (hidden)" if obj.visible_pixels == 0 else text


def overlay(truth: ImageTruth | None, size: tuple[int, int]) -> tuple[bytes, list[tuple[str, str]]]:
    """The overlay of an image of `size` (width, height), a PNG's bytes, and its legend, (#rrggbb, object).
    A palette PNG: index 0 dims, 1 is clear, 2 + k is the k-th colour; each mask is worked on in its box.
    No truth (an image rendered without one): every pixel dimmed, no legend."""
    width, height = size
    index = np.zeros((height, width), np.uint8)
    legend = []
    for k, obj in enumerate(truth.objects if truth is not None else ()):
        m = _decode(obj.mask, height, width)
        if m is None or m.shape != (height, width):
            continue  # a mask of another size than its image (or no mask): nothing to draw it on
        rows, cols = np.flatnonzero(m.any(axis=1)), np.flatnonzero(m.any(axis=0))
        if rows.size:
            y0, y1 = max(rows[0] - 2, 0), min(rows[-1] + 3, height)
            x0, x1 = max(cols[0] - 2, 0), min(cols[-1] + 3, width)
            box, inside = index[y0:y1, x0:x1], m[y0:y1, x0:x1]
            box[inside] = 1
            box[_outline(inside)] = 2 + k % len(PALETTE)
        legend.append(("#%02x%02x%02x" % PALETTE[k % len(PALETTE)], what(obj)))
    image = Image.fromarray(index, "P")
    image.putpalette([0, 0, 0, 0, 0, 0, *(c for rgb in PALETTE for c in rgb)])
    png = io.BytesIO()
    image.save(png, "PNG", transparency=bytes([DIM, 0] + [255] * len(PALETTE)))
    return png.getvalue(), legend
