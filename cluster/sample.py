"""`mewl sample`: episode specs and info.json, no rendering."""
from __future__ import annotations

from pathlib import Path

from joblib import Parallel, delayed

from scenes.spec import Episode
from tasks import EpisodeError, sample_episode
from tasks.release import info_json

from . import dataset


def write_spec_episode(out: Path, ep: Episode) -> None:
    tmp = dataset.staging_dir(out, ep.split, ep.task, ep.index)
    (tmp / "episode.json").write_text(ep.model_dump_json(indent=2) + "\n")
    (tmp / "info.json").write_text(dataset.dumps(info_json(ep)))
    dataset.publish(tmp, out, ep.split, ep.task, ep.index)


def _sample_batch(out: Path, task: str, seed: int, split: str, indices: list[int]) -> list[str]:
    failed = []
    for i in indices:
        if dataset.is_complete(out, split, task, i):
            continue
        try:
            write_spec_episode(out, sample_episode(task, seed, split, i))
        except EpisodeError as err:
            failed.append(str(err))
    return failed


def sample_to_disk(out: Path, tasks: list[str], n: int, split: str, seed: int, workers: int) -> list[str]:
    """Write every missing episode; returns the failures' reasons."""
    jobs = [(t, list(range(start, min(start + 50, n)))) for t in tasks for start in range(0, n, 50)]
    results = Parallel(n_jobs=workers)(delayed(_sample_batch)(out, t, seed, split, idx) for t, idx in jobs)
    return [reason for batch in results for reason in batch]
