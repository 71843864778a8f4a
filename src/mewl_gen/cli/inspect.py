"""`mewl inspect PATH`: a scene, an image's ground truth or an item (an
episode, a statement about an image, ...) made readable; `--overlay FILE.png` draws
boxes, names and the pointed object; `--html DIR` writes an item's inspector page, and `mewl inspect A B
--html DIR` two renders of a scene side by side with what differs (results/compare.py).

PATH may be an item folder (or its episode.json / info.json / item.json), a
scene spec JSON, a rendered image's JSON, or a rendered PNG (its JSON beside it).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

from mewl_gen.errors import UserError, shown, terminal
from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.relations import relationships
from mewl_gen.scenes.spec import SceneSpec, SpecError, read_json
from mewl_gen.scenes.universe import DIRECTIONS, describe
from mewl_gen.store import door
from mewl_gen.store.reader import item_at, loose_file
from mewl_gen.tasks import catalog
from mewl_gen.tasks.item import Item

from . import options, overlay
from .validate import load_spec


# -- loading ------------------------------------------------------------------
def _read_json(path: Path) -> dict:
    try:
        return read_json(path)[1]
    except SpecError as err:
        raise UserError(str(err)) from None


def _checked_truth(data: object, path: Path) -> dict:
    """A rendered image's ground truth, checked by its model before a line of it is read."""
    from pydantic import ValidationError

    try:
        ImageTruth.model_validate(data)
    except ValidationError as err:
        raise UserError(f"{shown(str(path))}: not an image's ground truth of this tool ({door.field_error(err)})") from None
    if Path(data["image_filename"]).name != data["image_filename"]:
        raise UserError(f"{shown(str(path))}: image_filename {shown(data['image_filename'], 80)} is not a file name")
    return data


def load(path: Path) -> tuple[str, object, Path]:
    """('item', Item, folder) | ('truth', dict, json path) | ('scene', SceneSpec, path)."""
    item_at(path)  # a file of a damaged item: one line, not a decoder's traceback
    if path.is_dir() or path.name in catalog.item_files():
        folder = path if path.is_dir() else path.parent
        records = catalog.record_files()
        if not any(os.path.lexists(folder / name) for name in records):  # a link there is refused as it is read
            raise UserError(f"{folder}: no {' or '.join(records)}; expected an item folder")
        spec = load_spec(folder)
        if not isinstance(spec, Item):
            raise UserError(f"{folder}: not an item's folder ({type(spec).__name__} found)")
        return "item", spec, folder
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    if path.suffix == ".png":
        if not os.path.lexists(path.with_suffix(".json")):
            raise UserError(f"{path}: no ground truth {path.with_suffix('.json').name} beside it")
        path = path.with_suffix(".json")
        data = _beside(path)
    else:
        data = _read_json(path)
    if isinstance(data, dict) and "image_filename" in data and "objects" in data:
        return "truth", _checked_truth(data, path), path
    spec = load_spec(path)
    return ("item", spec, path.parent) if isinstance(spec, Item) else ("scene", spec, path)


# -- text ---------------------------------------------------------------------
# Each function returns lines, with a dataset's words (choices, lexicons, sentences, names, captions) as
# written; cmd_inspect escapes every line for the terminal, so a word's own line break or escape sequence
# shows as its escape on the line it belongs to.
def _relations_text(rels: dict[str, list[list[int]]], count: int) -> list[str]:
    lines = []
    for i in range(count):
        parts = [f"{rel}: " + (", ".join(f"#{j}" for j in rels[rel][i]) or "-") for rel in DIRECTIONS]
        lines.append(f"    #{i} has to its " + "; ".join(parts))
    return lines


def scene_lines(spec: SceneSpec, truth: dict | None = None) -> list[str]:
    r = spec.render
    lines = [f"camera {spec.camera.width}x{spec.camera.height}, {len(spec.objects)} objects, "
             f"quality {r.quality} ({r.samples} samples, denoiser {r.denoiser}), spec {spec.spec_hash()[:12]}"]
    seen = truth["objects"] if truth else [None] * len(spec.objects)
    for i, (o, t) in enumerate(zip(spec.objects, seen)):
        line = (f"  #{i} {describe(o.properties):<28} at ({o.position[0]:+.2f}, {o.position[1]:+.2f}) "
                f"yaw {math.degrees(o.rotation):5.1f} deg")
        if t is not None:
            line += f"  bbox {t['bbox']}  {t['visible_pixels']} px"
        lines.append(line)
    if spec.hand is not None:
        h = spec.hand
        target = describe(spec.objects[h.target].properties) if h.target < len(spec.objects) else "?"
        lines.append(f"  hand at ({h.position[0]:+.2f}, {h.position[1]:+.2f}) yaw {math.degrees(h.yaw):.1f} deg "
                     f"points to #{h.target} ({target})")
    lines.append("  relations (CLEVR: objects lying in that direction):")
    lines += _relations_text(relationships(spec.camera, spec.objects), len(spec.objects))
    return lines


