"""`mewl gallery OUT DIR`: a rendered dataset as a static site that opens from the file system.

DIR/index.html lists the benchmarks OUT holds, DIR/<benchmark>.html their tasks by split, and
DIR/<split>/<task>/index.html (then page-2.html, ...) a task's items, at most PER_PAGE a page, so a
release of 27,000 episodes opens as fast as one of ten. Each item has its page, DIR/<split>/<task>/<i>.html,
laid out as its benchmark shows it to a person (the task's `Gallery`, tasks/gallery.py: this module
knows no benchmark), with its seed and generator, links to the previous and next item and up to the
index page that lists it, and a toggle that lays each object's ground-truth mask over the images. The
images are hard-linked (copied across file systems) into DIR/<split>/<task>/<i>/, the mask overlays
drawn into DIR/<split>/<task>/<i>/masks/; every link is relative, so DIR can be moved.

Items are read through the store's reader: only complete items whose every file matches its record of
checksums; a damaged one is named in one line and left out. DIR is written in a staging folder beside it
and renamed into place at the end; an existing DIR that is not an empty folder is never overwritten.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.store import reader
from mewl_gen.store.files import make_folder, write_atomic
from mewl_gen.store.new_folder import NewFolder
from mewl_gen.store.manifest import passes_of, read_manifest
from mewl_gen.store.status import Shortfall, incomplete_line, of_planned, shortfalls
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from . import export, gallery_html as h, inspector, inspector_html
from .gallery_masks import overlay
from .placed import place

PER_PAGE = 100  # items listed on one index page
SPLITS = ("train", "val", "test")  # listed first, in this order; other splits after them by name
WINDOW = 4  # index pages linked on each side of the current one (besides the first and the last)


@dataclass(frozen=True)
class Chosen:
    out: Path
    items: dict[tuple[str, str], Sequence[StoredItem]]  # (split, task) -> its sound items, by index
    lines: list[str]  # what to say first: the items left out, the planned ones not there
    short: dict[tuple[str, str], Shortfall] = field(default_factory=dict)  # the splits and tasks short of their plan

    def count(self, split: str, task: str) -> str:
        """A split and task's items as the pages say it: '5', or '5 of 600 planned episodes'."""
        short = self.short.get((split, task))
        return short.phrase() if short else str(len(self.items[(split, task)]))


def choose(out: Path) -> Chosen:
    """The sound, rendered items of OUT; a UserError (one line) when there are none or some are not rendered."""
    found = reader.read(out, images=True)
    lines = [f"left out {reader.damaged_line(found.damaged)}"] if found.damaged else []
    if not found.items:
        raise UserError(f"{out} holds no complete items to show")
    short = shortfalls(out, {key: len(items) for key, items in found.items.items()})
    lines += list(filter(None, [incomplete_line(short)]))
    for (split, task), items in sorted(found.items.items()):
        if items[0].image(next(iter(items[0].item().scenes()))) is None:
            raise UserError(f"{out}/{split}/{task} holds sampled items without images; make a gallery of a rendered "
                            "dataset (mewl render)")
    return Chosen(out, found.items, lines, {(s.split, s.task): s for s in short})


def split_key(split: str) -> tuple[int, str]:
    return (SPLITS.index(split) if split in SPLITS else len(SPLITS), split)


def page_name(page: int) -> str:
    """The file of a task's index page (1-based)."""
    return "index.html" if page == 1 else f"page-{page}.html"


