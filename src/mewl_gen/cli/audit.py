"""`mewl audit [KIND] OUT`: does a dataset test what it claims to?

KIND is a benchmark's name (its audit: tasks.benchmark.Audit, one row per
split and task, measured from the files) or `legibility` (can a classifier
tell the rendered colours and materials apart, tasks/audit/legibility.py).
Without KIND, every benchmark OUT holds items of is audited. Items are read
through the store's reader: a damaged or incomplete item is refused in one
line, never audited nor left out. Exit 1 when a row's verdict is not ok.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from mewl_gen.errors import UserError, shown
from mewl_gen.render.passes import is_pass_file
from mewl_gen.store import card, door, reader
from mewl_gen.store.manifest import read_manifest
from mewl_gen.store.record import MAX_PIXELS
from mewl_gen.store.status import incomplete_line, shortfalls
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import AuditRun, legibility
from mewl_gen.tasks.benchmark import Benchmark
from mewl_gen.tasks.stored import StoredItem

from . import options

LEGIBILITY = "legibility"
POOL_ITEMS = 200  # items per audit worker, at least (audit_benchmark)


def table(columns: tuple[str, ...], rows: list[dict], markdown: bool) -> str:
    """Rows as one table: Markdown, or columns aligned for a terminal. Floats show three decimals."""
    def cell(value) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    cells = [[cell(r[c]) for c in columns] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])
    widths = [max(len(x) for x in col) for col in zip(columns, *cells)]
    fmt = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()
    return "\n".join([fmt(list(columns)), fmt(["-" * w for w in widths]), *map(fmt, cells)])


def audit_benchmark(bench: Benchmark, out: Path, train_dir: Path | None, markdown: bool, workers: int,
                    read: dict[tuple[str, str], int]) -> tuple[bool, str]:
    """Print the benchmark's table; whether every verdict is ok, and the table in Markdown for the card.
    `read` gains how many items of each split and task were audited."""
    names = [t.name for t in bench.tasks]
    found = reader.sound_items(out, names, what=f"{bench.name} items")
    for items in found.values():
        for stored in items:
            _sane_images(out, stored)  # a solver that reads pixels never decodes a bomb
    train: dict[str, list] = {}
    if train_dir is not None:
        for (_, task), items in sorted(reader.sound_items(train_dir, names, what=f"{bench.name} items").items()):
            train.setdefault(task, []).extend(items)
    def others(split: str, task: str) -> list:  # the same task's items of OUT's other splits
        return [s for (sp, t), items in sorted(found.items()) if t == task and sp != split for s in items]

    runs = [(split, task, items, AuditRun(1, train.get(task) if train_dir else None, others(split, task)))
            for (split, task), items in sorted(found.items(), key=lambda kv: (kv[0][0], names.index(kv[0][1])))]
    # A pool of fresh interpreters costs seconds to start, about what auditing a couple of hundred items
    # does: a small dataset is audited in this process, a larger one on one worker per POOL_ITEMS items.
    pool = min(workers, len(runs), sum(len(items) for _, _, items, _ in runs) // POOL_ITEMS) or 1
    from joblib import Parallel, delayed  # loads only for an audit, not at every command's start

    try:
        rows = Parallel(n_jobs=pool)(delayed(bench.audit.row)(*run) for run in runs)
    except (ValueError, KeyError, TypeError, IndexError) as err:  # files that agree with their record, yet are no item's
        raise UserError(f"{out}: the {bench.name} items' files do not read as that benchmark's "
                        f"({type(err).__name__}: {shown(err, 160)}); were they written by this tool?") from None
    read |= {(split, task): len(items) for split, task, items, _ in runs}
    print(table(bench.audit.columns, rows, markdown))
    notes = f"\n\n{bench.audit.notes}" if bench.audit.notes else ""
    if notes:
        print(notes[1:])
    trained = f" The learned baselines were fitted on `{train_dir}`." if train_dir is not None else ""
    card = f"### {bench.summary}\n\n{table(bench.audit.columns, rows, True)}{notes}{trained}"
    return all(r["verdict"] == "ok" for r in rows), card


def cmd_audit(args) -> int:
    kind, out = (args.first, Path(args.out)) if args.out else (None, Path(args.first))
    known = {b.name: b for b in catalog.BENCHMARKS if b.audit is not None}
    if kind is not None and kind != LEGIBILITY and kind not in known:
        raise UserError(f"unknown audit {kind!r}; expected one of {', '.join([*known, LEGIBILITY])}")
    if kind == LEGIBILITY:
        try:
            return legibility.main(images(out))
        except legibility.NoObjects as err:
            raise UserError(f"{out}: {err}") from None
    workers = options.workers(args.workers)
    train_dir = Path(args.train) if args.train else None
    if kind is None:  # the benchmarks OUT has item folders of (each is read, and checked, by its own audit)
        if not out.is_dir():
            raise UserError(f"{out} is not a folder; expected a dataset made by mewl sample or mewl render")
        read_manifest(out)  # not a dataset of this tool: one line
        known_tasks = catalog.tasks()
        held = {known_tasks[t].benchmark for _, t, _ in reader.item_folders(out) if t in known_tasks}
        chosen = [b for name, b in known.items() if name in held]
        if not chosen:
            raise UserError(f"{out} holds no items of a benchmark with an audit ({', '.join(known)})")
    else:
        chosen = [known[kind]]
    for bench in chosen:
        if train_dir is not None and not bench.audit.learns:
            raise UserError(f"--train: the {bench.name} audit learns nothing; drop --train")
    verdicts, tables, read = [], [], {}
    for bench in chosen:
        if len(chosen) > 1:
            print(f"\n{bench.name}: {bench.summary}")
        ok, text = audit_benchmark(bench, out, train_dir, args.markdown, workers, read)
        verdicts.append(ok)
        tables.append(text)
    audited = {t.name for bench in chosen for t in bench.tasks}
    short = [s for s in shortfalls(out, read) if s.task in audited]  # a part-made dataset is said to be one
    if short:
        print(f"mewl audit: {incomplete_line(short)}", file=sys.stderr)
    if not args.no_card:
        try:
            card.record_audit(out, "\n\n".join(tables), read)
        except (UserError, OSError) as err:  # a read-only or full OUT: the audit stands, the card keeps its text
            print(f"mewl audit: the card was not updated: {err}", file=sys.stderr)
    return 0 if all(verdicts) else 1


def images(out: Path) -> list[tuple[tuple[str, str, int], StoredItem, str]]:
    """((split, task, index), its item, the scene) of every rendered image of OUT's sound items: the audit
    reads each through the item's door, never by a path looked at before."""
    found = []
    for items in reader.sound_items(out, what="rendered items").values():
        for stored in items:
            found += [((stored.split, stored.task, stored.index), stored, png.name[: -len(".png")])
                      for png in _sane_images(out, stored)]
    if not found:
        raise UserError(f"no rendered objects found under {out} (expected OUT/<split>/<task>/<i>/*.json with PNGs)")
    return found


