"""A contact sheet of every colour in every material, at default quality.

One row per material, one column per colour; each cell is a crop of a real
render of a large cube and a large sphere side by side under the unjittered
CLEVR stage, so colours and materials can be compared by eye.

    python -m mewl_gen.render.contact_sheet docs/contact-sheet.png
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from pycocotools import mask as mask_utils

from mewl_gen.scenes.quality import render_settings
from mewl_gen.scenes.spec import LightSpec, ObjectSpec, SceneSpec
from mewl_gen.scenes.stage import LIGHTS, base_camera
from mewl_gen.scenes.universe import COLORS, MATERIALS

# Across the line of sight, so neither object hides the other.
SIDE = (0.69, 0.73)
GAP = 0.95
PAD = 6  # pixels around the objects in each crop
LABEL = 14  # pixels of caption above each row


def cell_spec(material: str, color: str, quality: str = "default") -> SceneSpec:
    objects = tuple(
        ObjectSpec(shape=shape, color=color, material=material, size="large",
                   position=(sign * GAP * SIDE[0], sign * GAP * SIDE[1]), rotation=0.4)
        for shape, sign in (("cube", -1), ("sphere", 1))
    )
    lights = tuple(LightSpec(name=n, location=loc, energy=e, size=s) for n, loc, e, s in LIGHTS)
    return SceneSpec(objects=objects, camera=base_camera(), lights=lights,
                     render=render_settings(quality, 0), seed=0, attempt=0)


def _box(gt: dict) -> tuple[int, int, int, int]:
    union = sum(mask_utils.decode({"size": o["mask"]["size"], "counts": o["mask"]["counts"].encode()})
                for o in gt["objects"])
    rows, cols = np.flatnonzero(union.any(axis=1)), np.flatnonzero(union.any(axis=0))
    h, w = union.shape
    return (max(cols[0] - PAD, 0), max(rows[0] - PAD, 0), min(cols[-1] + PAD + 1, w), min(rows[-1] + PAD + 1, h))


def render_cells(quality: str = "default") -> dict[tuple[str, str], Image.Image]:
    from mewl_gen.render import Worker

    cells, box = {}, None
    with Worker(device="cpu") as worker, tempfile.TemporaryDirectory() as tmp:
        for material in MATERIALS:
            for color in COLORS:
                png, js = Path(tmp) / f"{material}-{color}.png", Path(tmp) / f"{material}-{color}.json"
                res = worker.render(cell_spec(material, color, quality), png, js)
                if not res.ok:
                    raise RuntimeError(f"{material} {color}: objects hidden in the contact-sheet scene")
                box = box or _box(json.loads(js.read_text()))  # the same geometry in every cell
                with Image.open(png) as im:
                    cells[(material, color)] = im.convert("RGB").crop(box)
    return cells


def sheet(cells: dict[tuple[str, str], Image.Image]) -> Image.Image:
    w, h = next(iter(cells.values())).size
    out = Image.new("RGB", (w * len(COLORS), (h + LABEL) * len(MATERIALS)), "white")
    draw = ImageDraw.Draw(out)
    for r, material in enumerate(MATERIALS):
        y = r * (h + LABEL)
        for c, color in enumerate(COLORS):
            draw.text((c * w + 3, y + 1), f"{color} {material}", fill="black")
            out.paste(cells[(material, color)], (c * w, y + LABEL))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print("usage: python -m mewl_gen.render.contact_sheet OUT.png [QUALITY]", file=sys.stderr)
        return 2
    out = Path(args[0])
    sheet(render_cells(args[1] if len(args) == 2 else "default")).save(out, optimize=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
