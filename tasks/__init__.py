"""Every benchmark's tasks: a sampler and a validator each (no bpy).

`sample_item(task, root_seed, split, index)` is the only entry point the rest
of the project needs: it derives the item's generator, samples, validates,
and redraws from a derived seed when a sampler runs out of draws (bounded).
"""
from __future__ import annotations

from scenes.spec import Item, SceneSpec

from .bongard import BONGARD
from .episode import Draft, InvalidEpisode
from .icy import ICY
from .malevic import MALEVIC
from .mewl import MEWL
from .shapeworld import SHAPEWORLD
from .registry import IID, Benchmark, Config, Draw, ItemError, Scheme, Task, draw_item

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (MEWL, MALEVIC, SHAPEWORLD, ICY, BONGARD)}
REGISTRY: dict[str, Task] = {t.name: t for b in BENCHMARKS.values() for t in b.tasks}
ALL_TASKS: tuple[str, ...] = tuple(REGISTRY)


class UnknownTask(ValueError):
    """A task or benchmark name that is not registered."""


def resolve(value: str) -> list[str]:
    """'all', a benchmark's name, a task's name, or a comma list of those -> task names, in the order given."""
    found: list[str] = []
    for name in value.split(","):
        if name == "all":
            names = ALL_TASKS
        elif name in BENCHMARKS:
            names = tuple(t.name for t in BENCHMARKS[name].tasks)
        elif name in REGISTRY:
            names = (name,)
        else:
            raise UnknownTask(f"unknown task {name!r}; `mewl tasks` lists them ({', '.join(BENCHMARKS)} or all for a set)")
        found += [t for t in names if t not in found]
    return found


def read_item(path) -> Item | SceneSpec:
    """Any registered task's item (or a scene spec) from a JSON file or an item folder; SpecError in one line."""
    from scenes.spec import read_spec

    return read_spec(path, {name: task.model for name, task in REGISTRY.items()})


def sample_item(task: str, root_seed: int, split: str, index: int, first_retry: int = 0, scheme: str = IID,
                config: object | None = None) -> Item:
    return draw_item(REGISTRY[task], root_seed, split, index, first_retry, scheme, config)


__all__ = ["ALL_TASKS", "BENCHMARKS", "IID", "REGISTRY", "Benchmark", "Config", "Draft", "Draw", "Scheme", "InvalidEpisode", "Item", "ItemError",
           "Task", "UnknownTask", "read_item", "resolve", "sample_item"]