def _sane_images(out: Path, stored) -> list[Path]:
    """An item's rendered images (no pass files), each header checked before any reader decodes it."""
    pngs = [stored.folder / name for name, kind in door.entries(out, stored.folder)
            if kind == "file" and name.endswith(".png") and not is_pass_file(name)]
    for png in pngs:
        _sane_image(stored, png.name)
    return pngs


def _sane_image(stored, name: str) -> None:
    """An image's header, before a reader decodes it: no more pixels than an image of this tool has."""
    from PIL import Image

    with os.fdopen(stored.open_file(name), "rb") as f:
        try:
            with Image.open(f) as im:
                width, height = im.size
        except (OSError, ValueError, Image.DecompressionBombError) as err:
            raise UserError(f"{stored.key}/{shown(name, 80)}: not a readable image ({shown(err, 120)})") from None
    if width * height > MAX_PIXELS:
        raise UserError(f"{stored.key}/{shown(name, 80)} claims {width}x{height} pixels, more than an image of this "
                        "tool has; is it damaged?")


def register(sub) -> None:
    s = sub.add_parser("audit", help="a benchmark's audit from the files (oracle, deprived solvers, balance), or legibility")
    s.add_argument("first", metavar="KIND|OUT",
                   help="the dataset folder, or before it a benchmark's name or legibility (default: every benchmark in OUT)")
    s.add_argument("out", nargs="?", metavar="OUT", help="the dataset folder, after a kind")
    s.add_argument("--train", default=None, metavar="DIR",
                   help="fit the learned baselines on this dataset's items (e.g. another seed) instead of cross-validating")
    s.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    s.add_argument("--workers", default=None, help="processes (default: every core)")
    s.add_argument("--no-card", action="store_true",
                   help="leave the dataset card (OUT/README.md) as it is; by default its Audit section is rewritten")
    s.set_defaults(func=cmd_audit)
