"""What a run has to do: the items of its shard that are not complete."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mewl_gen.store import damage, layout
from mewl_gen.tasks import catalog


@dataclass(frozen=True)
class Settings:
    """What decides the data (with the task and index)."""

    out: Path
    split: str
    seed: int
    quality: str
    scheme: str = "iid"  # how splits differ (tasks.benchmark.Scheme)
    configs: tuple[tuple[str, object], ...] = ()  # (benchmark, its dataset-wide config) where one was given
    passes: tuple[str, ...] = ()  # the extra passes written beside each image (render.passes), in PASSES order
    durable: bool = True  # fsync each item before and after it is published (MEWL_FSYNC=0: not; store.layout.publish)

    def config_of(self, task: str) -> object | None:
        """What the task's benchmark was configured with (None: its defaults)."""
        return dict(self.configs).get(catalog.task(task).benchmark)

    def manifest(self, kind: str) -> dict:
        """What OUT's manifest pins: a run with other values is refused. The scheme,
        passes and configs only where given, so manifests of datasets without them stay as they were."""
        pinned = {"seed": self.seed, "quality": self.quality, "kind": kind} if self.quality else {"seed": self.seed, "kind": kind}
        if self.scheme != "iid":
            pinned["split_scheme"] = self.scheme
        if self.passes:
            pinned["passes"] = list(self.passes)
        if self.configs:
            pinned["config"] = {name: catalog.benchmarks()[name].config.manifest(value, self.seed) for name, value in self.configs}
        return pinned


def plan(settings: Settings, tasks: list[str], n: int, shard: tuple[int, int] = (0, 1)) -> tuple[list[tuple[str, int]], int]:
    """The (task, index) pairs of this shard still to render, index-major so an
    interrupted run leaves every task equally far; and how many are complete.
    An episode whose files disagree with its record, or that `mewl verify`
    found damaged, is to render again."""
    first, every = shard
    todo, complete = [], 0
    noted = {task: damage.noted(settings.out, settings.split, task) for task in tasks}
    for i in range(first, n, every):
        for task in tasks:
            if layout.is_complete(settings.out, settings.split, task, i) and i not in noted[task]:
                complete += 1
            else:
                todo.append((task, i))
    return todo, complete
