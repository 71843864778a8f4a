"""Adding a benchmark is one folder and one line, for real: a toy benchmark, written as the files of
src/mewl_gen/tasks/toy/ into a copy of this checkout, with its import added to tasks/catalog.py. Git
shows that nothing else changed; the copy's import contracts and layout checks pass, and `mewl tasks`,
`sample`, `validate` and `audit` work on the toy there, as processes. A draft render of the toy, in this
process, checks its pixels. docs/adding-a-benchmark.md quotes these files: every excerpt of the page is
checked against them.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

import mewl_gen.tasks
from mewl_gen.scenes.visibility import MIN_VISIBLE_PIXELS
from mewl_gen.store.record import write_record
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import wilson

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding-a-benchmark.md"

# -- the toy benchmark: the files of src/mewl_gen/tasks/toy/ ---------------------------------------------

TOY = {
    "__init__.py": '''\
"""Toy: how many objects does the image show? (docs/adding-a-benchmark.md)"""
from __future__ import annotations

from ..benchmark import Benchmark, Solver, Task, release_card
from .audit import AUDIT
from .item import ToyItem
from .sample import sample
from .solver import solve
from .validate import validate

TOY = Benchmark(
    "toy", "Toy: how many objects does the image show?",
    (Task("toy-count", "toy", "one image of 1 to 3 objects; the answer is their count", sample, validate, ToyItem,
          images=1, solver=Solver(solve, chance=1 / 3)),),
    card=release_card("Each folder holds `image.png`, its ground truth `image.json` and `item.json` (the count)."),
    audit=AUDIT,
)
''',
    "item.py": '''\
"""The toy's item: one image and how many objects it shows."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from mewl_gen.scenes.spec import SceneSpec

from ..item import Item


class ToyItem(Item):
    task: Literal["toy-count"] = "toy-count"
    scene: SceneSpec
    count: int = Field(ge=1, le=3, description="how many objects the image shows")

    def scenes(self) -> dict[str, SceneSpec]:
        return {"image": self.scene}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "ToyItem":
        return self.model_copy(update={"scene": scenes["image"]})

    def solution(self) -> int:
        return self.count

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index, "count": self.count}
''',
    "sample.py": '''\
"""The toy's sampler: one to three distinct objects, placed."""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.universe import UNIVERSE

from ..benchmark import Draw
from ..seeds import draw_seed
from .item import ToyItem


def sample(rng: np.random.Generator, d: Draw) -> ToyItem:
    n = int(rng.integers(1, 4))
    objects = redraw(lambda: [UNIVERSE[int(k)] for k in rng.integers(len(UNIVERSE), size=n)],
                     lambda objs: len(set(objs)) == n, "distinct objects")  # OutOfDraws: redrawn from a derived seed
    return ToyItem(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, count=n,
                   scene=place_scene(draw_seed(rng), objects))
''',
    "validate.py": '''\
"""The toy's validator: every label recomputed from the item alone."""
from __future__ import annotations

from ..validation import check_scene_geometry, require
from .item import ToyItem


def validate(item: ToyItem) -> None:
    objects = [o.properties for o in item.scene.objects]
    require(item.count == len(objects), f"count {item.count}, the scene shows {len(objects)} objects")
    require(len(set(objects)) == len(objects), "two objects are alike")
    check_scene_geometry(item.scene, "image")
''',
    "solver.py": '''\
"""The toy's file-only solver: it reads the released files, never the sampler."""
from __future__ import annotations

from ..stored import StoredItem


def solve(stored: StoredItem) -> int:
    truth = stored.truth("image")  # None for a sampled item: its scene spec says the same
    return len(truth["objects"] if truth is not None else stored.record()["scene"]["objects"])
''',
    "audit.py": '''\
"""`mewl audit toy OUT`: does the file-only solver count every item right?"""
from __future__ import annotations

import json

from ..audit import Audit, AuditRun, Findings, wilson
from ..stored import StoredItem
from .solver import solve


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    hits = sum(solve(s) == s.record()["count"] for s in items)
    low, _ = wilson(hits, len(items))
    return Findings({"n": len(items), "solver": hits / len(items), "solver 95% low": low},
                    [] if hits == len(items) else ["the file-only solver misses items"])


def key(stored: StoredItem) -> str:
    """What an item shows, up to camera, lights, positions and seeds: its objects (a multiset)."""
    return json.dumps(sorted([o["shape"], o["color"], o["material"], o["size"]]
                             for o in stored.record()["scene"]["objects"]))


AUDIT = Audit(("n", "solver", "solver 95% low"), findings, key)
''',
}
CATALOG_LINE = "from .toy import TOY\n"  # the one line, after the last benchmark's import
LAST_IMPORT = "from .bongard import BONGARD\n"


def write_toy(src: Path) -> None:
    """The toy's folder under src/mewl_gen/tasks/ (a checkout's or a test's)."""
    folder = src / "mewl_gen" / "tasks" / "toy"
    folder.mkdir(parents=True)
    for name, text in TOY.items():
        (folder / name).write_text(text)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=toy", "-c", "user.email=toy@example.org", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


def run(cwd: Path, *argv) -> subprocess.CompletedProcess:
    """A process in the copy, importing the copy's code."""
    env = {**os.environ, "PYTHONPATH": str(cwd / "src")}
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def mewl(cwd: Path, *argv) -> subprocess.CompletedProcess:
    return run(cwd, sys.executable, "-m", "mewl_gen", *argv)


def test_the_catalog_line_is_where_the_test_adds_it():
    lines = (REPO / "src" / "mewl_gen" / "tasks" / "catalog.py").read_text().splitlines(keepends=True)
    assert lines.count(LAST_IMPORT) == 1 and CATALOG_LINE not in lines
    assert catalog.BENCHMARKS[-1].name == "bongard"  # the line after it is the new last benchmark


@pytest.mark.e2e
@pytest.mark.slow
def test_a_benchmark_is_its_folder_and_one_catalog_line(tmp_path):
    copy = tmp_path / "checkout"
    for name in git(REPO, "ls-files", "-z").split("\0"):
        if name and (REPO / name).is_file():  # a file deleted but not yet committed is no longer tracked
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "the checkout")

    write_toy(copy / "src")
    path = copy / "src" / "mewl_gen" / "tasks" / "catalog.py"
    text = path.read_text()
    path.write_text(text.replace(LAST_IMPORT, LAST_IMPORT + CATALOG_LINE))

    status = sorted(git(copy, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert status == [" M src/mewl_gen/tasks/catalog.py",
                      *sorted(f"?? src/mewl_gen/tasks/toy/{name}" for name in TOY)], status
    assert git(copy, "diff", "--numstat").splitlines() == ["1\t0\tsrc/mewl_gen/tasks/catalog.py"]

    lint = run(copy, Path(sys.executable).parent / "lint-imports", "--no-cache")
    assert lint.returncode == 0 and "0 broken" in lint.stdout, lint.stdout + lint.stderr
    layers = run(copy, sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                 "tests/test_layers.py")
    assert layers.returncode == 0, layers.stdout + layers.stderr

    listed = mewl(copy, "tasks")
    assert listed.returncode == 0 and "toy: Toy: how many objects" in listed.stdout and "toy-count" in listed.stdout
    out = tmp_path / "sampled"
    sampled = mewl(copy, "sample", "--task", "toy", "--n", 4, "--out", out, "--workers", 1)
    assert sampled.returncode == 0, sampled.stderr
    assert sorted(p.name for p in (out / "train" / "toy-count").iterdir()) == ["0", "1", "2", "3"]
    valid = mewl(copy, "validate", out / "train" / "toy-count" / "2")
    assert valid.returncode == 0 and "valid toy-count item 2" in valid.stdout, valid.stderr
    audited = mewl(copy, "audit", "toy", out, "--workers", 1)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert audited.stdout.splitlines()[0].split() == ["split", "task", "n", "solver", "solver", "95%", "low",
                                                      "repeats", "verdict"]
    assert audited.stdout.splitlines()[2].split()[-1] == "ok"

    # A wrong count that the record of checksums agrees with: the validator and the audit catch it.
    wrong = out / "train" / "toy-count" / "3"
    item = json.loads((wrong / "item.json").read_text())
    (wrong / "item.json").write_text(json.dumps({**item, "count": item["count"] % 3 + 1}, indent=2) + "\n")
    write_record(wrong)
    invalid = mewl(copy, "validate", wrong)
    assert invalid.returncode == 2 and "breaks the toy-count rules: count" in invalid.stderr, invalid.stderr
    failed = mewl(copy, "audit", "toy", out, "--workers", 1)
    assert failed.returncode == 1 and failed.stdout.splitlines()[2].endswith("the file-only solver misses items"), \
        failed.stdout + failed.stderr


def test_the_guide_quotes_the_toy_as_written():
    """Every excerpt of docs/adding-a-benchmark.md marked as a toy file is in that file, line for line."""
    excerpts = re.findall(r"```python\n# tasks/toy/(\w+\.py)\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert {name for name, _ in excerpts} == set(TOY)
    for name, text in excerpts:
        assert text in TOY[name], f"docs/adding-a-benchmark.md quotes tasks/toy/{name} other than it is"
    assert f"```python\n{CATALOG_LINE}```" in DOC.read_text()


# -- the toy in this process: sampled many times, and rendered -------------------------------------------


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy's package importable as mewl_gen.tasks.toy, and registered as its catalog line would."""
    write_toy(tmp_path)
    monkeypatch.setattr(mewl_gen.tasks, "__path__", [*mewl_gen.tasks.__path__, str(tmp_path / "mewl_gen" / "tasks")])
    for name in [m for m in sys.modules if m.startswith("mewl_gen.tasks.toy")]:
        monkeypatch.delitem(sys.modules, name)
    from mewl_gen.tasks.toy import TOY as benchmark

    monkeypatch.setattr(catalog, "BENCHMARKS", (*catalog.BENCHMARKS, benchmark))
    yield benchmark
    for name in [m for m in sys.modules if m.startswith("mewl_gen.tasks.toy")]:
        del sys.modules[name]
    vars(mewl_gen.tasks).pop("toy", None)  # the package's attribute the import set


def in_process(capsys, *argv) -> tuple[int, str, str]:
    """`mewl ARGV` in this process: (exit status, stdout, stderr)."""
    from mewl_gen.cli.main import main

    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_toy_sampler_and_validator_over_many_seeds(toy, monkeypatch):
    from mewl_gen.tasks.toy.validate import validate
    from mewl_gen.tasks.validation import InvalidItem

    with monkeypatch.context() as m:
        m.setattr(catalog, "BENCHMARKS", catalog.BENCHMARKS[:-1])
        others = [catalog.sample_item("icy-naming", 0, "train", i) for i in range(3)]
    assert [catalog.sample_item("icy-naming", 0, "train", i) for i in range(3)] == others  # no other task moved
    assert len({t.code for t in catalog.tasks().values()}) == len(catalog.tasks())  # a code of its own
    items = [catalog.sample_item("toy-count", seed, "train", i) for seed in range(3) for i in range(40)]
    assert {item.count for item in items} == {1, 2, 3}
    assert all(item.solution() == len(item.scene.objects) for item in items)
    assert catalog.sample_item("toy-count", 0, "train", 5) == items[5]  # one seed, one item
    with pytest.raises(InvalidItem, match="count"):
        validate(items[0].model_copy(update={"count": items[0].count % 3 + 1}))


@pytest.mark.render
@pytest.mark.e2e
def test_the_toy_renders_verifies_and_audits(toy, capsys, tmp_path):
    """The commands run with --workers 1: a worker process would import the catalog afresh and never see
    the registration. Blender's render workers render scene specs only and never look a task up."""
    rendered = tmp_path / "rendered"
    code, _, err = in_process(capsys, "render", "--task", "toy", "--n", 2, "--quality", "draft", "--device", "cpu",
                              "--workers", 1, "--out", rendered)
    assert code == 0, err
    for i in range(2):
        folder = rendered / "train" / "toy-count" / str(i)
        item = json.loads((folder / "item.json").read_text())
        truth = json.loads((folder / "image.json").read_text())
        assert len(truth["objects"]) == item["count"] == len(item["scene"]["objects"])
        image = np.asarray(Image.open(folder / "image.png").convert("RGB"))
        for o in truth["objects"]:
            mask = mask_utils.decode({"size": o["mask"]["size"], "counts": o["mask"]["counts"].encode()}).astype(bool)
            assert mask.shape == image.shape[:2]
            assert mask.sum() == o["visible_pixels"] >= MIN_VISIBLE_PIXELS, f"{folder}: {o['description']}"
            assert image[mask].std() > 0  # a shaded object, not an empty patch

    code, out, err = in_process(capsys, "status", rendered)
    assert code == 0 and "2/2" in out, out + err
    code, _, err = in_process(capsys, "verify", rendered)
    assert code == 0, err

    code, out, err = in_process(capsys, "audit", "toy", rendered, "--workers", 1)
    assert code == 0, out + err
    rows = [line.split() for line in out.splitlines() if line.startswith("train ")]
    assert rows[0][:5] == ["train", "toy-count", "2", "1.000", f"{wilson(2, 2)[0]:.3f}"] and rows[0][-1] == "ok"

    record = rendered / "train" / "toy-count" / "1" / "item.json"
    data = bytearray(record.read_bytes())
    at = data.index(b'"count": ') + len(b'"count": ')
    data[at] = ord("1") if data[at] != ord("1") else ord("2")  # one byte, same size
    record.write_bytes(bytes(data))
    code, out, err = in_process(capsys, "audit", "toy", rendered, "--workers", 1)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "train/toy-count/1" in err, err
