"""The inspector: a page per item where every object answers "what am I" and the item "why is this the
answer" (`mewl gallery` writes one beside each item's page; `mewl inspect ITEM --html DIR` one alone).

For each image of the item: its layers (the render, each object's mask, boxes, instance ids and the
pictures of the passes the dataset has), its objects with their spec, ground truth, words and role, and
a bird's-eye map of its spec (inspector_map). Behind a "show the answer" switch: the benchmark's own
derivation from the item's files (Task.gallery.why), the answer its file-only solver reads off the
files (Task.solver) and the validator's verdict on the specs (Task.validate). This module knows no
benchmark: it asks the task's objects.

Everything comes through the item's door (StoredItem): the record and ground truths read through their
models, the pass files as bytes checked for their kind and size. The page holds no image as data: the
masks go as run lengths in the page's JSON, the pictures as files beside it, loaded lazily."""
from __future__ import annotations

import math
import os
import shlex
from pathlib import Path
from typing import Callable


from mewl_gen.errors import UserError, shown
from mewl_gen.render.worker import DEVICES
from mewl_gen.scenes.image_truth import HandObject, ImageTruth
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.visibility import projected_areas
from mewl_gen.store import reader
from mewl_gen.store.files import make_folder, write_atomic
from mewl_gen.store.manifest import passes_of
from mewl_gen.store.new_folder import NewFolder
from mewl_gen.tasks import catalog
from mewl_gen.tasks.gallery import CONTEXT
from mewl_gen.tasks.item import Item
from mewl_gen.tasks.stored import DamagedItem, StoredItem

from . import export, inspector_html as page, inspector_layers as layers, inspector_map
from .gallery_html import STYLE
from .gallery_masks import PALETTE, run_lengths
from .placed import place

PAGE = "inspect.html"  # an item's inspector page, in the folder of its images
HAND_ROLE = "the pointing hand"


def runs(truth: ImageTruth, k: int, size: tuple[int, int]) -> list[int]:
    """Object k's mask as COCO's uncompressed run lengths (column by column, starting with a run of
    background); empty where the mask does not fit its image."""
    width, height = size
    return run_lengths(truth.objects[k].mask, height, width) or []


def _answer(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_answer(v) for v in value)
    return "(none)" if value is None else str(value)


def _object(spec: SceneSpec, truth: ImageTruth, k: int, size: tuple[int, int], roles: dict[int, str],
            areas: list[float], words: Callable[[str], str]) -> dict:
    o = truth.objects[k]
    x, y, w, h = o.bbox
    entry = {"index": k, "description": o.description, "mask": runs(truth, k, size), "box": [x, y, w, h],
             "visible_pixels": o.visible_pixels, "words": words(o.name) if o.name else "", "color_key": "#%02x%02x%02x" % PALETTE[k % len(PALETTE)]}
    if isinstance(o, HandObject) or k >= len(spec.objects):
        return {**entry, "role": HAND_ROLE, "shape": "pointing hand", "hidden": ""}
    s = spec.objects[k]
    hidden = max(0.0, 1 - o.visible_pixels / areas[k]) if k < len(areas) and areas[k] > 0 else 0.0
    return {**entry, "role": roles.get(k, CONTEXT), "shape": s.shape, "color": s.color, "material": s.material,
            "size": s.size if s.half_extent is None else f"{s.size} (half-extent {s.half_extent:g})",
            "position": [round(s.position[0], 4), round(s.position[1], 4)],
            "rotation": round(math.degrees(s.rotation), 2), "hidden": f"{round(100 * hidden)} %"}


def scene_data(stored: StoredItem, item: Item, name: str, size: tuple[int, int], roles: dict[int, str],
               truth: ImageTruth | None, words: Callable[[str], str]) -> dict:
    spec = item.scenes()[name]
    if truth is None:
        raise DamagedItem(f"{shown(str(stored.folder))}: {name}.json is missing; the item is not rendered")
    areas = projected_areas(spec)
    objects = [_object(spec, truth, k, size, roles, areas, words) for k in range(len(truth.objects))]
    data = {"name": name, "width": size[0], "height": size[1], "objects": objects,
            "rerender": rerender(stored, name, truth.device)}
    # An image whose truth lists fewer objects than its spec does not show the scene as specified (a store
    # whose images were copied between items, as the scale benchmark's): the page says so above the image
    # instead of the gallery stopping, and its objects pair the truth's with the spec's in order.
    if len(truth.objects) < len(spec.objects):
        data["problem"] = (f"{name}.json lists {len(truth.objects)} objects and the spec {len(spec.objects)}: "
                           "this image does not show the scene its spec describes")
    return data


def rerender(stored: StoredItem, name: str, device: str) -> str:
    """The commands that re-render the scene from an edited copy of the item's file and show both renders side
    by side (results/compare.py): shell words quoted, for a user to copy."""
    folder = os.path.abspath(stored.folder)
    on = f" --device {device}" if device in DEVICES and device != "auto" else ""  # the same device draws the same noise
    return (f"cp {shlex.quote(os.path.join(folder, stored.model.RECORD_FILE))} edited.json\n"
            f"# change a field of the scene in edited.json (an object's color, say), then:\n"
            f"mewl render-spec edited.json --panel {shlex.quote(name)} --out rerendered{on}\n"
            f"mewl inspect {shlex.quote(folder)} rerendered --html compared")


