"""`make setup` on a checkout whose .venv was made for another one (copied or
moved with it): that venv would run the other checkout's code, so setup makes it again."""
from __future__ import annotations

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
