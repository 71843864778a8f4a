"""The HTML of `mewl gallery`'s pages (results/gallery.py decides what goes where). Static pages that open
from the file system: no script, no external style or font; the masks are a CSS toggle (a checkbox) over
overlays drawn at build time. Every text is escaped here (`esc`), every link is relative and quoted
(`href`), so a gallery can be moved as a folder."""
from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import quote

from mewl_gen.tasks.gallery import Block, Shown

STYLE = """\
body { font: 15px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #222; background: #fafafa; }
a { color: #1a56a0; }
nav { display: flex; flex-wrap: wrap; gap: .4em 1.2em; margin: .6em 0; }
nav .off { color: #aaa; }
nav .here { font-weight: bold; }
h1 { font-size: 1.35em; margin: .4em 0 .1em; }
h2 { font-size: 1.05em; margin: 0 0 .4em; }
.seed, .note { color: #555; margin: 0 0 .8em; }
main { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.block { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .7em .9em; }
.images { display: flex; flex-wrap: wrap; gap: .6em; }
.images.cols { display: grid; grid-template-columns: repeat(var(--cols), max-content); }
figure { margin: 0; width: 240px; }
figure.marked .stack { outline: 4px solid #2a9d3a; }
.stack { position: relative; display: block; line-height: 0; }
.stack img { width: 240px; height: auto; }
.stack img.masks { position: absolute; left: 0; top: 0; }
figure:only-child, figure:only-child .stack img { width: 320px; }
figcaption { text-align: center; }
figcaption .said { font-weight: 600; }
figcaption small { display: block; color: #555; }
.words { display: flex; flex-wrap: wrap; gap: .5em; list-style: none; padding: 0; margin: 0; }
.words li { border: 1px solid #bbb; border-radius: 4px; padding: .2em .6em; font-weight: 600; }
.words li.answer { border: 3px solid #2a9d3a; background: #eaf7ec; }
.words li.answer::after { content: " \\2713 answer"; color: #2a9d3a; font-weight: normal; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: .15em 1em; margin: 0; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; }
.masks { display: none; }
#masks:checked ~ main .masks { display: block; }
ul.legend { list-style: none; padding: 0; margin: .2em 0 0; font-size: .85em; }
ul.legend i { display: inline-block; width: .9em; height: .9em; margin-right: .4em; vertical-align: -.1em; }
.items { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: .8em; list-style: none;
         padding: 0; }
.items li { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .4em; }
.items img { width: 160px; height: auto; display: block; }
.items .line { font-size: .85em; color: #444; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; }
td, th { border: 1px solid #ddd; padding: .3em .7em; text-align: left; vertical-align: top; }
"""


def esc(text: object) -> str:
    """Any text as HTML text or an attribute's value."""
    return html.escape(str(text), quote=True)


def href(*parts: str) -> str:
    """A relative link to the file at these path parts, each quoted (a scene may be named 'dax #3')."""
    return esc("/".join(quote(p, safe="") if p != ".." else p for p in parts))


def document(title: str, up: str, body: str, toggle: bool = False) -> str:
    """A whole page; `up` is the way to the gallery's root ('../../')."""
    masks = '<input type="checkbox" id="masks"> <label for="masks">show each object\'s mask</label>\n' if toggle else ""
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{esc(title)}</title>\n'
            f'<link rel="stylesheet" href="{up}style.css">\n</head>\n<body>\n{masks}{body}</body>\n</html>\n')


@dataclass(frozen=True)
class Link:
    """A link of a page's navigation; no target: shown greyed."""

    text: str
    target: str | None = None  # an href() already
    rel: str = ""


def nav(links: list[Link]) -> str:
    parts = []
    for link in links:
        if link.target is None:
            parts.append(f'<span class="off">{esc(link.text)}</span>')
        else:
            rel = f' rel="{link.rel}"' if link.rel else ""
            parts.append(f'<a href="{link.target}"{rel}>{esc(link.text)}</a>')
    return f"<nav>{' '.join(parts)}</nav>\n"


def figure(shown: Shown, folder: str, legend: list[tuple[str, str]]) -> str:
    """One image of an item, its mask overlay (shown by the toggle) and its objects' legend."""
    src, over = href(folder, f"{shown.scene}.png"), href(folder, "masks", f"{shown.scene}.png")
    marked = ' class="marked"' if shown.marked else ""
    said = f'<span class="said">{esc(shown.caption)}</span>' if shown.caption else ""
    note = f"<small>{esc(shown.note)}</small>" if shown.note else ""
    keys = "".join(f'<li><i style="background:{esc(color)}"></i>{esc(what)}</li>' for color, what in legend)
    return (f'<figure{marked}><a class="stack" href="{src}"><img src="{src}" alt="{esc(shown.scene)}">'
            f'<img class="masks" src="{over}" alt="the masks of {esc(shown.scene)}"></a>'
            f'<figcaption>{said}{note}</figcaption><ul class="masks legend">{keys}</ul></figure>')


def block(b: Block, folder: str, legends: dict[str, list[tuple[str, str]]]) -> str:
    parts = [f"<h2>{esc(b.title)}</h2>"]
    if b.images:
        cols = f' cols" style="--cols: {int(b.columns)}' if b.columns > 0 else ""
        parts.append(f'<div class="images{cols}">'
                     + "".join(figure(s, folder, legends.get(s.scene, [])) for s in b.images) + "</div>")
    if b.words:
        parts.append('<ul class="words">' + "".join(
            f'<li class="answer">{esc(w)}</li>' if w in b.marked else f"<li>{esc(w)}</li>" for w in b.words) + "</ul>")
    if b.facts:
        parts.append('<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in b.facts)
                     + "</dl>")
    return f'<section class="block">{"".join(parts)}</section>\n'


def item_page(title: str, seed: str, links: list[Link], blocks: tuple[Block, ...], folder: str,
              legends: dict[str, list[tuple[str, str]]]) -> str:
    body = (nav(links) + f"<h1>{esc(title)}</h1>\n<p class=\"seed\">{esc(seed)}</p>\n<main>\n"
            + "".join(block(b, folder, legends) for b in blocks) + "</main>\n")
    return document(title, "../../", body, toggle=True)


def entry(target: str, cover: str, name: str, line: str, inspect: str | None = None) -> str:
    """An item of a task's index: its cover image, its name ('episode 3'), its line and its inspector."""
    more = f' <a class="inspect" href="{inspect}">inspect</a>' if inspect else ""
    return (f'<li><a href="{target}"><img src="{cover}" alt="" loading="lazy">{esc(name)}</a>{more}'
            f'<div class="line">{esc(line)}</div></li>')


def index_page(title: str, note: str, links: list[Link], entries: list[str], up: str) -> str:
    body = (nav(links) + f"<h1>{esc(title)}</h1>\n<p class=\"note\">{esc(note)}</p>\n"
            + '<ol class="items">\n' + "\n".join(entries) + "\n</ol>\n" + nav(links))
    return document(title, up, body)


def table(head: list[str], rows: list[list[str]]) -> str:
    """A table of HTML cells (already escaped or built here) under escaped headings."""
    return ("<table>\n<tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>\n"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows) + "</table>\n")


def anchor(target: str, text: str) -> str:
    return f'<a href="{target}">{esc(text)}</a>'
