"""The README is a start, and the documentation is what the program does: the five-minute path runs
as written (each block, in order, in a new folder), the documentation site builds with --strict (its
command reference generated from the argument parser), every `mewl` command line of the README and
docs/ parses, the answer lines of docs/eval.md are answers, and no user document names an issue."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mewl_gen.cli.main import build_parser
from mewl_gen.results import answers
from mewl_gen.tasks import catalog
from tests.blocks import blocks, fenced

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
USER_DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.render
def test_the_five_minute_path_runs_as_written_but_for_its_render_quality(tmp_path):
    """Every bash and Python block of the five-minute section, in order, in a new folder; the README's
    `.venv/bin/...` is this checkout's. Its render at preview quality (one sample, no denoiser) instead of the
    page's draft: what the path checks is not pixels, and the images are as large (the batch's shape the same)."""
    section = README.read_text().split("## From nothing to a score")[1].split("\n## ")[0]
    steps = [(lang, code) for lang, code in fenced(section) if lang in ("bash", "python")]
    assert [lang for lang, _ in steps] == ["bash", "bash", "python", "bash", "bash"]
    render, count = re.subn(r"^(\.venv/bin/mewl render .*)--quality draft\b", r"\1--quality preview", steps[0][1],
                            flags=re.M)
    assert count == 1, steps[0][1]
    steps[0] = ("bash", render)
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}
    for lang, code in steps:
        argv = ["bash", "-e", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{code}\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "accuracy.png").stat().st_size > 10_000
    assert (tmp_path / "gallery" / "index.html").is_file()
    assert len((tmp_path / "predictions.jsonl").read_text().splitlines()) == 4


def test_the_five_minute_path_writes_a_folder_of_its_own_that_git_ignores():
    """Its draft dataset and `make render`'s (OUT, at default quality) never share a folder: the first
    `make render` after the path would be refused."""
    section = README.read_text().split("## From nothing to a score")[1].split("\n## ")[0]
    (folder,) = re.findall(r"^\.venv/bin/mewl render .*--out (\S+)$", section, re.M)
    (make_out,) = re.findall(r"^OUT \?= (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert folder != make_out
    assert f"/{folder}/" in (ROOT / ".gitignore").read_text().splitlines()
    for command in ("export", "eval", "gallery"):
        assert re.search(rf"^\.venv/bin/mewl {command} {folder} ", section, re.M), command


def test_the_set_up_commands_are_make_targets():
    first = blocks(README.read_text(), "")[0]
    targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
    for line in first.splitlines():
        command = line.split("#")[0].split()
        assert command[0] == "make" and command[1] in targets, line


@pytest.mark.slow
def test_the_documentation_site_builds_strict(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    commands = (tmp_path / "site" / "commands" / "index.html").read_text()
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in sub.choices:
        assert f"mewl {name}" in commands, name


def test_every_subcommand_says_what_it_does():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        assert parser.description and "%%" not in parser.description, name


def shell_lines(text: str) -> list[str]:
    """The lines of the bash blocks; a line continued with a backslash is one."""
    return [line for block in blocks(text, "bash") for line in block.replace("\\\n", " ").splitlines()]


def mewl_lines(text: str) -> list[str]:
    """Each `mewl ...` command line of the bash blocks, its comment and shell plumbing cut off."""
    found = []
    for line in shell_lines(text):
        line = re.split(r"\s(#|&&|\|\||>)\s?", line)[0].strip()
        if line.startswith(("mewl ", ".venv/bin/mewl ")):
            found.append(line.split("mewl ", 1)[1])
    return found


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_every_mewl_command_line_of_the_docs_parses(doc):
    parser = build_parser()
    for line in mewl_lines(doc.read_text()):
        try:
            parser.parse_args(shlex.split(line))
        except SystemExit:
            pytest.fail(f"{doc.name}: `mewl {line}` does not parse")


@pytest.mark.slow
def test_the_answer_lines_of_the_eval_docs_are_answers():
    text = (ROOT / "docs" / "eval.md").read_text()
    lines = [json.loads(line) for block in blocks(text, "json") for line in block.splitlines()
             if line.startswith('{"key"')]
    assert {catalog.task(line["key"].split("/")[1]).benchmark for line in lines} == set(catalog.benchmarks())
    for line in lines:
        split, task, index = line["key"].split("/")
        item = catalog.sample_item(task, 0, split, int(index))
        answers.judge(catalog.task(task), item, line["answer"])  # raises where the item cannot take it


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_every_make_command_line_of_the_docs_names_a_target_and_the_makefiles_variables(doc):
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    variables = set(re.findall(r"^([A-Z_0-9]+) \?=", (ROOT / "Makefile").read_text(), re.M))
    for line in shell_lines(doc.read_text()):
        if line.startswith("make "):
            words = shlex.split(line.split("#")[0])
            assert words[1] in targets, f"{doc.name}: {line}"
            assert {w.split("=")[0] for w in words[2:]} <= variables, f"{doc.name}: {line}"


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_no_user_document_names_an_issue(doc):
    assert not re.search(r"\bissues? #?\d+|\(#\d+\)", doc.read_text(), re.I), doc.name


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_every_python_block_of_the_docs_compiles(doc):
    """Blocks that need a dataset run in the tests of the README and the cards; the others must at least be
    Python."""
    for code in blocks(doc.read_text(), "python"):
        compile(code, doc.name, "exec")


def test_a_mistyped_task_or_benchmark_gets_a_did_you_mean(mewl):
    for typed, meant in (("malevc-pos", "malevic-pos"), ("bongrd", "bongard"), ("pragmatc", "pragmatic")):
        code, _, err = mewl("sample", "--task", typed, "--n", 1, "--out", "/nonexistent/never-written")
        assert code == 2 and err.count("\n") == 1 and f"did you mean {meant!r}?" in err, err


def test_the_dataset_folder_is_out_in_every_command_and_the_gallerys_old_spelling_works(tmp_path, mewl):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if action.dest == "out":
                assert action.metavar == "OUT", name
    new = build_parser().parse_args(["gallery", "data", "site"])
    old = build_parser().parse_args(["gallery", "data", "--out", "site"])
    assert (new.out, new.dir or new.old_dir) == (old.out, old.dir or old.old_dir) == ("data", "site")
    for argv in (["gallery", "data"], ["gallery", "data", "a", "--out", "b"]):
        code, _, err = mewl(*argv)
        assert code == 2 and err.count("\n") == 1 and "mewl gallery OUT DIR" in err


@pytest.mark.slow
def test_the_icy_pages_metrics_script_prints_the_pages_tables(tmp_path):
    """docs/icy.md's script, run as written in a folder whose `.venv` is this checkout's, prints the two
    tables of the page (synthetic symbols, then eng), row for row."""
    text = (ROOT / "docs" / "icy.md").read_text()
    (script,) = [code for code in blocks(text, "bash") if "metrics_of" in code]
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = re.compile(r"^\| [A-Z]+ \| .* \|$", re.M)
    page = rows.findall(text.split("## Metrics")[1].split("\n## ")[0])
    assert len(page) == 14 and rows.findall(done.stdout) == page


@pytest.mark.slow
def test_the_eval_pages_commands_run_on_a_dataset_of_every_benchmark(tmp_path, mewl):
    """docs/eval.md's commands, run as written by bash in a folder holding OUT (one sampled item of a task of
    each benchmark) and predictions.jsonl (`mewl eval OUT --example`); its JSON has the page's keys and the
    page's paper record among its published rows."""
    text = (ROOT / "docs" / "eval.md").read_text()
    out = tmp_path / "OUT"
    tasks = "pragmatic,malevic-pos-hard,shapeworld-existential,bongard-basic,icy-episodes"
    assert mewl("sample", "--task", tasks, "--n", 1, "--out", out, "--workers", 1)[0] == 0
    code, printed, _ = mewl("eval", out, "--example")
    assert code == 0
    (tmp_path / "predictions.jsonl").write_text(printed)
    (commands,) = blocks(text, "bash")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "MPLBACKEND": "Agg"}
    done = subprocess.run(["bash", "-e", "-c", commands], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "accuracy.pdf").read_bytes().startswith(b"%PDF")
    assert done.stdout.endswith((tmp_path / "predictions.jsonl").read_text())  # the last command, --example

    code, printed, _ = mewl("eval", out, tmp_path / "predictions.jsonl", "--format", "json")
    assert code == 0
    report = json.loads(printed)
    assert list(report) == ["tasks", "overall", "published", "problems"]
    record = next(json.loads(code) for code in blocks(text, "json") if code.startswith('{"kind": "paper"'))
    assert record in report["published"]


