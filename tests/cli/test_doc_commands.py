"""The command blocks of docs/ that render, sample, benchmark, audit or submit at a release's size run as
written, except for their sizes. Each block gets a short rewrite, a table of (pattern, replacement) that turns
counts down and renders a preview (one sample, no denoiser) on the CPU; every rule must match, so a page edited past its rule fails here
instead of going unrun. bash then runs the block in a scratch folder whose `.venv` is this checkout's and whose
PATH finds its `mewl`; a `make` line runs this checkout's Makefile with OUT in the scratch folder. Each test
asserts exit 0 and what the page says the block makes.

The `--submit` blocks of slurm.md and reference.md run on the suite's own SLURM cluster (tests/slurm_cluster.py),
which is not the page's site: their partition, GPUs and shared folder are rewritten too, in a group of their own.
scale.md's three `make bench` lines differ only in the sizes they ask for: each, as written, is turned by
`make -n` into the bench's command, which runs in the test up to the sizes it would build; the line that names
its sizes then runs whole at stores of a few episodes (BENCH_OUT puts them in the scratch folder). Not run as written: `tail -f`, which never ends: the
test reads the log once, after the array ended.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mewl_gen.tasks.catalog import sample_item
from tests.blocks import blocks
from tests.slurm_cluster import slurm_cluster  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The rewrite of each block, (pattern, replacement) applied line by line; {root}: this checkout, {here}: the
# scratch folder. A `make` line runs this checkout's Makefile with OUT in the scratch folder, a preview on the CPU.
MAKE = (r"^make ", "make -C {root} OUT={here}/data QUALITY=preview DEVICE=cpu ")
ONE = (r"\bN=\d+\b", "N=1")
PREVIEW = (r"\bQUALITY=draft\b", "QUALITY=preview")  # a page's own draft: what these tests check is not pixels
# A SLURM array at its smallest: one preview episode of one task in one array task.
ARRAY = [(r"--task all --n 2000", "--task shape --n 1 --quality preview"), (r"--array 50\b", "--array 1"),
         (r"--max-parallel 20\b", "--max-parallel 1")]
# Not sizes but a site's own: the page's partition, GPUs and shared folder are its cluster's, not the test
# cluster's (one CPU node, partition `debug`, no GPUs: the page's own `--gpus-per-task 0 --device cpu` for a CPU
# partition); a scratch folder on this machine, the cluster's one node, stands for the shared one.
SITE = [(r"/shared/mewl", "{here}/mewl"), (r"--partition gpu\b", "--partition debug"),
        (r"--gpus-per-task 1\b", "--gpus-per-task 0 --device cpu")]
BENCH_MAKE = (r"^make ", "make -C {root} BENCH_OUT={here}/bench-out DEVICE=cpu ")  # scale.md's, writing in the scratch folder
REWRITES = {  # name: (page, fence, a string of the block, rules)
    "passes": ("passes.md", "bash", "--passes", [
        ONE, MAKE, (r"^(mewl render .*?--n )600", r"\g<1>1 --quality preview --device cpu"),
        (r"^(mewl render-spec scene\.json)", r"\1 --quality preview --device cpu")]),  # `mewl slurm` renders nothing
    "shapeworld": ("shapeworld.md", "bash", "make render", [ONE, PREVIEW, MAKE]),
    "bongard": ("bongard.md", "bash", "make render", [ONE, PREVIEW, MAKE]),
    # One process each (bongard.md's own choice): at two items a task a pool's start is most of a command's time,
    # and what a command writes or prints does not depend on its workers.
    "audit": ("audit.md", "sh", "mewl audit", [(r"--n N_TRAIN\b", "--n 2"), (r"--n N_TEST\b", "--n 2"),
                                               (r"(--out D/\$b|--markdown)$", r"\1 --workers 1")]),
    "bongard audit": ("bongard.md", "bash", "mewl audit", [(r"--n \d+ ", "--n 2 ")]),
    # The line that names its sizes at stores of a few episodes; every line writes in the scratch folder.
    "scale": ("scale.md", "bash", "make bench ONLY=scale", [
        (r"SCALE_SIZES=250,1000\b", "SCALE_SIZES=2,4"), BENCH_MAKE]),
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


# -- shapeworld.md: a benchmark at preview quality, then more of one task in the same folder ---------------------
@pytest.mark.render
def test_the_shapeworld_pages_make_render_lines_render_it_and_then_add_to_one_task(tmp_path):
    done = run(scaled("shapeworld"), tmp_path)
    tasks = ["shapeworld-existential", "shapeworld-relational", "shapeworld-quantification", "shapeworld-logical"]
    assert all(complete(tmp_path / "data", task, 1) for task in tasks)
    (finished,) = re.findall(r"^render finished: .*", done.stderr, re.M)
    assert "done 4, skipped 0" in finished
    assert "render: nothing to do, 1 item(s) already complete" in done.stderr  # the second line, at N=1



@pytest.mark.render
@pytest.mark.slow
def test_the_bongard_pages_make_render_lines_render_every_family_and_then_add_to_one(tmp_path):
    """One problem of each family at preview quality (14 images a problem)."""
    done = run(scaled("bongard"), tmp_path)
    assert all(complete(tmp_path / "data", task, 1) for task in ("bongard-basic", "bongard-abstract", "bongard-freeform"))
    (finished,) = re.findall(r"^render finished: .*", done.stderr, re.M)
    assert "done 3, skipped 0" in finished
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


# -- scale.md: what each make line asks the bench for, then the bench itself at stores of a few episodes ---------
SCALE_PAGE_SIZES = [(1000, 4000, 16000), (1000,), (250, 1000)]  # what the page's comments say each line measures


def bench_argv(line: str, here: Path) -> list[str]:
    """The arguments of `python -m mewl_gen.bench` that this checkout's Makefile runs for a make line (make -n:
    printed, nothing run)."""
    dry = subprocess.run(["bash", "-e", "-c", line.replace("make -C", "make -n --no-print-directory -C").replace("{here}", str(here))],
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    (recipe,) = [cmd for cmd in re.sub(r"\\\n\s*", " ", dry.stdout).splitlines() if " -m mewl_gen.bench " in cmd]
    return shlex.split(recipe.split(" -m mewl_gen.bench ", 1)[1])


def test_the_scale_pages_make_lines_ask_the_bench_for_the_sizes_the_page_says(tmp_path, monkeypatch):
    """Each line as written, QUICK and the default sizes included, turned by the Makefile into the bench's command
    (make -n) and that command run in this process up to the scale benchmark, which is stopped there: the
    stores it would build are the page's. The one line the next test runs is in the same form with smaller sizes,
    so the three lines differ from what is run only in what this test checks."""
    from mewl_gen.bench import scale, suite

    class Asked(Exception):
        pass

    def asked(folder, sizes, *args, **kwargs):
        raise Asked(folder, sizes)

    monkeypatch.setattr(scale, "run", asked)
    pattern, replacement = BENCH_MAKE
    lines = re.sub(pattern, replacement.replace("{root}", str(ROOT)), block("scale.md", "bash", "make bench ONLY=scale"),
                   flags=re.M).splitlines()  # as written, sizes and all: make -n runs nothing
    assert len(lines) == len(SCALE_PAGE_SIZES)
    for line, sizes in zip(lines, SCALE_PAGE_SIZES):
        with pytest.raises(Asked) as stopped:
            suite.main(bench_argv(line, tmp_path))
        assert stopped.value.args == (tmp_path / "bench-out" / "scale", sizes), line


@pytest.mark.render
@pytest.mark.slow
def test_the_scale_pages_line_with_sizes_measures_every_command_on_each_store(tmp_path):
    """`make bench ONLY=scale SCALE_SIZES=...` at stores of 2 and 4 episodes, run whole: the bench renders its 14
    draft images (the suite holds no cached render of them) and runs every store command on each store. The
    other two lines run the same bench with the sizes the test above checks."""
    line = scaled("scale").splitlines()[2]
    done = run(line, tmp_path)
    report = json.loads((tmp_path / "bench-out" / "scale" / "scale.json").read_text())
    assert [row["items"] for row in report["sizes"]] == [2, 4], line
    for row in report["sizes"]:
        assert row["commands"] and all(c["exit"] == 0 for c in row["commands"].values()), row["commands"]
    assert report["pool_images"] == 14 and "reused" in report["note"] and report["note"] in done.stdout
    assert set(report["ratios"]) == set(report["sizes"][0]["commands"])  # largest over smallest
    assert "floor" in report["release"]
    assert (tmp_path / "bench-out" / "bench.json").is_file()
    assert not (tmp_path / "bench-out" / "scale" / "scratch").exists()  # its stores removed


# -- slurm.md and reference.md: submit an array, monitor it, and (reference.md) submit it again -----------
JOB_TIMEOUT = 300  # seconds; each wait on a job is bounded


def commands(code: str) -> list[str]:
    """The block's commands, one a line: continued lines joined, comments and blank lines left out."""
    lines = re.sub(r"\\\n\s*", "", code).splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def submitted(cluster, code: str, here: Path) -> tuple[str, str]:
    """Runs the submit line: SLURM accepted the array and the completion check job is submitted; their ids."""
    done = run(code, here, cluster.env)
    assert re.search(r"^SLURM accepted array job \d+: partition debug", done.stdout, re.M), done.stdout
    array = re.search(r"^submitted array job (\d+); logs in ", done.stdout, re.M).group(1)
    check = re.search(rf"^submitted completion check job (\d+) \(afterany:{array}\b", done.stdout, re.M).group(1)
    return array, check