def write_item(staging: Path, stored: StoredItem, folder: Path, links: list[h.Link], passes: tuple[str, ...] = ()
               ) -> tuple[str, str]:
    """An item's images, mask overlays, page and inspector page (beside its images), in the folder of its task;
    its index entry's (cover, line). `passes`: those its images have (the dataset's manifest says)."""
    item, task = stored.item(), catalog.task(stored.task)
    images = folder / str(stored.index)
    make_folder(staging, images / "masks")
    legends, sizes, truths = {}, {}, {}
    for scene in item.scenes():
        sizes[scene] = place(stored, f"{scene}.png", staging, images / f"{scene}.png")
        truths[scene] = stored.image_truth(scene)
        png, legends[scene] = overlay(truths[scene], sizes[scene])
        write_atomic(staging, images / "masks" / f"{scene}.png", png, sync=False)
    noun = catalog.benchmarks()[task.benchmark].noun
    title = f"{stored.task} · {noun} {stored.index} · {stored.split}"
    inspect = h.Link("inspect every object", h.href(str(stored.index), inspector.PAGE))
    inspector.write(staging, stored, images, sizes, passes, f"{title} · inspector", "../../../",
                    [h.Link("← the item's page", h.href("..", f"{stored.index}.html")),
                     h.Link(links[1].text, f"../{links[1].target}", "up")], truths)
    seed = (f"root seed {item.root_seed} · index {item.index} · retry {item.retry} · generator {item.generator}")
    page = h.item_page(title, seed, [*links, inspect], task.gallery.page(item), str(stored.index), legends)
    write_atomic(staging, folder / f"{stored.index}.html", page, sync=False)
    return h.href(str(stored.index), f"{task.gallery.cover(item)}.png"), task.gallery.line(item)


def page_links(page: int, pages: int, up: h.Link) -> list[h.Link]:
    """An index page's navigation: up, first, previous, the pages around this one, next, last."""
    near = sorted({1, pages, *range(max(1, page - WINDOW), min(pages, page + WINDOW) + 1)})
    numbers, last = [], 0
    for p in near:
        if p > last + 1:
            numbers.append(h.Link("…"))
        numbers.append(h.Link(str(p), None if p == page else h.href(page_name(p))))
        last = p
    step = [h.Link("« first", h.href(page_name(1)) if page > 1 else None),
            h.Link("‹ previous", h.href(page_name(page - 1)) if page > 1 else None, "prev")]
    return [up, *step, *numbers, h.Link("next ›", h.href(page_name(page + 1)) if page < pages else None, "next"),
            h.Link("last »", h.href(page_name(pages)) if page < pages else None)]


