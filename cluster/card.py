"""OUT/README.md, the dataset card: what the folder holds, how it was made,
with which settings, how many episodes, how to load it and check it.

Written with the manifest and again at the end of every run. It holds no
time or host, so every writer of the same data writes the same card.
"""
from __future__ import annotations

from pathlib import Path

import tasks

from . import dataset, status
from .record import RECORD

CARD = "README.md"

LOADER = '''```python
import json, pathlib
from PIL import Image

for episode in sorted(pathlib.Path("OUT").glob("{split}/*/*")):
    info = json.loads((episode / "info.json").read_text())
    panels = [Image.open(episode / f"{{p['name']}}.png") for p in info["context_panels"]]
    query = Image.open(episode / "question.png")
    answer = info["question"]["choices"].index(info["question"]["answer"])
```'''
INDEX_LOADER = '''```python
import json, pathlib
from PIL import Image

root = pathlib.Path("OUT")
for line in open(root / "{split}" / "{task}.jsonl"):
    item = json.loads(line)  # one complete item: its text and labels; item["path"] is its folder
    images = {{p.stem: Image.open(p) for p in (root / item["path"]).glob("*.png")}}
```'''


def _commands(settings: dict, plans: list[tuple[str, str, int]]) -> list[str]:
    """The commands that make this data, one per (split, N), from the plans."""
    groups: dict[tuple[str, int], list[str]] = {}
    for split, task, n in plans:
        groups.setdefault((split, n), []).append(task)
    verb = "render" if settings.get("kind") == "rendered" else "sample"
    quality = f" --quality {settings['quality']}" if "quality" in settings else ""
    scheme = f" --split-scheme {settings['split_scheme']}" if "split_scheme" in settings else ""
    scheme += "".join(f" {tasks.BENCHMARKS[b].config.option} <its config in mewl-dataset.json>"
                      for b in settings.get("config", {}) if b in tasks.BENCHMARKS)
    return [f"mewl {verb} --task {','.join(names)} --n {n} --split {split} --seed {settings.get('seed')}{quality}"
            f"{scheme} --out OUT" for (split, n), names in sorted(groups.items())]


def card_text(out: Path) -> str:
    settings = dataset.read_manifest(out)
    plans = [(p.parent.name, p.stem, status.planned(out, p.parent.name, p.stem))
             for p in sorted((out / status.BOOKKEEPING / "plan").glob("*/*.json"))]
    rendered = settings.get("kind") == "rendered"
    what = ("six context panels (`<utterance>.png` with its ground truth `<utterance>.json`), the query "
            "(`question.png`, `question.json`), " if rendered else "no images (specs only), ")
    benchmarks = list(dict.fromkeys(tasks.REGISTRY[t].benchmark for _, t, _ in plans if t in tasks.REGISTRY))
    mewl = ("Episodes of the tasks of MEWL (Jiang et al., ICML 2023) in MEWL's release layout: each folder "
            f"`<split>/<task>/<i>/` holds {what}`info.json` (MEWL's fields), `episode.json` (the full spec that "
            f"produced the folder) and `{RECORD}` (size and sha256 of every other file, written last).")
    if benchmarks in ([], ["mewl"]):
        head = ["# MEWL-style few-shot word-learning episodes", "", "## What", "", mewl, ""]
    else:
        head = ["# Grounded-language benchmarks rendered in the CLEVR universe", "", "## What", ""]
        for name in benchmarks:
            bench = tasks.BENCHMARKS[name]
            text = mewl if name == "mewl" else (f"{bench.release} `{RECORD}` lists the size and sha256 of every "
                                                "other file and is written last.")
            head += [f"### {bench.summary}", "", text, ""]
    indexed = [(split, t) for split, t, _ in plans if t in tasks.REGISTRY and tasks.REGISTRY[t].model.INDEXED]
    loaders = [LOADER.format(split=plans[0][0] if plans else "train")] if benchmarks in ([], ["mewl"]) or "mewl" in benchmarks else []
    loaders += [INDEX_LOADER.format(split=indexed[0][0], task=indexed[0][1])] if indexed else []
    lines = [
        *head,
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
        "## Checking it", "",
        "`mewl status OUT` counts complete, failed and missing episodes; `mewl verify OUT` checks every file "
        f"against `{RECORD}` and decodes every image; rerunning the make command renders damaged or missing "
        "episodes again.", "",
    ]
    return "\n".join(lines)


def write_card(out: Path) -> None:
    with dataset.writing(out):
        dataset.write_atomic(out / CARD, card_text(out))
