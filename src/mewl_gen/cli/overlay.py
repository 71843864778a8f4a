"""Overlays for `mewl inspect --overlay`: boxes, names and the pointed object
drawn on rendered images from their ground truth.

Labels are placed greedily, the pointed object's first: each takes the free
spot nearest to just above its box, inside the image and clear of every
label placed before it, so no two labels overlap and none is cut off.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from mewl_gen.errors import UserError, shown
from mewl_gen.store.reader import loose_file
from mewl_gen.store.record import MAX_PIXELS

SCALE = 2  # overlays are drawn at twice the render size so labels stay legible
POINTED = (255, 40, 40)
BOX = (255, 255, 255)
HAND = (255, 200, 0)
# Image types an overlay can be written as (by its file name).
TYPES = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
GRID = 2  # label positions tried, in pixels
COVER_PENALTY = 400  # pixels of distance a label would rather travel than cover another box


def check_path(path: Path) -> str:
    """The image format for this file name, or a one-line UserError."""
    fmt = TYPES.get(path.suffix.lower())
    if fmt is None:
        raise UserError(f"--overlay {path}: unknown image type {path.suffix or '(none)'!r}; "
                        f"name it {' or '.join(TYPES)}")
    return fmt


def save(image, path: Path) -> None:
    try:
        image.save(path, check_path(path))
    except OSError as err:
        raise UserError(f"cannot write --overlay {path}: {err.strerror or err}") from None


def entities(gt: dict) -> tuple[list[dict], list[dict]]:
    """The universe objects and the pointing hand (listed last, as an `arrow`)."""
    return ([o for o in gt["objects"] if o["shape"] != "arrow"], [o for o in gt["objects"] if o["shape"] == "arrow"])


def _font():
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=11)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def place_labels(size: tuple[int, int], boxes: list[tuple[int, int, int, int]],
                 labels: list[tuple[int, int]]) -> list[tuple[int, int] | None]:
    """Top-left corner of each label (w, h) for its box (x0, y0, x1, y1), in
    order; None where no free spot is left in the image."""
    width, height = size
    placed: list[tuple[int, int, int, int]] = []
    corners: list[tuple[int, int] | None] = []
    for k, ((w, h), (bx0, by0, _, _)) in enumerate(zip(labels, boxes)):
        xs = np.unique(np.r_[np.arange(0, width - w + 1, GRID), max(width - w, 0)])
        ys = np.unique(np.r_[np.arange(0, height - h + 1, GRID), max(height - h, 0)])
        if w > width or h > height:
            corners.append(None)
            continue
        x, y = np.meshgrid(xs, ys)
        free = np.ones(x.shape, bool)
        for px0, py0, px1, py1 in placed:
            free &= ~((x < px1) & (x + w > px0) & (y < py1) & (y + h > py0))
        if not free.any():
            corners.append(None)
            continue
        covers = sum(((x < ox1) & (x + w > ox0) & (y < oy1) & (y + h > oy0)).astype(int)
                     for j, (ox0, oy0, ox1, oy1) in enumerate(boxes) if j != k)
        cost = np.hypot(x - bx0, y - (by0 - h)) + COVER_PENALTY * covers
        best = np.unravel_index(np.argmin(np.where(free, cost, np.inf)), x.shape)
        corner = (int(x[best]), int(y[best]))
        placed.append((corner[0], corner[1], corner[0] + w, corner[1] + h))
        corners.append(corner)
    return corners


def draw_truth(image_path: Path, gt: dict, marked: tuple[int, ...] = ()):
    """The image at SCALE x with every object's box and name; the pointed one, and those the item is about
    (`marked`, indices into its objects), in red."""
    from PIL import Image, ImageDraw

    if not os.path.lexists(image_path):
        raise UserError(f"{image_path}: no such image to draw on")
    with Image.open(io.BytesIO(loose_file(image_path, "image"))) as im:  # beside its truth: through the door
        if im.width * im.height > MAX_PIXELS:
            raise UserError(f"{shown(str(image_path))}: claims {im.width}x{im.height} pixels, more than an image "
                            f"of this tool has ({MAX_PIXELS})")
        im = im.convert("RGB").resize((im.width * SCALE, im.height * SCALE), Image.Resampling.LANCZOS)
    draw, font = ImageDraw.Draw(im), _font()
    objects, hands = entities(gt)
    def note(i: int) -> str:
        return "  <- pointed" if i == gt.get("points_to") else "  <- about" if i in marked else ""

    items = [(f"#{i} {o['description']}{note(i)}", o["bbox"], POINTED if note(i) else BOX)
             for i, o in enumerate(objects)]
    items += [("hand", h["bbox"], HAND) for h in hands]
    items = [it for it in items if it[1][2] and it[1][3]]  # nothing visible: no box to name
    items.sort(key=lambda it: it[2] != POINTED)
    rects = [(x * SCALE, y * SCALE, (x + w) * SCALE - 1, (y + h) * SCALE - 1) for _, (x, y, w, h), _ in items]
    for rect, (_, _, color) in zip(rects, items):
        draw.rectangle(rect, outline=color, width=3 if color == POINTED else 1)
    # textbbox measures ink; the label's black ground is that plus one pixel around.
    inks = [draw.textbbox((0, 0), label, font=font) for label, _, _ in items]
    sizes = [(r - l + 2, b - t + 2) for l, t, r, b in inks]
    corners = place_labels(im.size, rects, sizes)
    left_out = []
    for (label, _, color), ink, size, corner in zip(items, inks, sizes, corners):
        if corner is None:
            left_out.append((label, color))
            continue
        x, y = corner
        draw.rectangle((x, y, x + size[0] - 1, y + size[1] - 1), fill=(0, 0, 0))
        draw.text((x + 1 - ink[0], y + 1 - ink[1]), label, fill=color, font=font)
    return _with_legend(im, left_out, font) if left_out else im


def _with_legend(im, labels: list[tuple[str, tuple]], font):
    """Labels that found no room in the image, listed in a band below it."""
    from PIL import Image, ImageDraw

    line = 14
    out = Image.new("RGB", (im.width, im.height + line * len(labels) + 2), (0, 0, 0))
    out.paste(im, (0, 0))
    draw = ImageDraw.Draw(out)
    for k, (label, color) in enumerate(labels):
        draw.text((2, im.height + 1 + k * line), label, fill=color, font=font)
    return out


def episode_sheet(tiles: list[tuple[Path, str, tuple[int, ...]]], truths: list[dict]):
    """Images (path, caption, the objects the item is about) with their boxes, at most four to a row (as
    many as there are), each under its caption."""
    from PIL import Image, ImageDraw

    images = [(draw_truth(png, gt, marked), caption) for (png, caption, marked), gt in zip(tiles, truths)]
    w, h = max(im.width for im, _ in images), max(im.height for im, _ in images)
    cols, bar = min(4, len(images)), 18
    rows = (len(images) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * w, rows * (h + bar)), (0, 0, 0))
    draw, font = ImageDraw.Draw(sheet), _font()
    for k, (im, caption) in enumerate(images):
        x, y = (k % cols) * w, (k // cols) * (h + bar)
        draw.text((x + 4, y + 3), caption, fill=(255, 255, 255), font=font)
        sheet.paste(im, (x, y + bar))
    return sheet
