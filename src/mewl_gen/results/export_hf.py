"""`mewl export OUT --to hf DIR`: a Hugging Face dataset, one configuration per task, with OUT's splits.

Written with the `datasets` library, twice, a task at a time through an Arrow cache that is removed
before the next task is written (so the export needs its own size on disk and one task's more): Parquet shards under
`data/<task>/<split>-NNNNN-of-NNNNN.parquet`, named by the YAML of the card
`README.md` (so `datasets.load_dataset(DIR, "<task>")` works offline and DIR
can be pushed to a hub as it is), and `save_to_disk` folders under
`disk/<task>/` (`datasets.load_from_disk`). Images are `datasets.Image`
features holding the rendered PNG bytes unchanged, in panel order; the
answer is typed (a `ClassLabel` where it is a class); every other file of the
item is kept as JSON text (`files`, `truths`). A dataset rendered with passes
has a column per pass (`depth`, `normal`, ...): each image's pass as the
bytes of a `.npy` file that NumPy reads exactly, in panel order.
"""
from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.store.card import DATA_LICENSE_ID, LICENSE_TEXT
from mewl_gen.store.files import make_folder, write_atomic
from mewl_gen.tasks import catalog
from mewl_gen.tasks.benchmark import Column, Export
from mewl_gen.tasks.stored import StoredItem

from . import croissant, mapped
from .export import ITEM_COLUMNS, KEY_COLUMNS, Chosen, exported, meaning, progress

NAME = "mewl-gen-export"  # the dataset's name in croissant.json
PARQUET_SHARD_BYTES = 500 * 2**20  # the hub's own default shard size for Parquet
# Rows save_to_disk holds in memory at once (the Parquet writer holds a row group, about 100 MB, itself): the
# library's default of 1,000 is about 0.75 GB of default-quality MEWL episodes, held several times over as it
# converts them. Its Arrow files keep record batches of 100 image rows either way.
ROWS_AT_ONCE = 100


def _feature(column: Column):
    import datasets

    if column.kind == "class":
        return datasets.ClassLabel(names=list(column.classes))
    if column.kind == "strings":
        return datasets.List(datasets.Value("string"))
    return datasets.Value({"string": "string", "int": "int64", "float": "float64", "bool": "bool"}[column.kind])


def features(export: Export, passes: tuple[str, ...] = ()):
    import datasets

    key = {"key": datasets.Value("string"), "split": datasets.Value("string"), "task": datasets.Value("string"),
           "index": datasets.Value("int64")}
    assert tuple(key) == KEY_COLUMNS
    return datasets.Features({
        **key,
        "images": datasets.List(datasets.Image()),
        **{kind: datasets.List(datasets.Value("binary")) for kind in passes},  # each image's pass file, as written
        "panels": datasets.List(datasets.Value("string")),  # the member names: ctx0 ... query, or image
        "scenes": datasets.List(datasets.Value("string")),  # each image's scene name in the item's folder
        "utterances": datasets.List(datasets.Value("string")),
        **{name: _feature(column) for name, column in export.columns.items()},
        "truths": datasets.List(datasets.Value("string")),  # each image's ground truth JSON
        "files": datasets.Value("string"),  # the item's own JSON files: {name: text}, as JSON
    })


def row(stored: StoredItem, export: Export, passes: tuple[str, ...] = ()) -> dict:
    e = exported(stored, export, passes)
    return {**e.fields, "images": [{"bytes": png, "path": None} for png in e.pngs], **e.passes, "panels": e.members,
            "scenes": e.scenes, "utterances": e.utterances, "truths": e.truths,
            "files": json.dumps(e.files)}


def _rows(items: Sequence[StoredItem], passes: tuple[str, ...], bar):
    """A split's rows, made in this process as the writer takes them. Worker processes (export.in_order, as
    webdataset makes its samples) cost more than they give here: at 16,000 episodes on 2 cores, 15 % more CPU
    time and no less wall time, the Arrow writer being the slower end. (They never ran before issue 41 found
    it: `datasets` calls a generator once per element of a list argument, so each call made one row.)"""
    for stored in items:
        yield row(stored, catalog.task(stored.task).export, passes)
        bar.update(1)