def test_the_slurm_pages_script_command_prints_what_the_page_shows(tmp_path):
    """docs/slurm.md's `mewl slurm ... --script render.sbatch` (no --submit: no SLURM needed), run as written
    with OUT in a scratch folder, prints the lines the page shows under it, writes the script and nothing
    into OUT."""
    text = (ROOT / "docs" / "slurm.md").read_text()
    (block,) = [code for code in blocks(text, "") if "--script render.sbatch" in code]
    command, *shown = block.splitlines()
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    out = tmp_path / "shared-mewl"
    done = subprocess.run(["bash", "-e", "-c", command.replace("/shared/mewl", str(out))], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown
    assert (tmp_path / "render.sbatch").read_text().startswith("#!/bin/bash\n") and not out.exists()


@pytest.mark.slow
def test_the_slurm_pages_gres_command_asks_for_the_gpus_as_gres(tmp_path):
    """docs/slurm.md's `--gpu-request gres:TYPE` line, run as written with OUT in a scratch folder (no SLURM
    needed): the script's one GPU request is the line the page shows."""
    text = (ROOT / "docs" / "slurm.md").read_text()
    (block,) = [code for code in blocks(text, "") if "--gpu-request" in code]
    command, *shown = block.splitlines()
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command.replace("/shared/mewl", str(tmp_path / "m"))],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown
