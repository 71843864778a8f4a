"""OUT/README.md, the dataset card: what the folder holds, how it was made,
with which settings, how many episodes, how to load it and check it.

Written with the manifest and again at the end of every run. It holds no
time or host, so every writer of the same data writes the same card.
"""
from __future__ import annotations

import json
from pathlib import Path

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


def _commands(settings: dict, plans: list[tuple[str, str, int]]) -> list[str]:
    """The commands that make this data, one per (split, N), from the plans."""
    groups: dict[tuple[str, int], list[str]] = {}
    for split, task, n in plans:
        groups.setdefault((split, n), []).append(task)
    verb = "render" if settings.get("kind") == "rendered" else "sample"
    quality = f" --quality {settings['quality']}" if "quality" in settings else ""
    return [f"mewl {verb} --task {','.join(tasks)} --n {n} --split {split} --seed {settings.get('seed')}{quality} --out OUT"
            for (split, n), tasks in sorted(groups.items())]


def card_text(out: Path) -> str:
    settings = json.loads((out / dataset.MANIFEST).read_text())
    plans = [(p.parent.name, p.stem, status.planned(out, p.parent.name, p.stem))
             for p in sorted((out / status.BOOKKEEPING / "plan").glob("*/*.json"))]
    rendered = settings.get("kind") == "rendered"
    what = ("six context panels (`<utterance>.png` with its ground truth `<utterance>.json`), the query "
            "(`question.png`, `question.json`), " if rendered else "no images (specs only), ")
    lines = [
        "# MEWL-style few-shot word-learning episodes", "",
        "## What", "",
        "Episodes of the tasks of MEWL (Jiang et al., ICML 2023) in MEWL's release layout: each folder "
        f"`<split>/<task>/<i>/` holds {what}`info.json` (MEWL's fields), `episode.json` (the full spec that "
        f"produced the folder) and `{RECORD}` (size and sha256 of every other file, written last).", "",
        "## How it was made", "",
        f"With {settings.get('generator')}; every episode is reproducible from "
        "(seed, split, task, index). Commands:", "",
        *[f"    {c}" for c in _commands(settings, plans)], "",
        "## Settings", "",
        "| setting | value |", "|---|---|",
        *[f"| {k} | {v} |" for k, v in settings.items()], "",
        "## Counts", "",
        "| split | task | planned | complete |", "|---|---|---|---|",
        *[f"| {split} | {task} | {n} | {status.task_status(out, split, task, n).complete} |" for split, task, n in plans], "",
        "## How to load", "",
        LOADER.format(split=plans[0][0] if plans else "train"), "",
        "## Checking it", "",
        "`mewl status OUT` counts complete, failed and missing episodes; `mewl verify OUT` checks every file "
        f"against `{RECORD}` and decodes every image; rerunning the make command renders damaged or missing "
        "episodes again.", "",
    ]
    return "\n".join(lines)


def write_card(out: Path) -> None:
    with dataset.writing(out):
        dataset.write_atomic(out / CARD, card_text(out))
