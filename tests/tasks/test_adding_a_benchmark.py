"""Adding a benchmark is one folder and one line: a toy benchmark, defined here,
registered by one line (the test's stand-in for its line in tasks/catalog.py),
then sampled, validated, rendered, checked, audited and damaged through the
`mewl` command, in process. docs/adding-a-benchmark.md walks through it.

The commands run with --workers 1: a worker process would import the catalog
afresh and never see the registration. Blender's render workers are separate
processes too, but they render scene specs only and never look a task up.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils
from pydantic import Field

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import UNIVERSE
from mewl_gen.scenes.visibility import MIN_VISIBLE_PIXELS
from mewl_gen.store.record import write_record
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import wilson
from mewl_gen.tasks.benchmark import Audit, AuditRun, Benchmark, Draw, Solver, Task, release_card
from mewl_gen.tasks.item import Item
from mewl_gen.tasks.seeds import draw_seed
from mewl_gen.tasks.stored import StoredItem
from mewl_gen.tasks.validation import InvalidItem, check_scene_geometry, require

REPO = Path(__file__).resolve().parents[2]

# -- the toy benchmark: what tasks/toy/ would hold -----------------------------------------------------------


class ToyItem(Item):  # tasks/toy/item.py
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


def sample(rng: np.random.Generator, d: Draw) -> ToyItem:  # tasks/toy/sample.py
    n = int(rng.integers(1, 4))
    objects = redraw(lambda: [UNIVERSE[int(k)] for k in rng.integers(len(UNIVERSE), size=n)],
                     lambda objs: len(set(objs)) == n, "distinct objects")  # OutOfDraws: redrawn from a derived seed
    return ToyItem(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, count=n,
                   scene=place_scene(draw_seed(rng), objects))


def validate(item: ToyItem) -> None:  # tasks/toy/validate.py: every label recomputed
    objects = [o.properties for o in item.scene.objects]
    require(item.count == len(objects), f"count {item.count}, the scene shows {len(objects)} objects")
    require(len(set(objects)) == len(objects), "two objects are alike")
    check_scene_geometry(item.scene, "image")


def solve(stored: StoredItem) -> int:  # tasks/toy/solver.py: the files only, never the sampler
    truth = stored.truth("image")  # None for a sampled item: its scene spec says the same
    return len(truth["objects"] if truth is not None else stored.record()["scene"]["objects"])


def audit_row(split: str, task: str, items: list[StoredItem], run: AuditRun) -> dict:  # tasks/toy/audit.py
    hits = sum(solve(s) == s.record()["count"] for s in items)
    low, _ = wilson(hits, len(items))
    return {"split": split, "task": task, "n": len(items), "solver": hits / len(items), "solver 95% low": low,
            "verdict": "ok" if hits == len(items) else "the file-only solver misses items"}


TOY = Benchmark(  # tasks/toy/__init__.py
    "toy", "Toy: how many objects does the image show?",
    (Task("toy-count", "toy", "one image of 1 to 3 objects; the answer is their count", sample, validate, ToyItem,
          images=1, solver=Solver(solve, chance=1 / 3)),),
    card=release_card("Each folder holds `image.png`, its ground truth `image.json` and `item.json` (the count)."),
    audit=Audit(columns=("split", "task", "n", "solver", "solver 95% low", "verdict"), row=audit_row),
)

# -- the tests ------------------------------------------------------------------------------------------------


def mewl(capsys, *argv) -> tuple[int, str, str]:
    """`mewl ARGV` in this process: (exit status, stdout, stderr)."""
    from mewl_gen.cli.main import main

    capsys.readouterr()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout


def test_the_toy_sampler_and_validator_over_many_seeds(monkeypatch):
    others = [catalog.sample_item("icy-naming", 0, "train", i) for i in range(3)]
    monkeypatch.setattr(catalog, "BENCHMARKS", (*catalog.BENCHMARKS, TOY))
    assert [catalog.sample_item("icy-naming", 0, "train", i) for i in range(3)] == others  # no other task moved
    assert len({t.code for t in catalog.tasks().values()}) == len(catalog.tasks())
    items = [catalog.sample_item("toy-count", seed, "train", i) for seed in range(3) for i in range(40)]
    assert {item.count for item in items} == {1, 2, 3}
    assert all(item.solution() == len(item.scene.objects) for item in items)
    assert catalog.sample_item("toy-count", 0, "train", 5) == items[5]  # one seed, one item
    with pytest.raises(InvalidItem, match="count"):
        validate(items[0].model_copy(update={"count": items[0].count % 3 + 1}))


@pytest.mark.render
@pytest.mark.e2e
def test_a_benchmark_defined_here_samples_renders_verifies_and_audits(monkeypatch, capsys, tmp_path):
    before = git_status()
    sampled, rendered = tmp_path / "sampled", tmp_path / "rendered"

    code, _, err = mewl(capsys, "sample", "--task", "toy", "--n", 4, "--out", sampled, "--workers", 1)
    assert code == 2 and "unknown task 'toy'" in err  # not registered yet
    assert not sampled.exists()

    monkeypatch.setattr(catalog, "BENCHMARKS", (*catalog.BENCHMARKS, TOY))  # the one line

    code, out, _ = mewl(capsys, "tasks")
    assert code == 0 and "toy: Toy: how many objects" in out and "toy-count" in out

    code, out, err = mewl(capsys, "sample", "--task", "toy", "--n", 4, "--out", sampled, "--workers", 1)
    assert code == 0, err
    assert sorted(p.name for p in (sampled / "train" / "toy-count").iterdir()) == ["0", "1", "2", "3"]
    code, out, err = mewl(capsys, "validate", sampled / "train" / "toy-count" / "2")
    assert code == 0 and "valid toy-count item 2" in out, err
    code, out, err = mewl(capsys, "audit", "toy", sampled, "--workers", 1)
    assert code == 0 and "toy-count" in out, err

    # A wrong count that the record of checksums agrees with: the validator and the audit catch it.
    wrong = sampled / "train" / "toy-count" / "3"
    item = json.loads((wrong / "item.json").read_text())
    (wrong / "item.json").write_text(json.dumps({**item, "count": item["count"] % 3 + 1}, indent=2) + "\n")
    write_record(wrong)
    code, _, err = mewl(capsys, "validate", wrong)
    assert code == 2 and "breaks the toy-count rules: count" in err, err
    code, out, err = mewl(capsys, "audit", "toy", sampled, "--workers", 1)
    assert code == 1 and out.splitlines()[2].endswith("the file-only solver misses items"), out + err

    code, _, err = mewl(capsys, "render", "--task", "toy", "--n", 2, "--quality", "draft", "--device", "cpu",
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

    code, out, err = mewl(capsys, "status", rendered)
    assert code == 0 and "2/2" in out, out + err
    code, _, err = mewl(capsys, "verify", rendered)
    assert code == 0, err

    code, out, err = mewl(capsys, "audit", "toy", rendered, "--workers", 1)
    assert code == 0, out + err
    rows = [line.split() for line in out.splitlines() if line.startswith("train ")]
    assert rows == [["train", "toy-count", "2", "1.000", f"{wilson(2, 2)[0]:.3f}", "ok"]]

    record = rendered / "train" / "toy-count" / "1" / "item.json"
    data = bytearray(record.read_bytes())
    at = data.index(b'"count": ') + len(b'"count": ')
    data[at] = ord("1") if data[at] != ord("1") else ord("2")  # one byte, same size
    record.write_bytes(bytes(data))
    code, out, err = mewl(capsys, "audit", "toy", rendered, "--workers", 1)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "train/toy-count/1" in err, err

    after = git_status()  # nothing under the repository was written (another hand's edits meanwhile show here too)
    assert after == before, sorted(set(after.splitlines()) ^ set(before.splitlines()))
