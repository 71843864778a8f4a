"""The command blocks of docs/ that render, sample or audit at a release's size run as written, except for
their sizes. Each block gets a short rewrite, a table of (pattern, replacement) that turns counts down and
renders a draft on the CPU; every rule must match, so a page edited past its rule fails here instead of
going unrun. bash then runs the block in a scratch folder whose `.venv` is this checkout's and whose PATH
finds its `mewl`; a `make` line runs this checkout's Makefile with OUT in the scratch folder. Each test
asserts exit 0 and what the page says the block makes.

Not run here, for their cost even at the smallest size (CPU seconds measured on 2 shared cores):
bongard.md's `make render TASK=bongard` (three tasks of 14 images a problem: one problem each at draft
quality, about 100 s; the same Makefile path runs for shapeworld.md); scale.md's `make bench ONLY=scale`
(its python line at `--scale-sizes 2,4` renders 14 images and runs every store command twice: about 75 s;
tests/bench/test_scale.py runs its plumbing at a tiny size); and the `--submit` blocks of reference.md and
slurm.md (a GPU partition and `--task all` are not a size away from the test cluster, where one item of
it would render one item of every task; tests/cluster/slurm/ submits arrays there)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mewl_gen.tasks.catalog import sample_item
from tests.blocks import blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The rewrite of each block, (pattern, replacement) applied line by line; {root}: this checkout, {here}: the
# scratch folder. A `make` line runs this checkout's Makefile with OUT in the scratch folder, a draft on the CPU.
MAKE = (r"^make ", "make -C {root} OUT={here}/data QUALITY=draft DEVICE=cpu ")
ONE = (r"\bN=\d+\b", "N=1")
REWRITES = {  # name: (page, fence, a string of the block, rules)
    "passes": ("passes.md", "bash", "--passes", [
        ONE, MAKE, (r"^(mewl render .*?--n )600", r"\g<1>1 --quality draft --device cpu"),
        (r"^(mewl render-spec scene\.json)", r"\1 --quality draft --device cpu")]),  # `mewl slurm` renders nothing
    "shapeworld": ("shapeworld.md", "bash", "make render", [ONE, MAKE]),
    "audit": ("audit.md", "sh", "mewl audit", [(r"--n N_TRAIN\b", "--n 2"), (r"--n N_TEST\b", "--n 2")]),
    "bongard audit": ("bongard.md", "bash", "mewl audit", [(r"--n \d+ ", "--n 2 ")]),
}


def block(page: str, language: str, marker: str) -> str:
    """The one block of docs/`page` fenced as `language` that holds `marker`."""
    (found,) = [code for code in blocks((DOCS / page).read_text(), language) if marker in code]
    return found


def scaled(name: str) -> str:
    """The block REWRITES names, every rule applied ({here} stays, for `run`); a rule that matches nothing
    fails the test."""
    page, language, marker, rules = REWRITES[name]
    code = block(page, language, marker)
    for pattern, replacement in rules:
        code, count = re.subn(pattern, replacement.replace("{root}", str(ROOT)), code, flags=re.M)
        assert count, f"the rule {pattern!r} matches nothing in:\n{code}"
    for line in code.splitlines():  # a line the rules miss (a new one, a size spelled otherwise) fails too
        sizes = [int(n) for n in re.findall(r"(?:--n[ =]|\bN=)(\d+)", line)]
        assert line.startswith("mewl slurm") or max(sizes, default=0) <= 2, f"a size left as written: {line}"
    return code


def run(code: str, here: Path) -> subprocess.CompletedProcess:
    """`code` run by bash in `here` (made, with its `.venv`), {here} read as its path; it must exit 0."""
    code = code.replace("{here}", str(here))
    if "make -C" in code and Path(sys.executable).parents[1].resolve() != (ROOT / ".venv").resolve():
        pytest.skip("not run from this checkout's .venv: its Makefile would make that venv first")
    here.mkdir(parents=True, exist_ok=True)
    venv = Path(sys.executable).parents[1]
    (here / ".venv").symlink_to(venv)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-e", "-c", code], cwd=here, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{code}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def complete(out: Path, task: str, n: int) -> bool:
    """`n` items of `task` in OUT's train split, each with its record of checksums (written last)."""
    return all((out / "train" / task / str(i) / "_checksums.json").is_file() for i in range(n))