# The card's names of the features' types (features() makes them).
TYPE_NAMES = {"string": "string", "int": "int64", "float": "float64", "bool": "bool", "strings": "list of string",
              "images": "list of Image"}


def feature_lines(chosen: Chosen) -> list[str]:
    """The card's table of features: the columns every configuration has, then each task's own."""
    rows = [f"| {name} | {TYPE_NAMES[kind]} | {what} |" for name, (kind, what) in ITEM_COLUMNS.items()]
    rows += [f"| {p} | list of binary | each image's {p} pass, a `.npy` file's bytes, in panel order |" for p in chosen.passes]
    for task in chosen.items:
        export = catalog.task(task).export
        for name, column in export.columns.items():
            kind = f"ClassLabel ({', '.join(column.classes)})" if column.kind == "class" else TYPE_NAMES[column.kind]
            rows.append(f"| {name} ({task}) | {kind} | {meaning(name, column, export)} |")
    return ["## Features", "", "| column | type | what |", "|---|---|---|", *rows, ""]


def card(chosen: Chosen, source_card: str) -> str:
    """README.md: the YAML that names each configuration's data files, how to load them, then OUT's own card."""
    yaml = ["---", f"license: {DATA_LICENSE_ID}", "configs:"]
    for task, splits in chosen.items.items():
        yaml += [f"- config_name: {task}", "  data_files:"]
        for split in splits:
            yaml += [f"  - split: {split}", f"    path: data/{task}/{split}-*.parquet"]
    first = next(iter(chosen.items))
    load = ["## Loading this export", "",
            "One configuration per task, with the dataset's splits; `images` are the rendered PNGs in panel order "
            "(`panels` names them: `ctx0` ... `query`, or `image`), the task's answer is typed, and `truths` and "
            "`files` keep every ground-truth file as JSON text."
            + (f" Each image's passes are the columns {', '.join(f'`{p}`' for p in chosen.passes)}: in panel order, "
               "each a `.npy` file's bytes that `numpy.load(io.BytesIO(b))` reads exactly (depth float32; normal, "
               "albedo and instance their stored uint16 values; what they mean: the card below)."
               if chosen.passes else ""), "",
            "```python", "import datasets", "",
            f'ds = datasets.load_dataset("DIR", "{first}")  # from the Parquet shards under data/',
            f'ds = datasets.load_from_disk("DIR/disk/{first}")  # or the save_to_disk copy',
            'row = ds["train"][0] if "train" in ds else next(iter(ds.values()))[0]',
            'print(row["key"], len(row["images"]), row["panels"])', "```", "",
            "`croissant.json` describes the same records in Croissant metadata (`mlcroissant` reads it).", "",
            *feature_lines(chosen),
            "## Licence", "", LICENSE_TEXT, "",
            "What follows is the card of the rendered dataset this was exported from (with each benchmark's "
            "citation).", ""]
    return "\n".join([*yaml, "---", "", *load, source_card])


def write(chosen: Chosen, staging: Path, source_card: str) -> None:
    import datasets

    datasets.disable_progress_bars()
    total = sum(len(items) for splits in chosen.items.values() for items in splits.values())
    default_batch = datasets.config.DEFAULT_MAX_BATCH_SIZE  # save_to_disk's rows at once: no argument sets it
    datasets.config.DEFAULT_MAX_BATCH_SIZE = ROWS_AT_ONCE
    try:
        with progress(total, "export hf") as bar:
            for task, splits in chosen.items.items():
                with tempfile.TemporaryDirectory(dir=staging) as cache:  # one task's: gone before the next is written
                    _write_task(task, splits, chosen.passes, staging, cache, bar)
    finally:
        datasets.config.DEFAULT_MAX_BATCH_SIZE = default_batch
    write_atomic(staging, staging / "README.md", card(chosen, source_card), sync=False)
    write_atomic(staging, staging / "croissant.json", croissant.text(chosen, NAME), sync=False)


