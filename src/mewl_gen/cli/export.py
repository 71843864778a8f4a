"""`mewl export OUT --to hf|webdataset DIR`: a rendered dataset as a Hugging Face dataset or WebDataset
shards (results/export.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from mewl_gen.errors import UserError, shown
from mewl_gen.results import export, export_hf, export_wds
from mewl_gen.store import door
from mewl_gen.store.card import CARD
from mewl_gen.store.new_folder import NewFolder

FORMATS = ("hf", "webdataset")


def cmd_export(args) -> int:
    out, dest = Path(args.out), Path(args.dir)
    if args.shard_size < 1:
        raise UserError(f"--shard-size {args.shard_size}: expected a positive number of items per shard")
    export.check_dest(out, dest)  # before reading every item
    chosen = export.choose(out, args.strict)
    for line in chosen.lines:
        print(f"mewl export: {line}", file=sys.stderr)
    with NewFolder(dest) as staging:
        source = card_text(out)
        if args.to == "hf":
            export_hf.write(chosen, staging, source)
        else:
            export_wds.write(chosen, staging, args.shard_size, source)
    n = sum(len(items) for splits in chosen.items.values() for items in splits.values())
    print(f"exported {n} items of {len(chosen.items)} task(s) to {dest} ({args.to})")
    return 0


def card_text(out: Path) -> str:
    """OUT's dataset card, as the door reads it: a regular file inside OUT, of a card's size (a link to
    anything is one line, never the content of a file elsewhere)."""
    if door.kind_of(out, out / CARD) is None:
        return ""
    try:
        return door.read_bytes(out, out / CARD, "card").decode()
    except UnicodeDecodeError:
        raise UserError(f"{shown(str(out / CARD))} is not UTF-8 text; is it damaged?") from None
    except OSError as err:
        raise UserError(f"{shown(str(out / CARD))} is unreadable ({err.strerror})") from None


def register(sub) -> None:
    s = sub.add_parser("export", help="a rendered dataset as a Hugging Face dataset or WebDataset shards")
    s.add_argument("out", help="the dataset folder (made by mewl render)")
    s.add_argument("--to", required=True, choices=FORMATS, help="hf: Parquet + save_to_disk with a dataset card; "
                   "webdataset: tar shards")
    s.add_argument("dir", metavar="DIR", help="a new folder to write")
    s.add_argument("--shard-size", type=int, default=1000, help="webdataset: items per tar shard (default 1000)")
    s.add_argument("--strict", action="store_true", help="refuse a dataset holding a damaged item instead of leaving "
                   "it out")
    s.set_defaults(func=cmd_export)
