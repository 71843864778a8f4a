"""`mewl inspect PATH`: a scene, an image's ground truth or an episode made
readable; `--overlay FILE.png` draws boxes, names and the pointed object.

PATH may be an episode folder (or its episode.json / info.json), a scene
spec JSON, a rendered image's JSON, or a rendered PNG (its JSON beside it).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from scenes.relations import relationships
from scenes.spec import Episode, SceneSpec
from scenes.universe import DIRECTIONS, describe

from .errors import UserError
from .validate import load_spec

SCALE = 2  # overlays are drawn at twice the render size so labels stay legible
POINTED = (255, 40, 40)
BOX = (255, 255, 255)
HAND = (255, 200, 0)


# -- loading ------------------------------------------------------------------
def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path}: not a JSON file ({err})") from None


def load(path: Path) -> tuple[str, object, Path]:
    """('episode', Episode, folder) | ('truth', dict, json path) | ('scene', SceneSpec, path)."""
    if path.is_dir() or path.name in ("episode.json", "info.json"):
        folder = path if path.is_dir() else path.parent
        if not (folder / "episode.json").is_file():
            raise UserError(f"{folder}: no episode.json; expected an episode folder")
        return "episode", load_spec(folder / "episode.json"), folder
    if path.suffix == ".png":
        path = path.with_suffix(".json")
    data = _read_json(path)
    if isinstance(data, dict) and "image_filename" in data and "objects" in data:
        return "truth", data, path
    spec = load_spec(path)
    return ("episode", spec, path.parent) if isinstance(spec, Episode) else ("scene", spec, path)


# -- text ---------------------------------------------------------------------
def _relations_text(rels: dict[str, list[list[int]]], count: int) -> list[str]:
    lines = []
    for i in range(count):
        parts = [f"{rel}: " + (", ".join(f"#{j}" for j in rels[rel][i]) or "-") for rel in DIRECTIONS]
        lines.append(f"    #{i} has to its " + "; ".join(parts))
    return lines


def scene_text(spec: SceneSpec, truth: dict | None = None, indent: str = "  ") -> str:
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
    return "\n".join(indent + line if k else line for k, line in enumerate(lines))


def _entities(gt: dict) -> tuple[list[dict], list[dict]]:
    """The universe objects and the pointing hand (MEWL lists it last, as an `arrow`)."""
    return ([o for o in gt["objects"] if o["shape"] != "arrow"], [o for o in gt["objects"] if o["shape"] == "arrow"])


def truth_text(gt: dict) -> str:
    lines = [f"{gt['image_filename']}: {len(gt['objects'])} objects, device {gt.get('device')}, "
             f"Blender {gt.get('blender_version')}, spec {str(gt.get('spec_hash'))[:12]}"]
    objects, hands = _entities(gt)
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
    return "\n".join(lines)


def _truth(folder: Path, name: str) -> dict | None:
    path = folder / f"{name}.json"
    return _read_json(path) if path.is_file() else None


def episode_text(ep: Episode, folder: Path) -> str:
    lexicon = ", ".join(f"{w} = {c if not isinstance(c, tuple) else describe(c)}" for w, c in ep.lexicon.items())
    lines = [f"{ep.task} episode {ep.index} (split {ep.split}, root seed {ep.root_seed}, retry {ep.retry}), {ep.generator}",
             f"lexicon: {lexicon}"]
    for k, p in enumerate(ep.context_panels, 1):
        lines.append(f"context panel {k} {p.name!r}: utterance {p.utterance!r}")
        lines.append("  " + scene_text(p.scene, _truth(folder, p.name), indent="  "))
    lines.append("query (question.png):")
    lines.append("  " + scene_text(ep.query, _truth(folder, "question"), indent="  "))
    marked = [f"[{c}]" if c == ep.answer else c for c in ep.choices]
    lines.append(f"choices: {', '.join(marked)}  (answer {ep.answer!r}, index {ep.answer_index})")
    return "\n".join(lines)


# -- overlays -----------------------------------------------------------------
def _font():
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=11)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def draw_truth(image_path: Path, gt: dict):
    """The image at SCALE x with every object's box and name; the pointed one in red."""
    from PIL import Image, ImageDraw

    if not image_path.is_file():
        raise UserError(f"{image_path}: no such image to draw on")
    with Image.open(image_path) as im:
        im = im.convert("RGB").resize((im.width * SCALE, im.height * SCALE), Image.Resampling.LANCZOS)
    draw, font = ImageDraw.Draw(im), _font()
    objects, hands = _entities(gt)
    boxes = [(f"#{i} {o['description']}", o["bbox"], POINTED if i == gt.get("points_to") else BOX)
             for i, o in enumerate(objects)]
    boxes += [("hand", h["bbox"], HAND) for h in hands]
    for label, (x, y, w, h), color in boxes:
        if w == 0 or h == 0:
            continue
        x0, y0, x1, y1 = x * SCALE, y * SCALE, (x + w) * SCALE - 1, (y + h) * SCALE - 1
        draw.rectangle((x0, y0, x1, y1), outline=color, width=3 if color == POINTED else 1)
        if color == POINTED:
            label += "  <- pointed"
        tx, ty = x0 + 2, max(0, y0 - 14)
        text_box = draw.textbbox((tx, ty), label, font=font)
        draw.rectangle(text_box, fill=(0, 0, 0))
        draw.text((tx, ty), label, fill=color, font=font)
    return im


def episode_sheet(ep: Episode, folder: Path):
    """All seven images with their boxes: context panels, then the query."""
    from PIL import Image, ImageDraw

    tiles = [(p.name, f"{p.name}: {p.utterance!r}") for p in ep.context_panels]
    tiles.append(("question", f"question; answer {ep.answer!r} of {', '.join(ep.choices)}"))
    images = []
    for name, caption in tiles:
        gt = _truth(folder, name)
        if gt is None:
            raise UserError(f"{folder / name}.json: missing; the episode is not rendered")
        images.append((draw_truth(folder / f"{name}.png", gt), caption))
    w, h = images[0][0].size
    cols, bar = 4, 18
    sheet = Image.new("RGB", (cols * w, 2 * (h + bar)), (0, 0, 0))
    draw, font = ImageDraw.Draw(sheet), _font()
    for k, (im, caption) in enumerate(images):
        x, y = (k % cols) * w, (k // cols) * (h + bar)
        draw.text((x + 4, y + 3), caption, fill=(255, 255, 255), font=font)
        sheet.paste(im, (x, y + bar))
    return sheet


def cmd_inspect(args) -> int:
    kind, obj, where = load(Path(args.path))
    if kind == "episode":
        print(episode_text(obj, where))
    elif kind == "truth":
        print(truth_text(obj))
    else:
        print(scene_text(obj))
    if args.overlay:
        if kind == "scene":
            raise UserError(f"{args.path} is a scene spec, not a render; overlay a rendered image's .json or .png")
        image = episode_sheet(obj, where) if kind == "episode" else draw_truth(where.with_name(obj["image_filename"]), obj)
        image.save(args.overlay)
        print(f"overlay written to {args.overlay}")
    return 0


def register(sub) -> None:
    s = sub.add_parser("inspect", help="a scene, an image's ground truth or an episode, readable; --overlay draws boxes")
    s.add_argument("path", help="episode folder, episode.json, scene spec JSON, rendered image JSON or PNG")
    s.add_argument("--overlay", metavar="FILE.png", help="write the image(s) with boxes, names and the pointed object")
    s.set_defaults(func=cmd_inspect)