def truth_lines(gt: dict) -> list[str]:
    lines = [f"{gt['image_filename']}: {len(gt['objects'])} objects, device {gt.get('device')}, "
             f"Blender {gt.get('blender_version')}, spec {str(gt.get('spec_hash'))[:12]}"]
    objects, hands = overlay.entities(gt)
    for i, o in enumerate(objects):
        word = f" '{o['name']}'" if o["name"] else ""
        lines.append(f"  #{i} {o['description'] + word:<28} 3d {[round(c, 2) for c in o['3d_coords']]}  "
                     f"bbox {o['bbox']}  {o['visible_pixels']} px")
    for h in hands:
        p = gt["points_to"]
        lines.append(f"  hand bbox {h['bbox']} {h['visible_pixels']} px, points to #{p} ({objects[p]['description']})")
    if gt.get("caption"):
        lines.append(f"  caption: {gt['caption']}")
    lines.append("  relations (CLEVR: objects lying in that direction):")
    lines += _relations_text(gt["clevr_relationships"], len(objects))
    return lines


def _beside(path: Path) -> object:
    """A JSON file the user did not name, found in the folder of what they did: read through the door."""
    return door.parse_json(loose_file(path), path)


def _truth(folder: Path, name: str) -> dict | None:
    path = folder / f"{name}.json"
    return _checked_truth(_beside(path), path) if os.path.lexists(path) else None


def item_lines(item: Item, folder: Path) -> list[str]:
    """The item as it reads itself (its text and labels), each scene with its ground truth where rendered."""
    scenes = item.scenes()
    return item.inspect_lines(lambda name: scene_lines(scenes[name], _truth(folder, name)))


# -- overlays (drawn by cli.overlay) -------------------------------------------
def item_overlay(item: Item, folder: Path):
    """Every image of the item with its boxes, each under the caption the item gives it."""
    tiles = list(item.overlay_captions().items())
    truths = []
    for name, _ in tiles:
        gt = _truth(folder, name)
        if gt is None:
            raise UserError(f"{folder / name}.json: missing; the item is not rendered")
        truths.append(gt)
    marked = item.overlay_marked()
    return overlay.episode_sheet([(folder / f"{name}.png", caption, marked.get(name, ())) for name, caption in tiles],
                                 truths)


def cmd_inspect(args) -> int:
    if args.other is not None and args.html is None:
        raise UserError(f"two folders are compared on a page: mewl inspect {args.path} {args.other} --html DIR")
    if args.html is not None:
        from mewl_gen.results import compare_html, inspector

        if args.overlay is not None:
            raise UserError("--html and --overlay: choose one")
        if args.other is not None:
            written = compare_html.build(Path(args.path), Path(args.other), Path(args.html))
            print(f"wrote {args.path} and {args.other} side by side: open {written}")
            return 0
        print(f"wrote the inspector's page of {args.path}: open {inspector.build_one(Path(args.path), Path(args.html))}")
        return 0
    target = None if args.overlay is None else options.new_file(args.overlay, "--overlay", args.force)
    if target is not None:
        overlay.check_path(target)
    kind, obj, where = load(Path(args.path))
    image = None
    if target is not None:  # drawn before anything is printed: a missing image is the only line
        if kind == "scene":
            raise UserError(f"{args.path} is a scene spec, not a render; overlay a rendered image's .json or .png")
        image = (item_overlay(obj, where) if kind == "item"
                 else overlay.draw_truth(where.with_name(obj["image_filename"]), obj))
    lines = item_lines(obj, where) if kind == "item" else truth_lines(obj) if kind == "truth" else scene_lines(obj)
    print("\n".join(terminal(line) for line in lines))
    if image is not None:
        overlay.save(image, target)
        print(f"overlay written to {target}")
    return 0


def register(sub) -> None:
    s = sub.add_parser("inspect", help="a scene, an image's ground truth or an episode, readable; --overlay draws boxes")
    s.add_argument("path", help="episode folder, episode.json, scene spec JSON, rendered image JSON or PNG")
    s.add_argument("other", nargs="?", default=None, metavar="B",
                   help="with --html: a second render of the scene (an item's folder, or a folder mewl render-spec "
                        "wrote), shown beside PATH's with the spec fields and pixels that differ")
    s.add_argument("--overlay", metavar="FILE.png", help="write the image(s) with boxes, names and the pointed object")
    s.add_argument("--force", action="store_true", help="replace an existing --overlay file")
    s.add_argument("--html", metavar="DIR", help="write the item's inspector page (layers, objects, map, why) to a "
                                                 "new folder DIR")
    s.set_defaults(func=cmd_inspect)
