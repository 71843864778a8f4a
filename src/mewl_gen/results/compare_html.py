"""The side-by-side page of `mewl inspect A B --html DIR` (results/compare.py finds what differs): for each
scene both folders have, the spec fields that differ ("objects[2].color: red → blue"), the changed pixels
counted inside each object's mask, and A's render, B's and the difference picture side by side. Static,
opens from disk, every text escaped, every picture a lazy file beside the page (a0.png, b0.png, diff0.png:
numbered, so no scene's name is ever a path)."""
from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from mewl_gen.store.files import write_atomic
from mewl_gen.store.new_folder import NewFolder

from . import compare, export
from .gallery_html import STYLE, esc, href

CSS = """\
.sides { display: flex; flex-wrap: wrap; gap: 1em; }
.sides figure { margin: 0; }
.sides img { image-rendering: pixelated; border: 1px solid #ccc; }
table.changed td, table.changed th { padding: .1em .8em; text-align: right; }
table.changed td:first-child, table.changed th:first-child { text-align: left; }
tr.most td { font-weight: bold; }
"""


def _fields(changes: list[tuple[str, str, str]]) -> str:
    if not changes:
        return '<p class="fields none">No spec field differs.</p>'
    return ('<ul class="fields">' + "".join(f'<li data-field="{esc(k)}"><code>{esc(k)}</code>: {esc(va)} → {esc(vb)}</li>'
                                           for k, va, vb in changes) + "</ul>")


def _pixels(p: compare.Pixels, a: compare.Render, b: compare.Render) -> str:
    if p.changed is None:
        return (f'<p class="pixels">The images differ in size ({a.pixels.shape[1]}x{a.pixels.shape[0]} and '
                f'{b.pixels.shape[1]}x{b.pixels.shape[0]}): their pixels are not compared.</p>')
    total = int(p.changed.sum())
    most = max(p.per_object, key=lambda row: row[2], default=None)
    rows = "".join(f'<tr data-index="{k}"{" class=most" if most and k == most[0] and n else ""}><td>#{k} {esc(what)}</td>'
                   f'<td>{n:,}</td><td>{size:,}</td></tr>' for k, what, n, size in p.per_object)
    return (f'<p class="pixels">{total:,} of {p.changed.size:,} pixels changed (a channel differs by more than '
            f'{compare.THRESHOLD} of 255).</p><table class="changed"><tr><th>object</th><th>changed pixels in its '
            f'mask</th><th>its mask (A or B)</th></tr>{rows}<tr data-index="outside"><td>outside every object\'s mask'
            f'</td><td>{p.outside:,}</td><td></td></tr></table>')


def _figure(src: str, w: int, h: int, caption: str) -> str:
    return (f'<figure><img src="{href(src)}" width="{w * 2}" height="{h * 2}" loading="lazy" alt="{esc(caption)}">'
            f'<figcaption>{esc(caption)}</figcaption></figure>')


def _section(k: int, title: str, a: compare.Render, b: compare.Render, p: compare.Pixels) -> str:
    figures = [_figure(f"a{k}.png", a.pixels.shape[1], a.pixels.shape[0], "A"),
               _figure(f"b{k}.png", b.pixels.shape[1], b.pixels.shape[0], "B")]
    if p.changed is not None:
        figures.append(_figure(f"diff{k}.png", b.pixels.shape[1], b.pixels.shape[0], "changed pixels (magenta)"))
    return (f'<section class="pair" data-scene="{k}"><h2>{esc(title)}</h2><h3>Spec fields that differ</h3>'
            f'{_fields(compare.spec_changes(a.truth, b.truth))}<h3>Pixels that differ</h3>{_pixels(p, a, b)}'
            f'<div class="sides">{"".join(figures)}</div></section>\n')


def page(a: compare.Side, b: compare.Side, sections: list[str]) -> str:
    title = "two renders side by side"
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{esc(title)}</title>\n'
            f'<link rel="stylesheet" href="style.css">\n<style>\n{CSS}</style>\n</head>\n<body>\n<h1>{esc(title)}</h1>\n'
            f'<p class="sources">A: <code>{esc(a.label)}</code><br>B: <code>{esc(b.label)}</code></p>\n'
            + "".join(sections) + "</body>\n</html>\n")


def build(path_a: Path, path_b: Path, dest: Path) -> Path:
    """`mewl inspect A B --html DIR`: the side-by-side page, DIR/index.html, written in a staging folder beside
    DIR and renamed into place; DIR is new (or an empty folder). The page's path."""
    a, b = compare.side(path_a), compare.side(path_b)
    export.check_dest(a.out or b.out or path_a, dest, "write the comparison's page")
    pairs = compare.pairs(a, b)
    with NewFolder(dest, "write the comparison's page") as staging:
        write_atomic(staging, staging / "style.css", STYLE, sync=False)
        sections = []
        for k, (title, ra, rb) in enumerate(pairs):
            write_atomic(staging, staging / f"a{k}.png", ra.png, sync=False)
            write_atomic(staging, staging / f"b{k}.png", rb.png, sync=False)
            p = compare.pixel_changes(ra, rb)
            if p.changed is not None:
                diff = io.BytesIO()
                Image.fromarray(compare.difference_picture(rb, p.changed)).save(diff, "PNG")
                write_atomic(staging, staging / f"diff{k}.png", diff.getvalue(), sync=False)
            sections.append(_section(k, title, ra, rb, p))
        write_atomic(staging, staging / "index.html", page(a, b, sections), sync=False)
    return dest / "index.html"
