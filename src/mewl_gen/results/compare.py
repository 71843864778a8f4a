"""`mewl inspect A B --html DIR`: two renders of a scene side by side, with what differs between them: the
spec fields (as each render's ground truth records them: every object's shape, colour, material, size,
position and rotation, the hand, camera, lights, render settings and seeds) and the pixels, counted inside
each object's mask. What a user looks at after editing a spec and re-rendering it (`mewl render-spec`).

A and B are each an item's folder of a dataset, read through the store's reader (StoredItem), or a folder
`mewl render-spec` wrote (<stem>.png beside its ground truth <stem>.json), read through the door as a folder
the user named (store.reader.loose_file). Scenes pair by name; two folders of one scene each pair as they
are. Whatever cannot be read as such is one line (UserError)."""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError
from pydantic import ValidationError

from mewl_gen.errors import UserError, shown
from mewl_gen.scenes.image_truth import HandObject, ImageTruth
from mewl_gen.scenes.spec import first_error
from mewl_gen.store import door
from mewl_gen.store.reader import loose_file
from mewl_gen.tasks import catalog

from .gallery_masks import _decode
from .inspector import one

# A pixel has changed where a channel differs by more than this (of 255): a changed shade shows, while the
# last bit a PNG encoder or a float's rounding moves between two renders of one spec does not.
THRESHOLD = 8


@dataclass(frozen=True)
class Render:
    name: str
    truth: ImageTruth
    pixels: np.ndarray  # (height, width, 3) uint8
    png: bytes  # the image's file, copied beside the page as it is


@dataclass(frozen=True)
class Side:
    label: str  # the folder as the user named it
    renders: dict[str, Render]
    out: Path | None  # the dataset an item's folder lies in; None for a folder of render-spec


def _render(name: str, truth: ImageTruth, png: bytes, where: str) -> Render:
    try:
        with Image.open(io.BytesIO(png)) as im:
            pixels = np.asarray(im.convert("RGB"))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as err:
        raise UserError(f"{shown(where)}: not a PNG image ({shown(err, 120)})") from None
    size = (truth.camera.width, truth.camera.height)
    if pixels.shape[1::-1] != size:
        raise UserError(f"{shown(where)}: {pixels.shape[1]}x{pixels.shape[0]} pixels, its ground truth "
                        f"{size[0]}x{size[1]}")
    return Render(name, truth, pixels, png)


def _item_side(folder: Path) -> Side:
    out, stored = one(folder)
    renders = {}
    for name in stored.item().scenes():
        truth = stored.image_truth(name)
        if truth is None:
            raise UserError(f"{shown(str(stored.folder))}: {shown(name, 60)}.json is missing; the item is not rendered")
        renders[name] = _render(name, truth, stored.read_file(f"{name}.png"), str(stored.folder / f"{name}.png"))
    return Side(str(folder), renders, out)


def _spec_side(folder: Path) -> Side:
    """A folder written by `mewl render-spec`: every <stem>.png with its <stem>.json (pass files have none)."""
    files = {name for name, kind in door.entries(folder, folder) if kind == "file"}
    stems = sorted(name[:-4] for name in files if name.endswith(".png") and f"{name[:-4]}.json" in files)
    if not stems:
        raise UserError(f"{shown(str(folder))}: no image with its ground truth (<name>.png and <name>.json); expected "
                        "an item's folder or a folder written by mewl render-spec")
    renders = {}
    for stem in stems:
        path = folder / f"{stem}.json"
        try:
            truth = ImageTruth.model_validate_json(loose_file(path, "json"), strict=True)
        except ValidationError as err:
            raise UserError(f"{shown(str(path))}: not an image's ground truth of this tool "
                            f"({shown(first_error(err), 200)})") from None
        png = folder / f"{stem}.png"
        renders[stem] = _render(stem, truth, loose_file(png, "image"), str(png))
    return Side(str(folder), renders, None)


def side(folder: Path) -> Side:
    """The renders of an item's folder or of a folder written by `mewl render-spec`; one line otherwise."""
    if not folder.is_dir() or folder.is_symlink():
        raise UserError(f"{shown(str(folder))}: not a folder; expected an item's folder or one written by mewl render-spec")
    if any(os.path.lexists(folder / name) for name in catalog.record_files()):
        return _item_side(folder)
    return _spec_side(folder)