def table_rows(text: str) -> set[tuple[str, str]]:
    """(split, task) of every row of the audit tables in `text`."""
    return set(re.findall(r"^\| (train|val|test) \| ([\w-]+) \|", text, re.M))


@pytest.mark.parametrize("name", REWRITES)
def test_every_rule_of_a_blocks_rewrite_matches_the_page_as_it_is(name):
    page, language, marker, _ = REWRITES[name]
    assert scaled(name) != block(page, language, marker)


# -- passes.md: each line is a way to ask for passes, so each runs in a folder of its own -------------------

@pytest.mark.render
def test_the_passes_pages_commands_write_the_passes_they_ask_for(tmp_path):
    lines = scaled("passes").splitlines()
    assert [line.split()[:2] for line in lines] == [["make", "-C"], ["mewl", "render"], ["mewl", "slurm"],
                                                     ["mewl", "render-spec"]]
    here = [tmp_path / str(i) for i in range(len(lines))]
    here[3].mkdir()
    (here[3] / "scene.json").write_text(sample_item("pragmatic", 0, "train", 0).query.model_dump_json())
    done = [run(line, folder) for line, folder in zip(lines, here)]

    question = here[0] / "data" / "train" / "pragmatic" / "0" / "question"
    assert complete(here[0] / "data", "pragmatic", 1)
    for suffix in (".depth.npy", ".normal.png", ".albedo.png", ".instance.png"):
        assert Path(f"{question}{suffix}").is_file(), suffix
    question = here[1] / "data" / "train" / "pragmatic" / "0" / "question"
    asked = [Path(f"{question}{suffix}").is_file() for suffix in (".depth.npy", ".normal.png", ".albedo.png")]
    assert asked == [True, True, False]
    assert "--passes depth,normal,albedo,instance --shard" in done[2].stdout  # every array task renders them
    assert not (here[2] / "data").exists()  # without --submit or --script: the script on stdout, nothing written
    written = sorted(p.name for p in (here[3] / "dir").iterdir())
    assert written == ["scene.depth.npy", "scene.instance.png", "scene.json", "scene.png"]


# -- shapeworld.md: a benchmark at draft quality, then more of one task in the same folder ---------------------
@pytest.mark.render
def test_the_shapeworld_pages_make_render_lines_render_it_and_then_add_to_one_task(tmp_path):
    done = run(scaled("shapeworld"), tmp_path)
    tasks = ["shapeworld-existential", "shapeworld-relational", "shapeworld-quantification", "shapeworld-logical"]
    assert all(complete(tmp_path / "data", task, 1) for task in tasks)
    (finished,) = re.findall(r"^render finished: .*", done.stderr, re.M)
    assert "done 4, skipped 0" in finished
    assert "render: nothing to do, 1 item(s) already complete" in done.stderr  # the second line, at N=1


# -- audit.md and bongard.md: sample a fresh seed, then audit it -------------------------------------------
@pytest.mark.slow
def test_the_audit_pages_script_samples_and_audits_every_benchmark(tmp_path):
    """Two items per split and task for N_TRAIN / N_TEST; the tables print a row for every split and task the
    page's tables hold, each verdict ok."""
    done = run(scaled("audit"), tmp_path)
    assert table_rows(done.stdout) == table_rows((DOCS / "audit.md").read_text())
    assert all(line.endswith("| ok |") for line in done.stdout.splitlines() if re.match(r"\| (train|test) ", line))
    for benchmark in ("mewl", "malevic", "shapeworld", "icy", "bongard"):
        assert "## Audit" in (tmp_path / "D" / benchmark / "README.md").read_text(), benchmark


@pytest.mark.slow
def test_the_bongard_pages_audit_commands_sample_and_audit_every_family(tmp_path):
    done = run(scaled("bongard audit"), tmp_path)
    assert table_rows(done.stdout) == table_rows((DOCS / "bongard.md").read_text()) != set()
    assert all(line.endswith("| ok |") for line in done.stdout.splitlines() if re.match(r"\| (train|test) ", line))
