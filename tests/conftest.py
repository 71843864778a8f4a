from __future__ import annotations

import atexit
import fcntl
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from joblib import Parallel, delayed

from mewl_gen.tasks.item import Item
from mewl_gen.tasks.mewl.item import Episode
from tests.command import mewl_here

# Measured workers per device (cluster.calibrate) are kept per user; tests, and the
# commands they start, must neither read a developer's measurements nor leave theirs.
# Each test process makes its own and removes it when it ends (the commands it starts write there too).
os.environ["MEWL_CACHE_DIR"] = _CACHE_DIR = tempfile.mkdtemp(prefix="mewl-test-cache-")
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)

# The statistical sweeps' sizes. `make test` (CI) runs each at the size that still finds the leak or
# breach it is about (each test says why); `make sweep` runs the same tests at the sizes they had before
# CI had to fit in 8 minutes (MEWL_TEST_SWEEP=full); the audit's own runs (docs/audit.md) are larger still.
FULL_SWEEP = os.environ.get("MEWL_TEST_SWEEP") == "full"


def sweep(ci: int, full: int) -> int:
    """A sweep's size: `ci` in make test, `full` in make sweep."""
    return full if FULL_SWEEP else ci


# Episodes per task that the properties checked on every episode (validity, the oracle, balance,
# text-only chance) and the deprived baselines share. 700 (make sweep) keep every chi-square and chance
# bound tight (the baselines' 99.9 % band at chance 1/5 is +-0.050, fitted on 350 and scored on 350:
# +-0.071); 350 (make test) still find every planted shortcut the tests plant (a learned baseline on a
# planted feature, the old names, the old pragmatic construction), and a uniformity breach of the size
# of those the samplers had (one position drawn twice as often) is a chi-square past the 0.01 % point.
EPISODES_PER_TASK = sweep(350, 700)
HALF = EPISODES_PER_TASK // 2  # the learned baselines: fitted on the first half, scored on the second

# Sampled episodes are shared by every test process of one session: several files ask for the
# same (task, split, seed) or a prefix of it, and each sampling them again cost minutes of CI.
# The folder is made by the session's first process (xdist's controller, or the only one) and
# inherited by its workers; it lives only as long as that session, so no code change is ever
# checked against episodes an older sampler drew.
SAMPLES_ENV = "MEWL_TEST_SAMPLES"
CHUNK = 50
# Episodes a test draws where it needs a few (one to break, a handful to read) rather than a sweep: the
# first chunk of every larger sample, so that it costs nothing where the sweeps run (`slow`, in make test).
FEW = CHUNK


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config._mewl_samples = tempfile.mkdtemp(prefix="mewl-test-samples-")
        os.environ[SAMPLES_ENV] = config._mewl_samples


def pytest_unconfigure(config):
    folder = getattr(config, "_mewl_samples", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def _sample_range(folder: str, task: str, split: str, seed: int, start: int, stop: int) -> list[str]:
    """Episodes start..stop-1 as JSON, sampled by the first process to ask and read by the others."""
    from mewl_gen.tasks.catalog import sample_item

    path = Path(folder) / f"{task}-{split}-{seed}-{start}-{stop}.json"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return json.loads(path.read_text())
        batch = [sample_item(task, seed, split, i).model_dump_json() for i in range(start, stop)]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(batch))
        tmp.replace(path)
        return batch


@functools.cache
def episodes(task: str, n: int = EPISODES_PER_TASK, split: str = "train", seed: int = 0) -> tuple[Episode | Item, ...]:
    """n episodes (items, for a task beyond MEWL) of a task, sampled once per test session on every core."""
    from mewl_gen.tasks import catalog

    folder = os.environ[SAMPLES_ENV]  # set by pytest_configure, inherited by xdist's workers
    # Chunks of CHUNK, so that a smaller sample (the fast lane's) is the first chunks of a larger one and
    # shares their files; a few costly items (Bongard problems) are split over the cores instead.
    cores = os.cpu_count() or 1
    step = CHUNK if n >= CHUNK else max(1, -(-n // cores))
    batches = Parallel(n_jobs=-1)(
        delayed(_sample_range)(folder, task, split, seed, s, min(s + step, n)) for s in range(0, n, step)
    )
    return tuple(catalog.task(task).model.model_validate_json(j) for batch in batches for j in batch)


# One preview render of every task (item 0 of each, seed 2026, split train), made once per test session by
# the first process that asks and read by the others: the pinned digests (test_pinned_output.py) and the
# render tests of the benchmarks that read one item per task share it. Tests that change files copy it.
# Preview (one sample, no denoiser): what its readers check is files, ground truth (read from the object-
# index pass, the same at every quality) and that images load, not how true the colours read, and a draft
# render of every task costs several times the CPU (docs/performance.md). Draft's pins are make pins'
# (test_pinned_output.py).
RENDERED_SEED = "2026"
RENDERED_QUALITY = "preview"


def _render_command(folder: Path) -> list[str]:
    return [sys.executable, "-m", "mewl_gen", "render", "--task", "all", "--n", "1", "--seed", RENDERED_SEED,
            "--quality", RENDERED_QUALITY, "--device", "cpu", "--workers", "1", "--out", str(folder / "out")]


def rendered_all() -> Path:
    """The session's render, made by the first process that asks; a process that asks meanwhile waits
    on the lock, then reads it."""
    folder = Path(os.environ[SAMPLES_ENV]) / "rendered-all"
    with open(folder.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            r = subprocess.run(_render_command(folder), capture_output=True, text=True, timeout=1200)
            assert r.returncode == 0, r.stderr
            (folder / "done").write_text("")
    return folder / "out"


# The command, run as a user runs it: tests/command.py says which runner is for what.


def run_mewl(*args) -> int:
    """`mewl ARGS` in this process, returning its exit status; what it prints goes where the caller's output
    goes. For a module's or a session's fixture, whose output no test reads."""
    from mewl_gen.cli.main import main

    return main([str(a) for a in args])


@pytest.fixture
def mewl():
    """`mewl ARGS` in this process (tests/command.py's mewl_here): mewl("sample", "--n", 3, ...) gives the
    Ran of that command alone, its exit status and what it printed."""
    return mewl_here


def stored_items(out: Path, prefix: str) -> list:
    """The StoredItems of OUT's tasks whose names start with `prefix`, through the store's reader."""
    from mewl_gen.store.reader import read

    found = read(out)
    assert not found.damaged, found.damaged
    return [s for (_, task), items in sorted(found.items.items()) if task.startswith(prefix) for s in items]
