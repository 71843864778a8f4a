"""`mewl verify OUT` (every item against its record) and `mewl index OUT` (the split indexes rebuilt)."""
from __future__ import annotations

import sys

from store import index
from store.errors import UserError
from store.files import writing
from store.layout import SPLIT
from store.manifest import read_manifest
from store.reader import item_folders
from store.verify import check
from tasks import catalog

from . import options


def cmd_verify(args) -> int:
    out = options.output(args.out)
    read_manifest(out)  # not a dataset, or a damaged manifest: one line
    items = item_folders(out)
    with writing(out):
        damaged = check(out, items)
    for line in damaged:
        print(f"damaged: {line}")
    noun = catalog.noun({task for _, task, _ in items}) if items else "item"
    print(f"verify: {len(items)} {noun}(s) checked, {len(damaged)} damaged"
          + ("; rerun the render command (or add --repair) to render them again" if damaged else ""),
          file=sys.stderr if damaged else sys.stdout)
    return 1 if damaged else 0


def cmd_index(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    read_manifest(out)  # not a dataset of this tool: one line, nothing written
    have = sorted(p.name for p in out.iterdir() if p.is_dir() and SPLIT.match(p.name))
    splits = have if args.split is None else [options.split(args.split)]
    if args.split is not None and args.split not in have:
        raise UserError(f"{out} has no split {args.split!r}; it has {', '.join(have) or 'none yet'}")
    for split in splits:
        for task in catalog.tasks():
            if (out / split / task).is_dir():
                listed = index.rebuild(out, split, task)
                if listed is not None:
                    print(f"{index.index_path(out, split, task)}: {listed} item(s)")
    return 0


def register(sub) -> None:
    s = sub.add_parser("verify", help="check every episode's files against its checksums; name the damaged ones")
    s.add_argument("out")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("index", help="rebuild OUT/<split>/<task>.jsonl from the complete items")
    s.add_argument("out")
    s.add_argument("--split", default=None, help="one split (default: every split in OUT)")
    s.set_defaults(func=cmd_index)
