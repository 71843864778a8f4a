"""OUT/README.md, the dataset card: what the folder holds, how it was made,
with which settings, how many items, how to load it and check it.

Written with the plans of a run and again at its end. It holds no time or
host, so every writer of the same data writes the same card. What an item
folder of a benchmark holds, and how to load it, is the benchmark's own text
(tasks.benchmark.Card).
"""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mewl_gen.render.passes import PASS
from mewl_gen.tasks import catalog

from . import bookkeeping, door, status
from .files import dumps, write_atomic, writing
from .layout import BOOKKEEPING
from .manifest import read_manifest
from .record import RECORD

CARD = "README.md"
# The last `mewl audit OUT`: its tables (Markdown) and how many items of each split and task it read.
AUDIT = f"{BOOKKEEPING}/audit.json"
AUDIT_HEAD = ("Measured by `mewl audit OUT` from the files of the complete items (n: how many each row read). "
              "A probe's cell: accuracy % [95 % interval] / the floor its deprivation leaves; a row's verdict "
              "fails when a baseline's 99.9 % interval lies above its floor.")

INDEX_LOADER = '''```python
import json, pathlib
from PIL import Image

root = pathlib.Path("OUT")
for line in open(root / "{split}" / "{task}.jsonl"):
    item = json.loads(line)  # one complete item: its text and labels; item["path"] is its folder
    images = {{p.stem: Image.open(p) for p in (root / item["path"]).glob("*.png")}}
```'''


# The licence of the generated data (the code is MIT: LICENSE at the root of mewl-gen), and how to cite it.
DATA_LICENSE = "CC BY 4.0"
DATA_LICENSE_ID = "cc-by-4.0"  # as a Hugging Face card's YAML names it
LICENSE_TEXT = (f"The data is released under {DATA_LICENSE} (https://creativecommons.org/licenses/by/4.0/): share "
                "and adapt it, citing the papers below. The code that made it, mewl-gen, is under the MIT licence.")
GENERATOR_BIBTEX = r"""@software{mewl_gen,
  title  = {mewl-gen: few-shot grounded-language benchmarks rendered as 3D scenes},
  author = {{The mewl-gen authors}},
  year   = {2026},
  note   = {A generator of few-shot grounded-language datasets, rendered with Blender Cycles}
}"""


def citation(benchmarks: list) -> list[str]:
    """The card's citation section: each benchmark's paper, then this generator, as BibTeX."""
    entries = [b.card.bibtex for b in benchmarks if b.card.bibtex] + [GENERATOR_BIBTEX]
    return ["## Citation", "", "Cite the paper of each benchmark you use and the generator:", "",
            "```bibtex", "\n\n".join(entries), "```", ""]


def features(task_names: list[str]) -> list[str]:
    """What a model is given and must answer, per task: the typed fields of its export (tasks.benchmark.Export),
    the answer's column marked."""
    known = catalog.tasks()
    rows = []
    for name in task_names:
        export = known[name].export
        if export is None:
            continue
        for column, kind in export.columns.items():
            typed = kind.kind if kind.kind != "class" else f"class of {', '.join(kind.classes)}"
            rows.append(f"| {name} | `{column}` | {typed}{' (the answer)' if column == export.answer else ''} |")
    return (["## Features", "", "Each item's typed fields, as `mewl export` writes them beside its images in "
             "panel order:", "", "| task | field | type |", "|---|---|---|", *rows, ""] if rows else [])


def _commands(settings: dict, plans: list[tuple[str, str, int]]) -> list[str]:
    """The commands that make this data, one per (split, N), from the plans."""
    groups: dict[tuple[str, int], list[str]] = {}
    for split, task, n in plans:
        groups.setdefault((split, n), []).append(task)
    verb = "render" if settings.get("kind") == "rendered" else "sample"
    quality = f" --quality {settings['quality']}" if "quality" in settings else ""
    scheme = f" --split-scheme {settings['split_scheme']}" if "split_scheme" in settings else ""
    scheme += f" --passes {','.join(settings['passes'])}" if settings.get("passes") else ""
    known = catalog.benchmarks()
    scheme += "".join(f" {known[b].config.option} <its config in mewl-dataset.json>"
                      for b in settings.get("config", {}) if b in known)
    return [f"mewl {verb} --task {','.join(names)} --n {n} --split {split} --seed {settings.get('seed')}{quality}"
            f"{scheme} --out OUT" for (split, n), names in sorted(groups.items())]


