"""The HTML of the inspector's pages (results/inspector.py decides what goes in them). A static page that
opens from the file system: its script and style are files of the site (inspect.js, inspect.css, written
once), its data one JSON block whose text cannot end the block (study.build.script_json), every text of
the dataset escaped (gallery_html.esc) or set as text by the script, every picture a relative, lazy link."""
from __future__ import annotations

from pathlib import Path

from mewl_gen.store.files import write_atomic

from .gallery_html import Link, esc, href, nav
from .study.build import script_json

SCRIPT, STYLE = "inspect.js", "inspect.css"
ZOOM = 2  # the image is shown at twice its pixels, so that small objects can be clicked
# Layers: (name, label, on at first); the passes' come after, off at first, where the dataset has them.
LAYERS = (("render", "render", True), ("masks", "masks", True), ("boxes", "boxes", False), ("ids", "instance ids", False))
PASS_LABELS = {"depth": "depth", "normal": "normals", "albedo": "albedo", "instance": "instance pass"}
# (field, label, shown only with the answer): the selected object's facts, in this order.
FIELDS = (("index", "object", False), ("description", "description", False), ("shape", "shape", False),
          ("color", "colour", False), ("material", "material", False), ("size", "size", False),
          ("position", "position (x, y)", False), ("rotation", "rotation (degrees)", False),
          ("box", "box [x, y, w, h]", False), ("visible_pixels", "visible pixels", False),
          ("hidden", "hidden", False), ("words", "words naming it", True), ("role", "role", True))


def _view(scene: dict, passes: tuple[str, ...]) -> str:
    name, w, h = scene["name"], scene["width"], scene["height"]
    imgs = [f'<img class="layer render" src="{href(name + ".png")}" width="{w}" height="{h}" loading="lazy" '
            f'alt="{esc(name)}">']
    imgs += [f'<img class="layer pass" data-layer="{kind}" src="{href("layers", f"{name}.{kind}.png")}" width="{w}" '
             f'height="{h}" loading="lazy" alt="{esc(PASS_LABELS[kind])} of {esc(name)}">' for kind in passes]
    boxes = "".join(f'<rect data-index="{o["index"]}" x="{o["box"][0]}" y="{o["box"][1]}" width="{o["box"][2]}" '
                    f'height="{o["box"][3]}" stroke="{o["color_key"]}"/>' for o in scene["objects"] if o["box"][2])
    ids = "".join(f'<text data-index="{o["index"]}" x="{o["box"][0] + o["box"][2] / 2:.1f}" '
                  f'y="{o["box"][1] + o["box"][3] / 2:.1f}">{o["index"]}</text>' for o in scene["objects"] if o["box"][2])
    marks = (f'<svg class="layer marks" viewBox="0 0 {w} {h}" preserveAspectRatio="none">'
             f'<g data-layer="boxes">{boxes}</g><g data-layer="ids">{ids}</g></svg>')
    return (f'<div class="view" style="width: {w * ZOOM}px; height: {h * ZOOM}px">{"".join(imgs)}'
            f'<canvas class="layer masks" data-layer="masks" width="{w}" height="{h}"></canvas>{marks}</div>')


def _scale(near_far: tuple[float, float] | None) -> str:
    if near_far is None:
        return ""
    near, far = near_far
    return (f'<p class="depth-scale" data-layer="depth"><span>{near:.2f}</span><i></i><span>{far:.2f}</span> '
            f'scene units from the camera, along its axis</p>')


def _objects(scene: dict) -> str:
    rows = "".join(f'<tr data-index="{o["index"]}"><td><input type="checkbox" class="mask-toggle" checked '
                   f'aria-label="mask of #{o["index"]}"></td><td><i style="background:{o["color_key"]}"></i>'
                   f'#{o["index"]}</td><td>{esc(o["description"])}</td></tr>' for o in scene["objects"])
    return f'<table class="objects"><tr><th>mask</th><th>object</th><th>what</th></tr>{rows}</table>'


