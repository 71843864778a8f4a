"""`mewl export OUT --to hf|webdataset DIR`: a rendered dataset in the field's loaders' formats.

Export reads through the store's reader: only complete items whose every file
(images included) matches its record of checksums. A damaged item is named
in one line and left out, or refused with `--strict`; a dataset still
rendering is exported as far as it is complete, and a line counts what is
missing. Each item becomes one row (one sample): its images in panel order,
as the rendered PNG bytes, each under a member name that bears no answer
(`ctx0` ... `query`, or `image`), the typed fields its task declares
(tasks.benchmark.Export), and every file of the item kept as JSON text. A
dataset rendered with passes (render.passes) carries each image's pass files
too, in the same panel order, as .npy files that NumPy reads exactly (pass_npy).

DIR is written in a staging folder beside it and renamed into place at the
end: an export killed half-way leaves no DIR, and an existing DIR is never
overwritten.
"""
from __future__ import annotations

import gc
import io
import multiprocessing
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from mewl_gen.errors import UserError, shown
from mewl_gen.render.passes import read_png16
from mewl_gen.store import bookkeeping, reader
from mewl_gen.store.manifest import outside_datasets, passes_of
from mewl_gen.store.new_folder import check_new
from mewl_gen.store.reader import pass_files
from mewl_gen.tasks import catalog
from mewl_gen.tasks.benchmark import Column, Export
from mewl_gen.tasks.stored import JSON_LIMIT, DamagedItem, StoredItem

from .predictions import item_key

# What every exported item holds besides its task's own fields, as its kind (Column's, or "images") and
# what it is, for the cards and croissant.json: the item's id, then the lists in panel order and its files.
ITEM_COLUMNS = {
    "key": ("string", "`<split>/<task>/<index>`: the item's id, as `mewl eval` takes it"),
    "split": ("string", "the item's split"),
    "task": ("string", "the item's task"),
    "index": ("int", "the item's index in its split and task"),
    "images": ("images", "the rendered PNGs, bytes unchanged, in panel order"),
    "panels": ("strings", "each image's member name: `ctx0` ... `query`, or `image`"),
    "scenes": ("strings", "each image's scene name in the item's folder"),
    "utterances": ("strings", "what is said of each image (empty where nothing is)"),
    "truths": ("strings", "each image's ground truth, JSON text"),
    "files": ("string", "the item's own JSON files, `{name: text}` as JSON text"),
}
KEY_COLUMNS = ("key", "split", "task", "index")  # the item's id, the first columns of every export


def meaning(name: str, column: Column, export: Export) -> str:
    """What a task's column holds, for a reader with nothing but the export: a class's every value
    named (`0 = false` ...) where the names are not the numbers themselves, and the answer said."""
    what, classes = column.what, column.classes
    if column.kind == "class":
        numbered = classes == tuple(str(i) for i in range(len(classes)))
        named = ", ".join(f"{i} = {c}" for i, c in enumerate(classes))
        what += f" (0 to {len(classes) - 1})" if numbered else f" ({named})"
    return f"the answer: {what}" if name == export.answer else what


@dataclass(frozen=True)
class Chosen:
    """What an export writes: the sound items of each task, by split, and the lines to say first."""

    items: dict[str, dict[str, Sequence[StoredItem]]]  # task -> split -> its items, by index
    lines: list[str]
    passes: tuple[str, ...] = ()  # the passes beside every image (OUT's manifest)


def safe_key(stored: StoredItem) -> str:
    """`<split>/<task>/<index>` as WebDataset splits a member name (a key ends at the first dot of its
    base name): no dots, the index zero-padded so that names sort as indexes do."""
    return item_key(stored.split, stored.task, stored.index).replace(".", "_")


def choose(out: Path, strict: bool) -> Chosen:
    """The sound, rendered, exportable items of OUT; a UserError (one line) when there is nothing to export,
    a task cannot be exported, or (`strict`) an item is damaged."""
    found = reader.read(out, images=True)
    lines = []
    if found.damaged:
        if strict:
            raise UserError(f"{out} holds {reader.damaged_line(found.damaged)}; --strict exports nothing then")
        lines.append(f"left out {reader.damaged_line(found.damaged)}")
    if not found.items:
        raise UserError(f"{out} holds no complete items to export")
    known = catalog.tasks()
    unexported = sorted({task for _, task in found.items if known[task].export is None})
    if unexported:
        raise UserError(f"{', '.join(unexported)} cannot be exported yet; export the other tasks' folders alone")
    chosen: dict[str, dict[str, Sequence[StoredItem]]] = {}
    order = list(known)
    for (split, task), items in sorted(found.items.items(), key=lambda kv: (order.index(kv[0][1]), kv[0][0])):
        if items[0].image(next(iter(items[0].item().scenes()))) is None:
            raise UserError(f"{out}/{split}/{task} holds sampled items without images; export a rendered dataset "
                            "(mewl render)")
        chosen.setdefault(task, {})[split] = items
    # Each planned item is counted once: sound (exported), damaged (named above) or not complete yet.
    damaged = {line.partition(": ")[0] for line in found.damaged}
    missing = 0
    for split, task in bookkeeping.plans(out):
        sound = {s.index for s in found.items.get((split, task), [])}
        missing += sum(1 for i in range(bookkeeping.planned(out, split, task))
                       if i not in sound and f"{split}/{task}/{i}" not in damaged)
    if missing > 0:
        lines.append(f"{missing} planned item(s) are not complete yet and are not exported; "
                     "`mewl status OUT` names them")
    return Chosen(chosen, lines, passes_of(out))


