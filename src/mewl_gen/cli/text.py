"""`mewl text OUT`: the text inputs a benchmark defines for text-only models
(tasks.benchmark.Benchmark.text: the inputs of a paper's unimodal baselines), one
line per item in OUT/<split>/<task>.text.jsonl, read from the released files.
A damaged item is left out, named in one line, and the exit status is 1."""
from __future__ import annotations

import json
import sys

from mewl_gen.errors import UserError, shown
from mewl_gen.store import door, reader
from mewl_gen.store.files import write_lines_atomic, writing
from mewl_gen.tasks import catalog

from . import options


def cmd_text(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    writers = {t.name: b.text for b in catalog.BENCHMARKS if b.text is not None for t in b.tasks}
    found = reader.read(out, tasks=writers)
    if not found.items:
        raise UserError(f"{out} holds no <split>/<task> folders of items with text inputs "
                        f"({', '.join(b.name for b in catalog.BENCHMARKS if b.text is not None)})")
    damaged = list(found.damaged)
    with writing(out):
        for (split, task), items in sorted(found.items.items()):
            written = 0

            def lines(items=items, task=task):  # one at a time: a split of a release is tens of MB of text
                nonlocal written
                for stored in items:
                    try:
                        line = json.dumps(writers[task](stored)) + "\n"
                    except (KeyError, TypeError, ValueError, IndexError) as err:  # files that agree with their record, yet no item's
                        damaged.append(f"{stored.key}: its files do not read as a {task} item's "
                                       f"({type(err).__name__}: {shown(err, 120)})")
                        continue
                    written += 1
                    yield line

            path = out / split / f"{task}.text.jsonl"
            door.guard(out, path)
            write_lines_atomic(out, path, lines())
            print(f"{path}: {written} {catalog.noun([task])}(s)")
    if damaged:
        print(f"mewl text: left out {reader.damaged_line(damaged, catalog.noun(writers))}", file=sys.stderr)
    return 1 if damaged else 0


def register(sub) -> None:
    s = sub.add_parser("text", help="write the text inputs of a benchmark's text-only baselines as OUT/<split>/<task>.text.jsonl")
    s.add_argument("out")
    s.set_defaults(func=cmd_text)
