"""`make setup` on a checkout whose .venv was made for another one (copied or
moved with it): that venv would run the other checkout's code, so setup makes it again. And what it
hands uv, which installs the packages: what pip is told (indexes, find-links, constraints)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def dry_setup(checkout: Path) -> str:
    done = subprocess.run(["make", "-n", "setup"], cwd=checkout, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_venv_made_for_another_checkout_is_made_again(tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(REPO / "Makefile", copy)
    shutil.copy(REPO / "pyproject.toml", copy)
    venv = copy / ".venv" / "bin"
    venv.mkdir(parents=True)
    # This test's interpreter, whose `cli` is this checkout's: what a copied .venv runs.
    (venv / "python").write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    (venv / "python").chmod(0o755)
    (copy / ".venv" / ".installed").touch()  # newer than pyproject.toml: nothing else to redo
    plan = dry_setup(copy)
    assert f"runs the code of {REPO}, not of {copy.resolve()}: making it again here" in plan, plan
    assert "rm -rf .venv" in plan and "-m venv .venv" in plan


def test_the_venv_of_this_checkout_is_kept(tmp_path):
    if not (REPO / ".venv" / ".installed").is_file() or Path(sys.prefix).resolve() != (REPO / ".venv").resolve():
        pytest.skip("not run from this checkout's .venv (make setup's): nothing of it to judge")
    assert "making it again" not in dry_setup(REPO)


def uv_flags(tmp_path: Path, config: str | None, **env: str) -> str:
    """What make setup hands uv from pip's configuration (the Makefile's UV_FROM_PIP), given a pip config
    file's text (None: no config file at all) and PIP_* variables."""
    text = (REPO / "Makefile").read_text()
    code = text.split("define UV_FROM_PIP\n")[1].split("\nendef")[0].replace("$$", "$")  # as make exports it
    config_file = tmp_path / "pip.conf"
    if config is not None:
        config_file.write_text(config)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**clean, "PIP_CONFIG_FILE": str(config_file) if config is not None else os.devnull, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_uv_is_handed_what_pip_is_told_and_nothing_without_it(tmp_path):
    assert uv_flags(tmp_path, None) == ""
    config = "[global]\nextra-index-url = file:///a/simple file:///b/simple\nfind-links = /wheels\nconstraint = /c.txt\n"
    assert uv_flags(tmp_path, config).split() == [
        "--extra-index-url=file:///a/simple", "--extra-index-url=file:///b/simple", "--find-links=/wheels",
        "--constraint=/c.txt", "--index-strategy=unsafe-best-match"]
    # pip's variables win over its files, as they do for pip.
    assert uv_flags(tmp_path, config, PIP_FIND_LINKS="/mine").split()[2] == "--find-links=/mine"
    assert uv_flags(tmp_path, None, PIP_INDEX_URL="https://mirror/simple").split() == [
        "--index-url=https://mirror/simple", "--index-strategy=unsafe-best-match"]
