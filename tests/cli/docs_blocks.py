"""The command blocks of docs/ that render, sample, benchmark, audit or submit at a release's size run as
written, except for their sizes (tests/cli/test_doc_*.py, one file a page or two). Each block gets a short
rewrite, a table of (pattern, replacement) that turns counts down and renders a preview (one sample, no denoiser)
on the CPU; every rule must match, so a page edited past its rule fails instead of going unrun. bash then runs
the block in a scratch folder whose `.venv` is this checkout's and whose PATH finds its `mewl`; a `make` line runs
this checkout's Makefile with OUT in the scratch folder. Each test asserts exit 0 and what the page says the block
makes.

The `--submit` blocks of slurm.md and reference.md run on the suite's own SLURM cluster (tests/slurm_cluster.py),
which is not the page's site: their partition, GPUs and shared folder are rewritten too, in a group of their own.
scale.md's three `make bench` lines differ only in the sizes they ask for: each, as written, is turned by
`make -n` into the bench's command, which runs in the test up to the sizes it would build; the line that names
its sizes then runs whole at one store of 2 episodes (BENCH_OUT puts it in the scratch folder). Not run as
written: `tail -f`, which never ends: the test reads the log once, after the array ended.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.blocks import blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The rewrite of each block, (pattern, replacement) applied line by line; {root}: this checkout, {here}: the
# scratch folder. A `make` line runs this checkout's Makefile with OUT in the scratch folder, a preview on the CPU.
MAKE = (r"^make ", "make -C {root} OUT={here}/data QUALITY=preview DEVICE=cpu ")
ONE = (r"\bN=\d+\b", "N=1")
PREVIEW = (r"\bQUALITY=draft\b", "QUALITY=preview")  # a page's own draft: what these tests check is not pixels
# A SLURM array at its smallest: one preview episode of one task in one array task.
ARRAY = [(r"--task mewl --n 2000", "--task shape --n 1 --quality preview"), (r"--array 50\b", "--array 1"),
         (r"--max-parallel 20\b", "--max-parallel 1")]
# Not sizes but a site's own: the page's partition, GPUs and shared folder are its cluster's, not the test
# cluster's (one CPU node, partition `debug`, no GPUs: the page's own `--gpus-per-task 0 --device cpu` for a CPU
# partition); a scratch folder on this machine, the cluster's one node, stands for the shared one.
SITE = [(r"/shared/mewl", "{here}/mewl"), (r"--partition gpu\b", "--partition debug"),
        (r"--gpus-per-task 1\b", "--gpus-per-task 0 --device cpu")]
# scale.md's make lines, writing in the scratch folder.
BENCH_MAKE = (r"^make ", "make -C {root} BENCH_OUT={here}/bench-out DEVICE=cpu ")
REWRITES = {  # name: (page, fence, a string of the block, rules)
    "passes": ("passes.md", "bash", "--passes", [
        ONE, MAKE, (r"^(mewl render .*?--n )600", r"\g<1>1 --quality preview --device cpu"),
        (r"^(mewl render-spec scene\.json)", r"\1 --quality preview --device cpu")]),  # `mewl slurm` renders nothing
    "shapeworld": ("shapeworld.md", "bash", "make render", [ONE, PREVIEW, MAKE]),
    "bongard": ("bongard.md", "bash", "make render", [ONE, PREVIEW, MAKE]),
    # One process each (bongard.md's own choice): at two items a task a pool's start is most of a command's time,
    # and what a command writes or prints does not depend on its workers.
    "audit": ("audit.md", "sh", "mewl audit", [(r"--n N_TRAIN\b", "--n 2"), (r"--n N_TEST\b", "--n 2"),
                                               (r"(--out [DT]/\$b|--markdown)$", r"\1 --workers 1")]),
    "bongard audit": ("bongard.md", "bash", "mewl audit", [(r"--n \d+ ", "--n 2 ")]),
    # The line that names its sizes at one store of 2 episodes; every line writes in the scratch folder.
    "scale": ("scale.md", "bash", "make bench ONLY=scale", [(r"SCALE_SIZES=250,1000\b", "SCALE_SIZES=2"), BENCH_MAKE]),
    "slurm submit": ("slurm.md", "bash", "--submit", [*ARRAY, *SITE]),
    # The ids the submission printed for the page's; `tail -f` never ends: the log read once, the array ended.
    "slurm monitor": ("slurm.md", "", "squeue -j", [(r"\b4243\b", "{check}"), (r"\b4242_7\b", "{array}_0"),
                                                    (r"^tail -f ", "tail "), SITE[0]]),
    # `...` is "the same command": the first line's options, before the other rules rewrite them with it.
    "reference slurm": ("reference.md", "bash", "--submit", [
        (r" \.\.\. ", " --partition gpu --gpus-per-task 1 --time 04:00:00 --max-parallel 20 "), *ARRAY, *SITE,
        (r"<jobid>_<shard>", "{array}_0"), (r"^tail -f ", "tail ")]),
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
        sizes = [int(n) for n in re.findall(r"(?:--n[ =]|\bN=|--array[ =]|--max-parallel[ =])(\d+)", line)]
        assert line.startswith("mewl slurm") or max(sizes, default=0) <= 2, f"a size left as written: {line}"
        stores = [int(n) for found in re.findall(r"(?:--scale-sizes[ =]|SCALE_SIZES=)([\d,]+)", line)
                  for n in found.split(",")]
        assert max(stores, default=0) <= 4, f"a store size left as written: {line}"  # stores of a few episodes
    return code


def run(code: str, here: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`code` run by bash in `here` (made, with its `.venv`), {here} read as its path, in `env` (this process's
    environment unless given); it must exit 0."""
    code = code.replace("{here}", str(here))
    if "make -C" in code and Path(sys.executable).parents[1].resolve() != (ROOT / ".venv").resolve():
        pytest.skip("not run from this checkout's .venv: its Makefile would make that venv first")
    here.mkdir(parents=True, exist_ok=True)
    venv = Path(sys.executable).parents[1]
    if not (here / ".venv").exists():
        (here / ".venv").symlink_to(venv)
    env = env or os.environ
    env = {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-e", "-c", code], cwd=here, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{code}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def complete(out: Path, task: str, n: int) -> bool:
    """`n` items of `task` in OUT's train split, each with its record of checksums (written last)."""
    return all((out / "train" / task / str(i) / "_checksums.json").is_file() for i in range(n))


def table_rows(text: str) -> set[tuple[str, str]]:
    """(split, task) of every row of the audit tables in `text`."""
    return set(re.findall(r"^\| (train|val|test) \| ([\w-]+) \|", text, re.M))
