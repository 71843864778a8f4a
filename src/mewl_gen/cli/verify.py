"""`mewl verify OUT` (every item against its record) and `mewl index OUT` (the split indexes rebuilt)."""
from __future__ import annotations

import sys

from mewl_gen.errors import UserError
from mewl_gen.store import door, index
from mewl_gen.store.files import writing
from mewl_gen.store.layout import SPLIT
from mewl_gen.store.manifest import read_manifest
from mewl_gen.store.reader import MISNAMED, item_folders, key_text, listed
from mewl_gen.store.status import dataset_status
from mewl_gen.store.verify import check
from mewl_gen.tasks import catalog

from . import options

DAMAGED, INCOMPLETE = 1, 3  # exit codes; 2 is a user error, as everywhere


def cmd_verify(args) -> int:
    out = options.output(args.out)
    read_manifest(out)  # not a dataset, or a damaged manifest: one line
    items, misnamed = listed(out)
    with writing(out):
        damaged = check(out, items) + [f"{key_text(*m)}: {MISNAMED}" for m in misnamed]
    for line in damaged:
        print(f"damaged: {line}")
    n = None if args.n is None else options.positive_int("--n", args.n)
    i, k = options.shard(args.shard)
    rows = dataset_status(out, n)
    noun = catalog.noun({r.task for r in rows} | {task for _, task, _ in items}) if rows or items else "item"
    # Completeness of the items asked for: 0..N-1 (the largest N requested), those of one shard with --shard.
    absent = [sum(1 for j in r.failed + r.missing + r.in_progress if j % k == i) for r in rows]
    planned = sum(len(range(i, r.n, k)) for r in rows)
    line = f"verify: {len(items) + len(misnamed)} {noun}(s) checked, {len(damaged)} damaged"
    if damaged:
        line += "; rerun the render command (or add --repair) to render them again"
    if sum(absent):
        line += (f"; {sum(absent)} of {planned} planned {noun}(s){' of shard ' + args.shard if k > 1 else ''}"
                 " not written yet, the dataset is incomplete (mewl status names them)")
    print(line, file=sys.stderr if damaged or sum(absent) else sys.stdout)
    # Damage outranks absence: a damaged item must be rendered again whatever else is missing.
    return DAMAGED if damaged else INCOMPLETE if sum(absent) else 0


def cmd_index(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    read_manifest(out)  # not a dataset of this tool: one line, nothing written
    have = sorted({split for split, _, _ in item_folders(out)} | {n for n, k in door.entries(out, out) if k == "folder" and SPLIT.fullmatch(n)})
    splits = have if args.split is None else [options.split(args.split)]
    if args.split is not None and args.split not in have:
        raise UserError(f"{out} has no split {args.split!r}; it has {', '.join(have) or 'none yet'}")
    for split in splits:
        for task in catalog.tasks():
            if door.kind_of(out, out / split / task) == "folder":
                listed = index.rebuild(out, split, task)
                if listed is not None:
                    print(f"{index.index_path(out, split, task)}: {listed} item(s)")
    return 0


def register(sub) -> None:
    s = sub.add_parser("verify", help="check every episode's files against its checksums; name the damaged ones; "
                       "exit 1 if any is damaged, 3 if planned episodes are not written yet")
    s.add_argument("out")
    s.add_argument("--n", default=None, help="complete means episodes 0..N-1 (default: the largest N requested per task)")
    s.add_argument("--shard", default=None, help="I/K: complete means the episodes i %% K == I of a shard's render")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("index", help="rebuild OUT/<split>/<task>.jsonl from the complete items")
    s.add_argument("out")
    s.add_argument("--split", default=None, help="one split (default: every split in OUT)")
    s.set_defaults(func=cmd_index)