def _what(benchmarks: list, rendered: bool) -> list[str]:
    """Each benchmark's paragraph: alone under its own title where it has one, else a section each."""
    if len(benchmarks) == 1 and benchmarks[0].card.title:
        return [f"# {benchmarks[0].card.title}", "", "## What", "", benchmarks[0].card.paragraph(rendered, RECORD), ""]
    head = ["# Grounded-language benchmarks rendered in the CLEVR universe", "", "## What", ""]
    for bench in benchmarks:
        head += [f"### {bench.summary}", "", bench.card.paragraph(rendered, RECORD), ""]
    return head


def card_text(out: Path) -> str:
    settings = read_manifest(out)
    plans = [(split, task, bookkeeping.planned(out, split, task)) for split, task in bookkeeping.plans(out)]
    known = catalog.tasks()
    names = dict.fromkeys(known[t].benchmark for _, t, _ in plans if t in known)
    benchmarks = [catalog.benchmarks()[name] for name in names]
    indexed = [(split, t) for split, t, _ in plans if t in known and known[t].model.INDEXED]
    first_split = plans[0][0] if plans else "train"
    loaders = [b.card.loader.format(split=first_split) for b in benchmarks if b.card.loader]
    loaders += [INDEX_LOADER.format(split=indexed[0][0], task=indexed[0][1])] if indexed else []
    lines = [
        *_what(benchmarks, settings.get("kind") == "rendered"),
        "## How it was made", "",
        f"With {settings.get('generator')}; every episode is reproducible from "
        "(seed, split, task, index). Commands:", "",
        *[f"    {c}" for c in _commands(settings, plans)], "",
        "## Settings", "",
        "| setting | value |", "|---|---|",
        *[f"| {k} | {v if not isinstance(v, dict) else f'`{k}` in mewl-dataset.json'} |" for k, v in settings.items()], "",
        "## Counts", "",
        "| split | task | planned | complete |", "|---|---|---|---|",
        *[f"| {split} | {task} | {n} | {status.task_status(out, split, task, n).complete} |" for split, task, n in plans], "",
        "## How to load", "",
        *[line for loader in loaders for line in (loader, "")],
        *_passes(settings.get("passes")),
        *_audit(out, {(split, task): status.task_status(out, split, task, n).complete for split, task, n in plans}),
        *features(list(dict.fromkeys(t for _, t, _ in plans if t in known))),
        "## Checking it", "",
        "`mewl status OUT` counts complete, failed and missing episodes; `mewl verify OUT` checks every file "
        f"against `{RECORD}` and decodes every image; rerunning the make command renders damaged or missing "
        "episodes again.", "",
        "## Licence", "", LICENSE_TEXT, "",
        *citation(benchmarks),
    ]
    return "\n".join(lines)


def _passes(passes: list[str] | None) -> list[str]:
    """How to read the pass files beside each image, where the dataset has them."""
    if not passes:
        return []
    return ["Beside each `<scene>.png` lie its passes, from the same render (mewl-gen's docs/passes.md):", "",
            *[f"- `<scene>{PASS[p].suffix}`: {PASS[p].meaning}" for p in passes], ""]


def _audit(out: Path, complete: dict[tuple[str, str], int]) -> list[str]:
    """The card's audit section: the last audit's tables, and a line where the items changed since."""
    try:
        audit = door.read_model(out, out / AUDIT, "audit", Audit)
        tables, audited = audit.tables, {tuple(k.split("/")): n for k, n in audit.counts.items()}
    except (OSError, door.Refused):
        return []  # never audited (or the note is damaged: the next `mewl audit OUT` writes it again)
    changed = {k: n for k, n in complete.items() if audited.get(k, 0) != n}
    stale = ([f"The items changed since ({', '.join(f'{s}/{t}: {n} complete' for (s, t), n in sorted(changed.items()))}): "
              "run `mewl audit OUT` again.", ""] if changed else [])
    return ["## Audit", "", AUDIT_HEAD, "", *stale, tables, ""]


class Audit(BaseModel):
    """OUT/.mewl/audit.json as the door reads it."""
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    tables: str = Field(max_length=1 << 22)
    counts: dict[str, int] = Field(max_length=100_000)


def record_audit(out: Path, tables: str, counts: dict[tuple[str, str], int]) -> None:
    """Keep an audit's tables beside the data, and write the card again with them."""
    door.guard(out, out / AUDIT)
    door.guard(out, out / CARD)
    with writing(out):
        write_atomic(out, out / AUDIT, dumps({"tables": tables, "counts": {f"{s}/{t}": n for (s, t), n in sorted(counts.items())}}),
                     make=True)
        write_atomic(out, out / CARD, card_text(out))


def write_card(out: Path) -> None:
    door.guard(out, out / CARD)
    with writing(out):
        write_atomic(out, out / CARD, card_text(out))