# What a benchmark's reasoning or solver raises on files its sampler never wrote (a solver asserts what its
# sampler guarantees): the page says so, as it says any other answer.
UNPARSED = (UserError, ValueError, LookupError, TypeError, AssertionError)


def derivation(stored: StoredItem, item: Item) -> list[str]:
    """Why the answer is the answer: the benchmark's lines, the file-only solver's answer, the validator's."""
    task = catalog.task(stored.task)
    try:
        lines = list(task.gallery.why(stored))
    except UNPARSED as err:  # files no sampler of ours wrote
        lines = [f"The benchmark's own reasoning does not follow from this item's files: {shown(err, 200)}."]
    try:
        solved = _answer(task.solver.solve(stored))
    except UNPARSED as err:
        solved = f"none: {shown(err, 160)}"
    lines.append(f"The file-only solver, reading this item's files, answers: {solved}.")
    try:
        task.validate(item)
        lines.append("The validator recomputes every label from the specs: they hold.")
    except UNPARSED as err:
        lines.append(f"The validator recomputes every label from the specs and finds: {shown(err, 200)}.")
    lines.append(f"The item's answer: {_answer(item.solution())}.")
    return lines


def write(root: Path, stored: StoredItem, here: Path, sizes: dict[str, tuple[int, int]], passes: tuple[str, ...],
          title: str, up: str, links: list, truths: dict[str, ImageTruth | None] | None = None,
          page_name: str = PAGE          ) -> None:
    """The item's inspector page `page_name` into `here` under `root` (a site's held folder, store.new_folder), the
    folder that holds its images (placed there already, `sizes` theirs), with the pictures of its passes in
    here/layers/; `up`: the way to style.css. `truths`: its images' ground truths where the caller has read
    them already (the gallery, for its overlays)."""
    item, task = stored.item(), catalog.task(stored.task)
    roles = task.gallery.roles(item)
    captions = item.overlay_captions()
    scenes, scales = [], {}
    if passes:
        make_folder(root, here / "layers")
    for name in item.scenes():
        truth = truths[name] if truths is not None else stored.image_truth(name)
        data = scene_data(stored, item, name, sizes[name], roles.get(name, {}), truth, task.gallery.words)
        data["caption"] = captions.get(name, name)
        for kind in passes:
            png, scale = layers.draw(stored, name, kind, sizes[name])
            write_atomic(root, here / "layers" / f"{name}.{kind}.png", png, sync=False)
            if scale is not None:
                scales[name] = scale
        scenes.append((data, inspector_map.svg(item.scenes()[name], roles.get(name, {}))))
    text = page.page(title, links, scenes, passes, scales, derivation(stored, item), up)
    write_atomic(root, here / page_name, text, sync=False)


def one(folder: Path) -> tuple[Path, StoredItem]:
    """The item at OUT/<split>/<task>/<index> (or a file in it) as the store's reader hands it: (OUT, item);
    one line where it is no sound, rendered item of a dataset."""
    folder = folder if folder.is_dir() else folder.parent
    parts = folder.resolve().parts
    if len(parts) < 4 or not parts[-1].isdigit():
        raise UserError(f"{shown(str(folder))}: expected an item's folder, OUT/<split>/<task>/<index>")
    out, split, task, index = folder.resolve().parents[2], parts[-3], parts[-2], int(parts[-1])
    if task not in catalog.tasks():
        raise UserError(f"{shown(str(folder))}: {shown(task, 60)} is no task's folder ({', '.join(catalog.tasks())})")
    found = reader.read(out, tasks=[task], splits=[split], images=True)
    for stored in found.items.get((split, task), ()):
        if stored.index == index:
            return out, stored
    bad = [line for line in found.damaged if line.startswith(f"{split}/{task}/{index}:")]
    raise UserError(f"{shown(str(folder))}: no sound item to inspect ({shown(bad[0] if bad else 'not found', 200)})")


def build_one(folder: Path, dest: Path) -> Path:
    """`mewl inspect ITEM --html DIR`: the item's inspector page alone, DIR/index.html, written in a staging
    folder beside DIR and renamed into place; DIR is new (or an empty folder). The page's path."""
    out, stored = one(folder)
    export.check_dest(out, dest, "write the inspector's page")
    with NewFolder(dest, "write the inspector's page") as staging:
        page.write_assets(staging)
        write_atomic(staging, staging / "style.css", STYLE, sync=False)
        sizes = {name: place(stored, f"{name}.png", staging, staging / f"{name}.png") for name in stored.item().scenes()}
        write(staging, stored, staging, sizes, passes_of(out), f"{stored.task} · {stored.key} · inspector", "", [],
              page_name="index.html")
    return dest / "index.html"