def ended(cluster, here: Path, array: str, check: str) -> str:
    """Waits on the array and its completion job; the completion job's report, in the log the page names."""
    assert cluster.wait(array, JOB_TIMEOUT) == {f"{array}_0": "COMPLETED"}
    logs = here / "mewl" / "slurm" / "logs"
    states, report = cluster.wait(check, JOB_TIMEOUT), logs / f"complete-{check}.out"
    assert report.is_file() and (logs / f"{array}_0.out").is_file()
    assert states == {check: "COMPLETED"}, report.read_text()
    return report.read_text()


@pytest.mark.render
@pytest.mark.slurm
def test_the_slurm_pages_submit_and_monitor_blocks_run_on_a_cluster(slurm_cluster, tmp_path):
    (submit,) = commands(scaled("slurm submit"))
    array, check = submitted(slurm_cluster, submit, tmp_path)
    monitor = [line.replace("{check}", check).replace("{array}", array) for line in commands(scaled("slurm monitor"))]
    assert [line.split()[0] for line in monitor] == ["squeue", "squeue", "tail", ".venv/bin/mewl"]
    queued = run(monitor[1], tmp_path, slurm_cluster.env)  # the completion job, waiting or (a fast array) done
    assert re.search(rf"^{check} (PENDING Dependency|RUNNING|COMPLETING|COMPLETED)\b", queued.stdout, re.M), queued.stdout
    run(monitor[0], tmp_path, slurm_cluster.env)
    assert "1/1 episodes complete" in ended(slurm_cluster, tmp_path, array, check)
    log = run(monitor[2], tmp_path, slurm_cluster.env).stdout
    assert f"shard 0/1 of {tmp_path / 'mewl'} on " in log  # host, shard, device, then the render
    run(monitor[3], tmp_path, slurm_cluster.env)  # exits 0: every planned episode complete
    assert complete(tmp_path / "mewl", "shape", 1)


@pytest.mark.render
@pytest.mark.slurm
def test_the_reference_pages_slurm_block_submits_monitors_and_resubmits(slurm_cluster, tmp_path):
    lines = commands(scaled("reference slurm"))
    assert [line.split()[:2] for line in lines] == [
        [".venv/bin/mewl", "slurm"], ["squeue", "--me"], ["tail", "{here}/mewl/slurm/logs/{array}_0.out"],
        [".venv/bin/mewl", "status"], [".venv/bin/mewl", "slurm"]]
    array, check = submitted(slurm_cluster, lines[0], tmp_path)
    run(lines[1], tmp_path, slurm_cluster.env)
    assert "1/1 episodes complete" in ended(slurm_cluster, tmp_path, array, check)
    run(lines[2].replace("{array}", array), tmp_path, slurm_cluster.env)
    run(lines[3], tmp_path, slurm_cluster.env)  # exits 0: every planned episode complete
    again = run(lines[4], tmp_path, slurm_cluster.env)  # "the same command", with nothing left to render
    assert again.stdout.startswith("nothing missing"), again.stdout
