"""Adding a benchmark is one folder and one line, for real: a toy benchmark, written as the files of
src/mewl_gen/tasks/toy/ into a copy of this checkout, with its import added to tasks/catalog.py, and the
pins the pins command writes. Git shows that nothing else changed; the copy's whole fast lane passes (import
contracts and layout checks among it), and `mewl tasks`, `sample`, `validate` and `audit` work on the toy
there, as processes. A draft render of the toy, in this
process, checks its pixels. The toy's files are the code blocks of docs/adding-a-benchmark.md, read from it:
the guide's code is what runs.
"""
from __future__ import annotations

import inspect
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
from tests.blocks import blocks

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "adding-a-benchmark.md"

# -- the toy benchmark: the files of src/mewl_gen/tasks/toy/, as the guide gives them -------------------


def guide_blocks() -> tuple[dict[str, str], str]:
    """The toy's files (each Python block of the guide that starts `# tasks/toy/<file>`, whole) and the
    catalog line (the block that is one `from .toy import` line)."""
    files, lines = {}, []
    for code in blocks(DOC.read_text(), "python"):
        first = code.partition("\n")[0]
        if first.startswith("# tasks/toy/"):
            files[first.removeprefix("# tasks/toy/")] = code
        elif code.startswith("from .toy import") and code.count("\n") == 1:
            lines.append(code)
    assert len(lines) == 1, lines
    return files, lines[0]


TOY, CATALOG_LINE = guide_blocks()  # the one line goes after the last benchmark's import
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


def in_copy(cwd: Path, *argv) -> subprocess.CompletedProcess:
    """`mewl ARGV` in the copy, importing the copy's code (a fresh interpreter: tests/command.py's runner is
    a fork of this process, which has imported this checkout's)."""
    return run(cwd, sys.executable, "-m", "mewl_gen", *argv)


def test_the_catalog_line_is_where_the_test_adds_it():
    lines = (REPO / "src" / "mewl_gen" / "tasks" / "catalog.py").read_text().splitlines(keepends=True)
    after = lines.index(LAST_IMPORT) + 1
    assert lines.count(LAST_IMPORT) == 1
    # Here, or in the copy below, where the line is added after it: the new benchmark is the last one.
    assert CATALOG_LINE not in lines or (lines.count(CATALOG_LINE) == 1 and lines[after] == CATALOG_LINE)
    assert catalog.BENCHMARKS[-1].name == ("toy" if CATALOG_LINE in lines else "bongard")


def fast_lane() -> str:
    """make test-fast's marker expression, as the Makefile states it."""
    (line,) = [line for line in (REPO / "Makefile").read_text().splitlines() if line.startswith("FAST := ")]
    return line.removeprefix("FAST := ")