def _scene(k: int, scene: dict, map_svg: str, passes: tuple[str, ...], scale) -> str:
    hidden = "" if k == 0 else " hidden"
    # What the item says of the image may hold its answer (the query's caption names it): behind the switch.
    return (f'<section class="scene" data-scene="{k}"{hidden}><h2>{esc(scene["name"])} '
            f'<span class="answer">· {esc(scene["caption"])}</span></h2>'
            + (f'<p class="problem">{esc(scene["problem"])}</p>' if "problem" in scene else "")
            + f'<div class="panes"><div>{_view(scene, passes)}{_scale(scale)}<p class="hover"></p></div>'
            f'<div><h3>From above</h3>{map_svg}{_objects(scene)}</div></div>{_rerender(scene)}</section>\n')


def _rerender(scene: dict) -> str:
    if "rerender" not in scene:
        return ""
    return (f'<details class="rerender"><summary>Re-render after an edit</summary><p>From a copy of the item\'s file '
            f'with a field changed: this scene rendered again, then both renders side by side with the spec fields '
            f'and pixels that differ (docs/inspect.md).</p><pre><code>{esc(scene["rerender"])}</code></pre></details>')


def page(title: str, links: list[Link], scenes: list[tuple[dict, str]], passes: tuple[str, ...],
         scales: dict[str, tuple[float, float]], why: list[str], up: str) -> str:
    layers = [*LAYERS, *((kind, PASS_LABELS[kind], False) for kind in passes)]
    switches = "".join(f'<label><input type="checkbox" data-layer="{name}"{" checked" if on else ""}> {esc(label)}'
                       f'</label>' for name, label, on in layers)
    here = ' class="here"'
    tabs = "".join(f'<button type="button" data-scene="{k}"{here if k == 0 else ""}>{esc(data["name"])}</button>'
                   for k, (data, _) in enumerate(scenes))
    facts = "".join(f'<dt{" class=answer" if answer else ""}>{esc(label)}</dt>'
                    f'<dd data-field="{field}"{" class=answer" if answer else ""}></dd>' for field, label, answer in FIELDS)
    body = (nav(links) + f"<h1>{esc(title)}</h1>\n"
            f'<div class="controls"><fieldset id="layers"><legend>layers</legend>{switches}</fieldset>'
            f'<label class="switch"><input type="checkbox" id="show-answer"> show the answer</label></div>\n'
            f'<nav class="scenes">{tabs}</nav>\n<main class="inspector">\n<div class="scenes">'
            + "".join(_scene(k, data, svg, passes, scales.get(data["name"])) for k, (data, svg) in enumerate(scenes))
            + '</div>\n<aside id="info"><h2>Object</h2><p class="none">Click or hover an object on the image or the '
            f'map.</p><dl class="facts">{facts}</dl></aside>\n</main>\n'
            '<section id="why" class="answer block"><h2>Why this is the answer</h2><ol>'
            + "".join(f"<li>{esc(line)}</li>" for line in why) + "</ol></section>\n"
            + '<script type="application/json" id="inspector-data">'
            + script_json({"scenes": [{k: v for k, v in data.items() if k != "rerender"} for data, _ in scenes]}) + "</script>\n")
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{esc(title)}</title>\n'
            f'<link rel="stylesheet" href="{up}style.css">\n<link rel="stylesheet" href="{up}{STYLE}">\n'
            f'<script src="{up}{SCRIPT}" defer></script>\n</head>\n<body>\n{body}</body>\n</html>\n')


def write_assets(root: Path) -> None:
    """The inspector's script and style into `root`, a site's held folder (store.new_folder), once a site."""
    here = Path(__file__).with_name("inspector_web")
    for name in (SCRIPT, STYLE):
        write_atomic(root, root / name, (here / name).read_bytes(), sync=False)