def pairs(a: Side, b: Side) -> list[tuple[str, Render, Render]]:
    """(title, A's render, B's render) of every scene both have, in A's order."""
    common = [name for name in a.renders if name in b.renders]
    if common:
        return [(name, a.renders[name], b.renders[name]) for name in common]
    if len(a.renders) == len(b.renders) == 1:
        (ra,), (rb,) = a.renders.values(), b.renders.values()
        return [(ra.name if ra.name == rb.name else f"{ra.name} and {rb.name}", ra, rb)]
    raise UserError(f"{shown(a.label)} and {shown(b.label)} share no scene's name ({shown(', '.join(a.renders), 160)}; "
                    f"{shown(', '.join(b.renders), 160)}); render the edited scene with --panel NAME")


def _value(v: object) -> str:
    if isinstance(v, float):
        return f"{round(v, 4):g}"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(_value(x) for x in v) + ")"
    return str(v)


def recorded(truth: ImageTruth) -> dict[str, str]:
    """The spec's fields as the render's ground truth records them, named as the spec names them."""
    fields: dict[str, object] = {}
    for k, o in enumerate(truth.objects):
        at = "hand" if isinstance(o, HandObject) else f"objects[{k}]"
        if isinstance(o, HandObject):
            fields |= {"hand.position": o.coords_3d[:2], "hand.yaw": o.rotation_radians}
            continue
        fields |= {f"{at}.shape": o.shape, f"{at}.color": o.color, f"{at}.material": o.material, f"{at}.size": o.size,
                   f"{at}.position": o.coords_3d[:2], f"{at}.rotation": o.rotation_radians}
    if truth.points_to is not None:
        fields["hand.target"] = truth.points_to
    c = truth.camera
    fields |= {"camera.location": c.location, "camera.rotation": c.rotation_euler_xyz, "camera.lens_mm": c.lens_mm,
               "camera.sensor_width_mm": c.sensor_width_mm, "camera.width": c.width, "camera.height": c.height}
    for k, light in enumerate(truth.lights):
        fields |= {f"lights[{k}].{key}": v for key, v in light.model_dump().items()}
    fields |= {f"render.{key}": v for key, v in truth.render.model_dump().items()}
    fields |= {"seed": truth.seed, "attempt": truth.attempt}
    return {key: _value(v) for key, v in fields.items()}


def spec_changes(a: ImageTruth, b: ImageTruth) -> list[tuple[str, str, str]]:
    """(field, A's value, B's value) of every recorded spec field that differs; '(none)' where one lacks it."""
    fa, fb = recorded(a), recorded(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    return [(k, fa.get(k, "(none)"), fb.get(k, "(none)")) for k in keys if fa.get(k) != fb.get(k)]


@dataclass(frozen=True)
class Pixels:
    changed: np.ndarray | None  # (height, width) bool; None where the images differ in size
    per_object: list[tuple[int, str, int, int]]  # (index, description, changed pixels in its mask, its mask's pixels)
    outside: int  # changed pixels outside every object's mask


def _mask(truth: ImageTruth, k: int, height: int, width: int) -> np.ndarray:
    m = _decode(truth.objects[k].mask, height, width) if k < len(truth.objects) else None
    return np.zeros((height, width), bool) if m is None else m.astype(bool)


def _description(a: ImageTruth, b: ImageTruth, k: int) -> str:
    da = a.objects[k].description if k < len(a.objects) else "(none)"
    db = b.objects[k].description if k < len(b.objects) else "(none)"
    return da if da == db else f"{da} → {db}"


def pixel_changes(a: Render, b: Render) -> Pixels:
    """The changed pixels of B against A, and how many lie in each object's mask (its mask in either)."""
    if a.pixels.shape != b.pixels.shape:
        return Pixels(None, [], 0)
    changed = np.abs(a.pixels.astype(np.int16) - b.pixels.astype(np.int16)).max(axis=2) > THRESHOLD
    height, width = changed.shape
    anywhere = np.zeros_like(changed)
    rows = []
    for k in range(max(len(a.truth.objects), len(b.truth.objects))):
        mask = _mask(a.truth, k, height, width) | _mask(b.truth, k, height, width)
        anywhere |= mask
        rows.append((k, _description(a.truth, b.truth, k), int((changed & mask).sum()), int(mask.sum())))
    return Pixels(changed, rows, int((changed & ~anywhere).sum()))


def difference_picture(b: Render, changed: np.ndarray) -> np.ndarray:
    """B's image dimmed to grey, its changed pixels in magenta: what changed, where, at a glance."""
    grey = (b.pixels.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)) * 0.35
    picture = np.repeat(np.rint(grey).astype(np.uint8)[..., None], 3, axis=2)
    picture[changed] = (255, 0, 255)
    return picture
