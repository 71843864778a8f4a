"""Which items a study shows: the sound, rendered items of OUT read through the store's reader, a number per
task drawn by the study's seed, and practice items of each benchmark from the practice split (train by
default), from any of its tasks that people can be shown, never an item the study scores."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mewl_gen.errors import UserError
from mewl_gen.store import reader
from mewl_gen.store.manifest import read_manifest
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import StoredItem

from .plan import Source

STUDY_CODE = 0x5717  # mixed into the study's seed: its draws are never a dataset's


@dataclass(frozen=True)
class Options:
    split: str
    tasks: list[str]
    items: int  # scored items per task
    per_participant: int  # of those, shown to one participant (0: all)
    practice: int  # practice trials per benchmark
    practice_split: str
    catch: int  # catch trials per benchmark
    seed: int


@dataclass(frozen=True)
class Chosen:
    tests: list[Source]
    practice: list[Source]
    stored: dict[tuple[str, str, int], StoredItem]
    lines: list[str]  # what to say first: tasks left out, items damaged, too few practice items


def generator(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, STUDY_CODE]))


def _source(stored: StoredItem) -> Source:
    return Source(stored.split, stored.task, stored.index, stored.item())


def named(names: list[str], shown: int = 3) -> str:
    """Names for a one-line message: the first few, then how many more."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _holdings(held: dict[str, list[str]]) -> str:
    """What OUT holds, split by split: 'train (pragmatic), val (pragmatic, shape)'."""
    return ", ".join(f"{split} ({named(tasks)})" for split, tasks in held.items())


def _held(out: Path) -> dict[str, list[str]]:
    """split -> the registered tasks OUT has item folders of (sound or not), from a listing: no item is read."""
    if not out.is_dir():
        raise UserError(f"{out} is not a folder; expected a dataset made by mewl render")
    read_manifest(out)  # not a dataset of this tool: one line
    known, held = catalog.tasks(), {}
    for split, task in sorted({(s, t) for s, t, _ in reader.item_folders(out) if t in known}):
        held.setdefault(split, []).append(task)
    return held


def _in_split(out: Path, o: Options, showable: list[str], held: dict[str, list[str]]) -> list[str]:
    """The showable tasks OUT holds in the split; where it holds none, one line naming the splits and tasks
    it does hold and the option to choose them with."""
    if not held:
        raise UserError(f"{out} holds no items; render some first (mewl render)")
    if o.split not in held:
        raise UserError(f"{out} holds no items in the split {o.split}; it holds {_holdings(held)}: choose one with "
                        f"--split {next(iter(held))}")
    present = [t for t in showable if t in held[o.split]]
    if not present:
        raise UserError(f"{out} holds no items of {named(showable)} in the split {o.split}; it holds "
                        f"{_holdings(held)}: choose with --task and --split")
    return present


def choose(out: Path, o: Options, rng: np.random.Generator) -> Chosen:
    """The items of the study; a UserError (one line) when OUT has none to show or holds them unrendered."""
    showable = [t for t in o.tasks if catalog.task(t).study is not None]
    if not showable:
        raise UserError(f"no task of {named(o.tasks)} has a trial to show people")
    held = _held(out)
    studied = _in_split(out, o, showable, held)
    lines = [f"left out {t}: its benchmark shows people no trial of it" for t in o.tasks
             if t not in showable and t in held[o.split]]
    absent = [t for t in showable if t not in studied]
    if absent:  # one line, however many tasks `--task all` names that OUT never held
        lines.append(f"left out {len(absent)} task(s) that {out} holds no items of in the split {o.split}: "
                     f"{named(absent)}")
    benches = {catalog.task(t).benchmark for t in studied}  # practice may come from any task of their benchmarks
    practising = [t.name for b in catalog.BENCHMARKS if b.name in benches for t in b.tasks if t.study is not None]
    found = reader.read(out, list(dict.fromkeys(studied + practising)), {o.split, o.practice_split}, images=True)
    if found.damaged:
        lines.append(f"left out {reader.damaged_line(found.damaged)}")
    tests, stored, taken = [], {}, set()
    for task in studied:
        items = found.items.get((o.split, task), [])
        if not items:
            lines.append(f"left out {task}: {out} holds no sound items of it in the split {o.split}")
            continue
        if items[0].image(next(iter(items[0].item().scenes()))) is None:
            raise UserError(f"{out}/{o.split}/{task} holds sampled items without images; a study shows rendered "
                            "items (mewl render)")
        picked = sorted(rng.choice(len(items), size=min(o.items, len(items)), replace=False))
        for k in picked:
            tests.append(_source(items[k]))
            stored[(o.split, task, items[k].index)] = items[k]
        taken |= {(o.split, task, items[k].index) for k in picked}
    if not tests:
        raise UserError(f"{out} holds no sound, rendered items of {', '.join(studied)} in the split {o.split}")
    practice_pool = {t: [s for s in found.items.get((o.practice_split, t), []) if (s.split, t, s.index) not in taken]
                     for t in practising}
    practice = []
    for bench in dict.fromkeys(catalog.task(s.task).benchmark for s in tests):
        pools = [practice_pool[t] for t in practice_pool if catalog.task(t).benchmark == bench and practice_pool[t]]
        chosen = []
        for k in range(o.practice):  # round robin over the benchmark's tasks, each pool drawn without repeats
            pool = pools[k % len(pools)] if pools else []
            if pool:
                chosen.append(pool.pop(int(rng.integers(len(pool)))))
            pools = [p for p in pools if p]
        if len(chosen) < o.practice:
            lines.append(f"{bench}: {len(chosen)} practice item(s) of {o.practice} (the split {o.practice_split} holds "
                         "no more items the study does not score)")
        for s in chosen:
            practice.append(_source(s))
            stored[(s.split, s.task, s.index)] = s
    return Chosen(tests, practice, stored, lines)
