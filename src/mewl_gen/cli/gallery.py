"""`mewl gallery OUT --out DIR`: a rendered dataset as a static site, an HTML page per item laid out as
its benchmark shows it, that opens from the file system (results/gallery.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from mewl_gen.results import gallery


def cmd_gallery(args) -> int:
    out, dest = Path(args.out), Path(args.dir)
    gallery.check_dest(out, dest)  # before reading every item
    chosen = gallery.choose(out)
    for line in chosen.lines:
        print(f"mewl gallery: {line}", file=sys.stderr)
    n = gallery.build(chosen, dest)
    print(f"wrote the pages of {n} items of {len(chosen.items)} split and task folder(s) to {dest}; "
          f"open {dest / 'index.html'}")
    return 0


def register(sub) -> None:
    s = sub.add_parser("gallery", help="a rendered dataset as static HTML pages, one per item, that open from disk")
    s.add_argument("out", help="the dataset folder (made by mewl render)")
    s.add_argument("--out", dest="dir", metavar="DIR", required=True, help="a new folder to write (never overwritten)")
    s.set_defaults(func=cmd_gallery)
