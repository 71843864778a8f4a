"""One item (a few-shot episode, a statement about an image, ...), start to finish:
claim it, sample it, render the scenes it names into the writer's staging
folder, write its release files and its record last, and publish it.

A scene that fails the renderer's visibility check sends the item back to
the sampler for a redraw from a derived seed (`first_retry=retry + 1`), a
bounded number of times; an item that still cannot be produced is recorded
as failed and the others go on. A storage fault (a full disk, a read-only
or failing one, OUT removed), wherever it strikes, the renderer's files
included, stops everything in one line: never retried, never recorded as a
renderer crash. A failure's record keeps each attempt's whole reason.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mewl_gen.errors import FULL, GONE, NoSpace, ScratchFault, UserError
from mewl_gen.render import RenderError, Worker
from mewl_gen.scenes.quality import with_quality
from mewl_gen.scenes.visibility import MIN_VISIBLE_PIXELS
from mewl_gen.store import bookkeeping, claims, damage, files, layout
from mewl_gen.store.files import dumps, writing
from mewl_gen.store.record import full_problem, write_record
from mewl_gen.store.writers import Writer
from mewl_gen.tasks.benchmark import ItemError
from mewl_gen.tasks import catalog
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.item import Item
from mewl_gen.tasks.validation import InvalidItem

from .planning import Settings

MAX_REDRAWS = 5  # visibility redraws per item
MAX_CRASHES = 2  # Blender crashes tolerated per item (each on a fresh Blender)


@dataclass(frozen=True)
class Outcome:
    task: str
    index: int
    ok: bool
    images: int  # images of the published item
    renders: int  # every render, redrawn panels included
    reasons: tuple[str, ...] = ()  # why panels were redrawn, or why the item failed
    by_other: bool = False  # another writer finished it first
    held_by: str | None = None  # a live writer holds it now (who, and until when): try again later


class Aborted(Exception):
    """The run is stopping; the item in hand is dropped."""


def at_quality(item: Item, quality: str) -> Item:
    """The item with every scene at the quality actually rendered."""
    return item.with_scenes({name: with_quality(scene, quality) for name, scene in item.scenes().items()})


def write_release_files(out: Path, folder: Path, item: Item) -> None:
    """The item's release files beside its images, then the record, last: through the staging folder's
    descriptor (the publish syncs them all)."""
    with files.folder(out, folder) as fd:
        for name, text in item.release_files().items():
            files.write_at(fd, folder / name, [text.encode()], sync=False)
        write_record(folder, fd)


def claimed(writer: Writer, s: Settings, task: str, index: int, produce: Callable[[Callable[[], Path]], Outcome],
            since: float | None = None) -> Outcome:
    """Run `produce` with the item claimed, unless a live writer holds it
    or it turns out complete; it is handed a maker of fresh staging folders
    for the item. A damaged folder is set aside first. `since`: the item
    waited for another writer from then; a failure that writer recorded
    meanwhile is taken as this run's."""
    layout.present(s.out)  # OUT removed or emptied under the run: stop, never fill it again
    done = claims.while_claimed(writer, s.split, task, index,
                                lambda staging: _in_hand(s, task, index, since, lambda: produce(staging)))
    return Outcome(task, index, False, 0, 0, held_by=done) if isinstance(done, str) else done


def _in_hand(s: Settings, task: str, index: int, since: float | None, produce: Callable[[], Outcome]) -> Outcome:
    """The claimed item produced, unless it turns out complete or failed by the writer it waited for."""
    folder = layout.item_dir(s.out, s.split, task, index)
    if (damage.is_damaged(s.out, s.split, task, index)
            and full_problem(folder, root=s.out, model=catalog.task(task).model) is None):
        damage.clear(s.out, s.split, task, index)  # restored by hand since verify
    if layout.is_complete(s.out, s.split, task, index) and not damage.is_damaged(s.out, s.split, task, index):
        return Outcome(task, index, True, 0, 0, by_other=True)
    failure = bookkeeping.failure_path(s.out, s.split, task, index)
    if since is not None and failure.is_file() and failure.stat().st_mtime >= since:
        reason = bookkeeping.failure_reason(s.out, s.split, task, index)
        return Outcome(task, index, False, 0, 0, (reason,), by_other=True)
    layout.set_aside(s.out, s.split, task, index)
    damage.clear(s.out, s.split, task, index)
    return produce()