def _write_task(task: str, splits: dict[str, Sequence[StoredItem]], passes: tuple[str, ...], staging: Path, cache: str,
                bar) -> None:
    """A task's Parquet shards and its save_to_disk folder, built through the Arrow cache `cache`."""
    import datasets

    layout = catalog.task(task).export
    try:
        parts = {
            split: datasets.Dataset.from_generator(
                _rows, features=features(layout, passes), cache_dir=cache, keep_in_memory=False,
                gen_kwargs={"items": items, "passes": passes, "bar": bar},
                fingerprint=f"mewl-export-{split}-{task}")  # the cache is this export's own: no hashing
            for split, items in splits.items()
        }
    except datasets.exceptions.DatasetGenerationError as err:
        # The library wraps what our rows raised: a file the door refused since the item was checked (a
        # folder swapped for a link meanwhile) is still its one line.
        if isinstance(err.__cause__, UserError):
            raise err.__cause__ from None
        raise
    # Each part maps its Arrow file, and writing it out twice reads it whole: its pages are let go of as
    # they are read, not kept resident until the task is done.
    # The parts (and so the mappings) live until the block is done (results.mapped says why they must).
    with mapped.letting_go(Path(cache)):
        folder = staging / "data" / task
        make_folder(staging, folder)
        for split, part in parts.items():
            shards = max(1, math.ceil(part.data.nbytes / PARQUET_SHARD_BYTES))
            for k in range(shards):
                shard = part.shard(shards, k, contiguous=True)
                shard.to_parquet(folder / f"{split}-{k:05d}-of-{shards:05d}.parquet", batch_size=parquet_rows(shard))
        datasets.DatasetDict(parts).save_to_disk(staging / "disk" / task,
                                                 num_shards={split: disk_shards(part) for split, part in parts.items()})


def estimated_bytes(part) -> int | None:
    """A split's bytes as `datasets` estimates them where it sizes what it writes (Dataset._estimate_nbytes: the
    table's bytes, less the image paths' bytes of its first 1,000 rows scaled to all its rows), without the
    copy it makes of those rows' images into Python objects: a task's first 1,000 episodes' images at once,
    about 300 MB at draft quality, twice for each task of an export (to Parquet, and save_to_disk; issue 41).
    None where an image is a file's path, which an export never writes (`datasets` then estimates)."""
    import pyarrow.compute as pc
    from datasets.features import Audio, Image, Video
    from datasets.table import table_visitor

    table = part.with_format("arrow")[:1000]
    extra, by_path = 0, False

    def visit(array, feature):
        nonlocal extra, by_path
        if isinstance(feature, (Audio, Image, Video)):
            by_path = by_path or pc.any(pc.and_(pc.and_(pc.is_valid(array), pc.is_null(array.field("bytes"))),
                                                pc.is_valid(array.field("path")))).as_py() is True
            extra -= array.field("path").nbytes

    table_visitor(table, visit)
    if by_path or len(table) == 0:
        return None
    return part.data.nbytes + extra * len(part.data) // len(table)


def disk_shards(part) -> int | None:
    """The Arrow files save_to_disk writes a split into, counted as it counts them (its estimate of the bytes
    over config.MAX_SHARD_SIZE, plus one), from estimated_bytes."""
    from datasets import config
    from datasets.utils.py_utils import convert_file_size_to_int

    nbytes = estimated_bytes(part)
    if nbytes is None:
        return None
    return min(len(part.data), int(nbytes / convert_file_size_to_int(config.MAX_SHARD_SIZE)) + 1)


def parquet_rows(shard) -> int | None:
    """The rows of a Parquet row group that to_parquet writes a shard in, found as it finds them (about
    config.MAX_ROW_GROUP_SIZE of its estimated bytes), from estimated_bytes."""
    from datasets.arrow_writer import get_writer_batch_size_from_data_size, get_writer_batch_size_from_features

    rows = get_writer_batch_size_from_features(shard.features)
    if rows is not None:
        return rows
    nbytes = estimated_bytes(shard)
    return None if nbytes is None else get_writer_batch_size_from_data_size(len(shard), nbytes)