def write_task(staging: Path, split: str, task: str, items: Sequence[StoredItem], bar, count: str,
               passes: tuple[str, ...] = ()) -> None:
    """A task's item pages and its index pages; `count`: its items as Chosen.count says them."""
    folder = staging / split / task
    make_folder(staging, folder)
    pages = -(-len(items) // PER_PAGE)
    bench = catalog.task(task).benchmark
    noun = catalog.benchmarks()[bench].noun
    up = h.Link(f"↑ {bench}", h.href("..", "..", f"{bench}.html"), "up")
    entries = []
    for k, stored in enumerate(items):
        page = k // PER_PAGE + 1
        links = [h.Link("← previous", h.href(f"{items[k - 1].index}.html") if k > 0 else None, "prev"),
                 h.Link(f"↑ {task} · {split} · page {page} of {pages}", h.href(page_name(page)), "up"),
                 h.Link("next →", h.href(f"{items[k + 1].index}.html") if k + 1 < len(items) else None, "next")]
        cover, line = write_item(staging, stored, folder, links, passes)
        entries.append(h.entry(h.href(f"{stored.index}.html"), cover, f"{noun} {stored.index}", line,
                               h.href(str(stored.index), inspector.PAGE)))
        bar.update(1)
    for page in range(1, pages + 1):
        first = (page - 1) * PER_PAGE
        total = f"{len(items)} in all" if count == str(len(items)) else f"{count}: the dataset is incomplete"
        note = (f"items {items[first].index} to {items[min(first + PER_PAGE, len(items)) - 1].index} "
                f"({total}), page {page} of {pages}")
        text = h.index_page(f"{task} · {split}", note, page_links(page, pages, up),
                            entries[first:first + PER_PAGE], "../../")
        write_atomic(staging, folder / page_name(page), text, sync=False)


def write_benchmarks(chosen: Chosen, staging: Path) -> None:
    """DIR/index.html and a page per benchmark: its tasks, each split's items linked."""
    by_bench: dict[str, dict[str, dict[str, int]]] = {}  # benchmark -> task -> split -> items
    for (split, task), items in chosen.items.items():
        by_bench.setdefault(catalog.task(task).benchmark, {}).setdefault(task, {})[split] = len(items)
    known = [b for b in catalog.BENCHMARKS if b.name in by_bench]
    rows = []
    for k, bench in enumerate(known):
        tasks = [(t, by_bench[bench.name][t.name]) for t in bench.tasks if t.name in by_bench[bench.name]]
        names = {t.name for t in bench.tasks}
        cells = [[h.esc(t.name), h.esc(t.summary), " ".join(
            h.anchor(h.href(split, t.name, "index.html"), f"{split}: {chosen.count(split, t.name)}")
            for split, n in sorted(splits.items(), key=lambda kv: split_key(kv[0])))] for t, splits in tasks]
        links = [h.Link("← previous", h.href(f"{known[k - 1].name}.html") if k > 0 else None, "prev"),
                 h.Link("↑ all benchmarks", h.href("index.html"), "up"),
                 h.Link("next →", h.href(f"{known[k + 1].name}.html") if k + 1 < len(known) else None, "next")]
        body = (h.nav(links) + f"<h1>{h.esc(bench.summary)}</h1>\n"
                + h.table(["task", "what", "items by split"], cells))
        write_atomic(staging, staging / f"{bench.name}.html", h.document(bench.name, "", body), sync=False)
        total = sum(n for _, splits in tasks for n in splits.values())
        absent = sum(s.planned - s.have for s in chosen.short.values() if s.task in names)
        items = of_planned(total, total + absent, bench.noun) if absent else str(total)
        rows.append([h.anchor(h.href(f"{bench.name}.html"), bench.name), h.esc(bench.summary), str(len(tasks)),
                     h.esc(items)])
    manifest = read_manifest(chosen.out)
    settings = ", ".join(f"{k} {manifest[k]}" for k in ("generator", "seed", "quality") if k in manifest)
    left = "".join(f'<p class="note">{h.esc(line)}</p>\n' for line in chosen.lines)
    body = (f"<h1>{h.esc(chosen.out.name)}</h1>\n<p class=\"note\">{h.esc(settings)}</p>\n{left}"
            + h.table(["benchmark", "what", "tasks", "items"], rows))
    write_atomic(staging, staging / "index.html", h.document(f"{chosen.out.name} · gallery", "", body), sync=False)


def write(chosen: Chosen, staging: Path) -> int:
    """Every page of the gallery into the staging folder; the number of items shown."""
    write_atomic(staging, staging / "style.css", h.STYLE, sync=False)
    inspector_html.write_assets(staging)
    passes = passes_of(chosen.out)
    total = sum(len(items) for items in chosen.items.values())
    order = list(catalog.tasks())
    with export.progress(total, "gallery") as bar:
        for (split, task), items in sorted(chosen.items.items(), key=lambda kv: (order.index(kv[0][1]),
                                                                                  split_key(kv[0][0]))):
            write_task(staging, split, task, items, bar, chosen.count(split, task), passes)
    write_benchmarks(chosen, staging)
    return total


def check_dest(out: Path, dest: Path) -> None:
    """DEST must lie outside the dataset, be new (or an empty folder) and have a folder to be made in: else one
    line, before any work."""
    export.check_dest(out, dest, "write the gallery")


def build(chosen: Chosen, dest: Path) -> int:
    """Write the gallery of the chosen items staged beside DEST and rename it into place; the items shown."""
    check_dest(chosen.out, dest)
    with NewFolder(dest, "write the gallery") as staging:
        return write(chosen, staging)