@pytest.mark.e2e
@pytest.mark.slow
def test_a_benchmark_is_its_folder_and_one_catalog_line(tmp_path):
    """As the guide says: the folder, the catalog line, then `make pins-update` (here the sampled pins alone,
    RENDER=no: rendering every task is minutes, and the render's pins are written by the same code); then the
    whole fast lane passes in the copy, and git shows that nothing else changed."""
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
    toy_files = sorted(f"?? src/mewl_gen/tasks/toy/{name}" for name in TOY)

    status = sorted(git(copy, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert status == [" M src/mewl_gen/tasks/catalog.py", *toy_files], status
    assert git(copy, "diff", "--numstat").splitlines() == ["1\t0\tsrc/mewl_gen/tasks/catalog.py"]

    # What `make pins-update RENDER=no` runs (the copy borrows this checkout's venv, which the copy's make
    # refuses by design: tests/test_make_setup.py). Every change it prints: the toy's groups, added, and the
    # dataset card, which lists every task.
    written = run(copy, sys.executable, "-m", "tests.test_pinned_output", "--write", "--no-render")
    assert written.returncode == 0, written.stdout + written.stderr
    changed = {line for line in written.stdout.splitlines() if line.startswith("SAMPLED ") or ": " in line
               and line.split()[0].isupper()}
    assert changed == {"SAMPLED iid README.md files: changed", "SAMPLED iid train/toy-count files: added",
                       "SAMPLED iid train/toy-count record: added", "SAMPLED iid train/toy-count.jsonl files: added"}, \
        written.stdout

    # The whole fast lane, and the sampled pins, in the copy: with this checkout's jsPsych (make setup's).
    (copy / "node_modules").symlink_to(REPO / "node_modules")
    lane = run(copy, sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "2", "--dist",
               "loadfile", "-m", fast_lane(), "tests/")
    assert lane.returncode == 0, lane.stdout[-5000:] + lane.stderr[-2000:]
    # Skipped there alone: the two tests of a checkout's own .venv, which the copy borrows from this one.
    skipped = sorted(line.split()[2].split(":")[0] for line in lane.stdout.splitlines() if line.startswith("SKIPPED"))
    assert skipped == ["tests/cli/test_mistakes.py", "tests/test_make_setup.py"], lane.stdout[-3000:]
    sampled = run(copy, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                  "tests/test_pinned_output.py::test_sampled_items_of_every_task_are_byte_identical")
    assert sampled.returncode == 0, sampled.stdout[-5000:] + sampled.stderr[-2000:]
    (copy / "node_modules").unlink()  # a link, which .gitignore's folder rule would not leave out

    status = sorted(git(copy, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert status == [" M src/mewl_gen/tasks/catalog.py", " M tests/pinned_digests.py", *toy_files], status

    listed = in_copy(copy, "tasks")
    assert listed.returncode == 0 and "toy: Toy: how many objects" in listed.stdout and "toy-count" in listed.stdout
    out = tmp_path / "sampled"
    sampled = in_copy(copy, "sample", "--task", "toy", "--n", 4, "--out", out, "--workers", 1)
    assert sampled.returncode == 0, sampled.stderr
    assert sorted(p.name for p in (out / "train" / "toy-count").iterdir()) == ["0", "1", "2", "3"]
    valid = in_copy(copy, "validate", out / "train" / "toy-count" / "2")
    assert valid.returncode == 0 and "valid toy-count item 2" in valid.stdout, valid.stderr
    audited = in_copy(copy, "audit", "toy", out, "--workers", 1)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert audited.stdout.splitlines()[0].split() == ["split", "task", "n", "solver", "solver", "95%", "low",
                                                      "repeats", "verdict"]
    assert audited.stdout.splitlines()[2].split()[-1] == "ok"

    # A wrong count that the record of checksums agrees with: the validator and the audit catch it.
    wrong = out / "train" / "toy-count" / "3"
    item = json.loads((wrong / "item.json").read_text())
    (wrong / "item.json").write_text(json.dumps({**item, "count": item["count"] % 3 + 1}, indent=2) + "\n")
    write_record(wrong)
    invalid = in_copy(copy, "validate", wrong)
    assert invalid.returncode == 2 and "breaks the toy-count rules: count" in invalid.stderr, invalid.stderr
    failed = in_copy(copy, "audit", "toy", out, "--workers", 1)
    assert failed.returncode == 1 and failed.stdout.splitlines()[2].endswith("the file-only solver misses items"), \
        failed.stdout + failed.stderr


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


def test_the_guide_gives_every_file_of_the_toy_and_the_methods_its_table_asks_for(toy):
    """The six files of the guide's checklist, and a ToyItem with each method the guide's table of the
    item model does not mark optional: those Item leaves to a benchmark, every one of them."""
    from mewl_gen.tasks.item import Item
    from mewl_gen.tasks.toy.item import ToyItem

    assert set(TOY) == {"__init__.py", "item.py", "sample.py", "validate.py", "solver.py", "audit.py"}
    rows = re.findall(r"^\| `(\w+)\([^`]*\)` \| (.*) \|$", DOC.read_text(), re.M)
    assert len(rows) == 7 and all(callable(getattr(Item, name, None)) for name, _ in rows), rows
    required = sorted(name for name, text in rows if not text.startswith("optional"))
    left = sorted(name for name, f in vars(Item).items()
                  if callable(f) and "raise NotImplementedError" in inspect.getsource(f))
    assert required == left == ["index_entry", "scenes", "solution", "with_scenes"]
    assert [name for name in required if name not in vars(ToyItem)] == []


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
def test_the_toy_renders_verifies_and_audits(toy, mewl, tmp_path):
    """The commands run with --workers 1: a worker process would import the catalog afresh and never see
    the registration. Blender's render workers render scene specs only and never look a task up."""
    rendered = tmp_path / "rendered"
    code, _, err = mewl("render", "--task", "toy", "--n", 2, "--quality", "draft", "--device", "cpu", "--workers", 1,
                        "--out", rendered)
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

    code, out, err = mewl("status", rendered)
    assert code == 0 and "2/2" in out, out + err
    code, _, err = mewl("verify", rendered)
    assert code == 0, err

    code, out, err = mewl("audit", "toy", rendered, "--workers", 1)
    assert code == 0, out + err
    rows = [line.split() for line in out.splitlines() if line.startswith("train ")]
    assert rows[0][:5] == ["train", "toy-count", "2", "1.000", f"{wilson(2, 2)[0]:.3f}"] and rows[0][-1] == "ok"

    record = rendered / "train" / "toy-count" / "1" / "item.json"
    data = bytearray(record.read_bytes())
    at = data.index(b'"count": ') + len(b'"count": ')
    data[at] = ord("1") if data[at] != ord("1") else ord("2")  # one byte, same size
    record.write_bytes(bytes(data))
    code, out, err = mewl("audit", "toy", rendered, "--workers", 1)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "train/toy-count/1" in err, err
