"""`mewl gallery OUT DIR`: a rendered dataset as a static site, an HTML page per item laid out as
its benchmark shows it, that opens from the file system (results/gallery.py). DIR is named as `mewl
export` names its new folder; the older `--out DIR` still works."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.results import gallery


def cmd_gallery(args) -> int:
    if (args.dir is None) == (args.old_dir is None):
        raise UserError("expected the new folder to write once: mewl gallery OUT DIR")
    out, dest = Path(args.out), Path(args.dir if args.dir is not None else args.old_dir)
    gallery.check_dest(out, dest)  # before reading every item
    chosen = gallery.choose(out)
    for line in chosen.lines:
        print(f"mewl gallery: {line}", file=sys.stderr)
    n = gallery.build(chosen, dest)
    print(f"wrote the pages of {n} items of {len(chosen.items)} split and task folder(s) to {dest}"
          + ("; the dataset is incomplete, as said above and on its pages" if chosen.short else "")
          + f"; open {dest / 'index.html'}")
    return 0


def register(sub) -> None:
    s = sub.add_parser("gallery", help="a rendered dataset as static HTML pages, one per item, that open from disk")
    s.add_argument("out", metavar="OUT", help="the dataset folder (made by mewl render)")
    s.add_argument("dir", metavar="DIR", nargs="?", default=None, help="a new folder to write (never overwritten)")
    s.add_argument("--out", dest="old_dir", default=None, help=argparse.SUPPRESS)  # the older spelling of DIR
    s.set_defaults(func=cmd_gallery)