def _render_into_place(worker: Worker, staging: Callable[[], Path], s: Settings, item: Item, stop: threading.Event,
                       on_image: Callable[[], None]) -> tuple[str | None, int]:
    """Render every scene, at the quality asked for, into a fresh staging folder and publish it.
    Returns (None, renders) when published, else (why a scene failed, renders)."""
    item = at_quality(item, s.quality)
    tmp = staging()
    published = False
    renders = 0
    try:
        truths = {}
        for name, scene in item.scenes().items():
            if stop.is_set():
                raise Aborted
            res, made = worker.render_to_scratch(scene, name, passes=s.passes)
            renders += 1
            if not res.ok:
                small = ", ".join(f"#{i} {res.visible_pixels[i]} px" for i in res.too_small)
                return f"retry {item.retry}: {name!r} shows objects under {MIN_VISIBLE_PIXELS} px ({small})", renders
            truths[name] = json.loads(_scratch_bytes(made.pop(f"{name}.json")))
            with files.folder(s.out, tmp) as fd:  # Blender wrote in its own scratch: copied in through ours
                for file_name, path in made.items():
                    files.write_at(fd, tmp / file_name, [_scratch_bytes(path)], sync=False)
            on_image()
        with files.folder(s.out, tmp) as fd:
            for name, truth in truths.items():  # the renderer knows no words: label each image with the item's
                labelled = item.label_image(name, truth)
                files.write_at(fd, tmp / f"{name}.json", [dumps(labelled).encode()], sync=False)
        write_release_files(s.out, tmp, item)
        layout.publish(tmp, s.out, s.split, item.task, item.index, durable=s.durable)
        published = True
        bookkeeping.clear_failure(s.out, s.split, item.task, item.index)
        return None, renders
    finally:
        if not published:
            files.remove_tree(s.out, tmp)


def _scratch_bytes(path: Path) -> bytes:
    """A file the renderer wrote in its worker's scratch folder; a fault there is the scratch's storage fault."""
    try:
        return path.read_bytes()
    except OSError as err:
        raise ScratchFault(err) from None


def scratch_fault(root: Path, err: OSError) -> UserError:
    """The one line a storage fault met in the renderer's scratch folder is: it names that folder's
    filesystem (`root`, the system's temporary folder: TMPDIR), not OUT's, for that is the one to see to."""
    where = f"the renderer's scratch folder: {err.filename}" if err.filename else "the renderer's scratch folder"
    if err.errno in FULL:
        return NoSpace(f"no space left on {root} ({where}); nothing half-written was published: free space there, "
                       "or set TMPDIR to a folder with room, and rerun the same command to resume")
    if err.errno in GONE:
        return UserError(f"{root}: {where} was removed while rendering; rerun the same command to resume")
    return UserError(f"cannot write to {root} ({where}): {err.strerror}; set TMPDIR to a writable folder and rerun")


def render_item(worker: Worker, writer: Writer, s: Settings, task: str, index: int, stop: threading.Event,
                   on_image: Callable[[], None] = lambda: None, since: float | None = None) -> Outcome:
    """Claim, sample, render and publish one item; a storage fault is one
    line (store.files.storage_fault: NoSpace on a full disk, Vanished...; scratch_fault for the renderer's)."""
    with writing(s.out):
        try:
            return claimed(writer, s, task, index,
                           lambda staging: _produce(worker, staging, s, task, index, stop, on_image), since)
        except ScratchFault as err:  # met in the renderer's scratch folder, never in OUT
            raise scratch_fault(worker.scratch_root, err.error) from None


def _produce(worker: Worker, staging: Callable[[], Path], s: Settings, task: str, index: int,
             stop: threading.Event, on_image: Callable[[], None]) -> Outcome:
    reasons: list[str] = []
    renders = crashes = redraws = 0

    def failed(why: str) -> Outcome:
        bookkeeping.record_failure(s.out, s.split, task, index, reasons + [why])
        return Outcome(task, index, False, 0, renders, tuple(reasons + [why]))

    try:
        item = sample_item(task, s.seed, s.split, index, scheme=s.scheme, config=s.config_of(task))
    except (ItemError, InvalidItem) as err:
        return failed(f"sampling: {err}")
    for _ in range(MAX_CRASHES + MAX_REDRAWS + 2):  # each pass is a crash, a redraw or the end
        try:
            why, n = _render_into_place(worker, staging, s, item, stop, on_image)
        except ScratchFault:
            if stop.is_set():  # a Blender stopped by Ctrl-C may leave what looks like one
                raise Aborted from None
            raise
        except RenderError as err:
            if stop.is_set() or stop.wait(1.0):  # a Blender killed by Ctrl-C dies before the parent sets `stop`
                raise Aborted from None
            crashes += 1
            reasons.append(f"renderer crashed: {err}")  # whole: the traceback and Blender's log
            if crashes > MAX_CRASHES:
                return failed(f"gave up after {MAX_CRASHES} renderer crashes (the last: {_last_words(str(err))})")
            continue  # the same item on a fresh Blender
        renders += n
        if why is None:
            return Outcome(task, index, True, len(item.scenes()), renders, tuple(reasons))
        reasons.append(why)
        if redraws == MAX_REDRAWS:
            return failed(f"gave up after {MAX_REDRAWS} redraws")
        redraws += 1
        try:
            item = sample_item(task, s.seed, s.split, index, first_retry=item.retry + 1, scheme=s.scheme,
                               config=s.config_of(task))
        except (ItemError, InvalidItem) as err:
            return failed(f"redraw: {err}")
    raise AssertionError("unreachable: the last crash or redraw allowed returns")


def _last_words(crash: str) -> str:
    """A crash's telling line: the exception a traceback ends with, before Blender's log."""
    lines = [line.strip() for line in crash.split("--- Blender log")[0].splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