@dataclass(frozen=True)
class Exported:
    """One item as an export writes it, its record read once."""

    fields: dict  # the key columns, then the task's typed fields
    members: list[str]  # each image's member name, in panel order
    scenes: list[str]  # the scene each member shows
    utterances: list[str]
    pngs: list[bytes]  # the rendered PNGs, unchanged
    truths: list[str]  # each image's ground truth as compact JSON text (compact_json)
    files: dict[str, str]  # the item's own JSON files: name -> text, as written
    passes: dict[str, list[bytes]]  # pass -> each image's pass as a .npy file (pass_arrays), in panel order


def exported(stored: StoredItem, export: Export, passes: tuple[str, ...] = ()) -> Exported:
    item = stored.item()
    shown = export.panels(item)
    scenes = [scene for _, scene, _ in shown]
    found = [pass_files(stored, scene, passes) for scene in scenes]
    return Exported({"key": safe_key(stored), "split": stored.split, "task": stored.task, "index": stored.index,
                     **export.fields(item)},
                    [m for m, _, _ in shown], scenes, [said for _, _, said in shown],
                    [stored.read_file(f"{scene}.png") for scene in scenes],
                    [compact_json(_text(stored, f"{scene}.json")) for scene in scenes], files(stored),
                    {kind: [pass_npy(paths[kind].name, stored.read_file(paths[kind].name)) for paths in found]
                     for kind in passes})


# JSON's whitespace that json.dumps(..., indent=N) writes: a line break and the next line's indent, after an item's
# comma, after an opening bracket or before a closing one. A string holds no raw line break (JSON escapes it).
_ITEM_BREAK = re.compile(r",\n *")
_BREAK = re.compile(r"\n *")


def compact_json(text: str) -> str:
    """JSON text as json.dumps writes its value without an indent: for a file json.dumps wrote with one (an image's
    ground truth, render.blender_scene), the very text json.dumps(json.loads(text)) gives, at a third of its cost
    (parsing and writing the truths again was the largest part of making an item's row or sample;
    tests/results/test_export.py holds the two texts equal). Other JSON keeps its own spacing but for line
    breaks: the same value."""
    return _BREAK.sub("", _ITEM_BREAK.sub(", ", text))


def pass_npy(name: str, data: bytes) -> bytes:
    """A pass file as a .npy file that NumPy reads exactly: depth as rendered (float32), the 16-bit PNG passes
    (normal, albedo: RGB; instance: grey) as their stored uint16 values, which Pillow would read at 8 bits.
    What the values mean is docs/passes.md's (render.passes)."""
    if name.endswith(".npy"):
        return data
    buffer = io.BytesIO()
    np.save(buffer, read_png16(data), allow_pickle=False)
    return buffer.getvalue()


def files(stored: StoredItem) -> dict[str, str]:
    """Every JSON file of the item but its images' truths (kept per panel) and the record of checksums:
    file name -> its text, as written."""
    names = [stored.model.RECORD_FILE, *stored.model.OTHER_FILES]
    return {name: _text(stored, name) for name in names if stored.has(name)}


def _text(stored: StoredItem, name: str) -> str:
    try:
        return stored.read_file(name, JSON_LIMIT).decode()
    except UnicodeDecodeError:
        raise DamagedItem(f"{shown(str(stored.folder / name))}: not UTF-8 text") from None


def in_order(items: list, produce: Callable, workers: int | None = None) -> Iterator:
    """produce(item) of each item, in the items' order, made by a worker process per core while the
    caller writes: an export's reading, parsing and encoding use every core, and at most reader.AHEAD items
    per worker wait in memory. `produce` is a module's function (or a partial of one)."""
    workers = workers or len(os.sched_getaffinity(0))
    if workers < 2 or len(items) < 2:
        yield from map(produce, items)
        return
    # The workers are forked: the objects this process holds (the webdataset library imports torch) stay
    # shared with them only while nothing writes to their pages, and the collector of a worker that walks
    # them writes to every one. Frozen, they are never walked; a worker's own objects still are.
    gc.freeze()
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            yield from reader.ahead(pool, produce, items, reader.AHEAD * workers)
    finally:
        gc.unfreeze()


def progress(total: int, what: str):
    """A progress bar on stderr where a person watches (a terminal), silent in logs."""
    from tqdm import tqdm

    return tqdm(total=total, desc=what, unit="item", file=sys.stderr, disable=not sys.stderr.isatty())


def check_dest(out: Path, dest: Path, what: str = "export", flag: str = "DIR") -> None:
    """DEST must lie outside the dataset OUT and every other (outside_datasets), be new (an empty folder is
    taken as new) and have a folder to be made in: else one line, which a command says before it reads any
    item. `what` the command does, for its message ("export" into a new folder); `flag` how DEST was named.
    DEST is then written as a store.new_folder.NewFolder, which checks again."""
    outside_datasets(dest, flag, out)
    check_new(dest, what)
