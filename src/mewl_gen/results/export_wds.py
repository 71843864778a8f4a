"""`mewl export OUT --to webdataset DIR`: tar shards the `webdataset` library reads unchanged.

One shard series per split and task, `DIR/<split>/<task>-NNNNNN.tar`, of at
most `--shard-size` items each, in index order. One sample per item, its key
`<split>/<task>/<index>` (results.export.safe_key); its members are the images
in panel order (`ctx0.png` ... `query.png`, or `image.png`), as the rendered
PNG bytes, each image's ground truth as its own JSON member (`ctx0.json` ...),
and `json`: the task's typed fields, the panels' names, scenes and
utterances and the item's own JSON files. A dataset rendered with passes
adds each image's passes as NumPy files that any NumPy reads exactly
(`ctx0.depth.npy`, `ctx0.normal.npy`, ...: results.export.pass_arrays). Every
member's time, owner and mode are fixed, so the same folder gives the same
shard bytes every time.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from mewl_gen.store.card import LICENSE_TEXT
from mewl_gen.store.files import make_folder, write_atomic
from mewl_gen.tasks import catalog

from .export import ITEM_COLUMNS, KEY_COLUMNS, Chosen, exported, in_order, meaning, progress

OWNER = "mewl"
MODE = 0o444
# The card's names of the `json` member's types, by Column's kinds (a class is its index).
TYPE_NAMES = {"string": "string", "int": "integer", "float": "number", "bool": "boolean", "strings": "list of strings",
              "class": "integer"}


def sample(stored, export, passes: tuple[str, ...] = ()) -> dict:
    e = exported(stored, export, passes)
    meta = {**e.fields, "panels": e.members, "scenes": e.scenes, "utterances": e.utterances,
            "files": {name: json.loads(text) for name, text in e.files.items()}}
    extra = {f"{m}.{kind}.npy": data for kind, files in e.passes.items() for m, data in zip(e.members, files)}
    truths = {f"{m}.json": truth.encode() for m, truth in zip(e.members, e.truths)}
    return {"__key__": e.fields["key"], **{f"{m}.png": png for m, png in zip(e.members, e.pngs)}, **truths, **extra,
            "json": json.dumps(meta, sort_keys=False).encode()}


def _sample(stored, passes: tuple[str, ...]) -> dict:
    """sample() in a worker process (export.in_order), which finds the item's export layout itself."""
    return sample(stored, catalog.task(stored.task).export, passes)


def card(chosen: Chosen, source_card: str) -> str:
    """README.md of the shards: how to load them, what a sample holds, the licence, then OUT's own card."""
    task = next(iter(chosen.items))
    split = next(iter(chosen.items[task]))
    members = ["| `<panel>.png` | each image, the rendered PNG bytes unchanged (`ctx0` ... `query`, or `image`) |",
               "| `<panel>.json` | each image's ground truth |",
               *(f"| `<panel>.{p}.npy` | each image's {p} pass, a NumPy file read exactly |" for p in chosen.passes),
               "| `json` | the item's fields, below |"]
    return "\n".join([
        "# WebDataset shards", "",
        "One shard series per split and task, `<split>/<task>-NNNNNN.tar`, one sample per item keyed "
        "`<split>/<task>/<index>`, as `mewl eval` takes it.", "",
        "```python", "import json", "import pathlib", "import webdataset", "",
        f'urls = sorted(str(p) for p in pathlib.Path("DIR/{split}").glob("{task}-*.tar"))',
        "for sample in webdataset.WebDataset(urls, shardshuffle=False, empty_check=False):",
        '    meta = json.loads(sample["json"])',
        '    images = [sample[f"{panel}.png"] for panel in meta["panels"]]  # PNG bytes, in panel order',
        '    truths = [json.loads(sample[f"{panel}.json"]) for panel in meta["panels"]]', "```", "",
        "## Features", "", "| member | what |", "|---|---|", *members, "", *json_lines(chosen),
        "## Licence", "", LICENSE_TEXT, "",
        "What follows is the card of the rendered dataset these shards were exported from (with each "
        "benchmark's citation).", "", source_card])


def json_lines(chosen: Chosen) -> list[str]:
    """The card's table of the `json` member: the item's id, each task's typed fields, then the panels' lists
    and the item's files."""
    rows = [f"| `{name}` | {TYPE_NAMES[ITEM_COLUMNS[name][0]]} | {ITEM_COLUMNS[name][1]} |" for name in KEY_COLUMNS]
    for task in chosen.items:
        export = catalog.task(task).export
        rows += [f"| `{name}` ({task}) | {TYPE_NAMES[column.kind]} | {meaning(name, column, export)} |"
                 for name, column in export.columns.items()]
    rows += [f"| `{name}` | {TYPE_NAMES[ITEM_COLUMNS[name][0]]} | {ITEM_COLUMNS[name][1]} |"
             for name in ("panels", "scenes", "utterances")]
    rows.append("| `files` | object | the item's own JSON files, `{name: the file's JSON}` |")
    return ["The `json` member holds:", "", "| field | type | what |", "|---|---|---|", *rows, ""]


def write(chosen: Chosen, staging: Path, shard_size: int, source_card: str = "") -> None:
    import webdataset

    total = sum(len(items) for splits in chosen.items.values() for items in splits.values())
    with progress(total, "export webdataset") as bar:
        for task, splits in chosen.items.items():
            for split, items in splits.items():
                make_folder(staging, staging / split)
                pattern = str(staging / split / f"{task}-%06d.tar")
                with webdataset.ShardWriter(pattern, maxcount=shard_size, verbose=0, encoder=False,
                                            mtime=0, user=OWNER, group=OWNER, mode=MODE) as sink:
                    for made in in_order(items, partial(_sample, passes=chosen.passes)):
                        sink.write(made)
                        bar.update(1)
    write_atomic(staging, staging / "README.md", card(chosen, source_card), sync=False)
