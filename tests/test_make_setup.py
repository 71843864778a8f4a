"""`make setup` on a checkout whose .venv was made for another one (copied or
moved with it): that venv would run the other checkout's code, so setup says so in one line and stops,
leaving the folder to the user (`make clean-venv setup` makes it again). And what it hands uv, which
installs the packages: what pip is told (indexes, find-links, constraints; tools/uv_from_pip.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def installed_code() -> Path:
    """The checkout whose code this interpreter's install runs, as make reads it (isolated: no PYTHONPATH), which
    is this one's, or another's where a copy of it borrows this venv (tests/tasks/test_adding_a_benchmark.py)."""
    done = subprocess.run([sys.executable, "-I", "-c", "import mewl_gen, pathlib; "
                           "print(pathlib.Path(mewl_gen.__file__).resolve().parents[2])"],
                          capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def dry_setup_of(checkout: Path, target: str = "setup") -> str:
    done = subprocess.run(["make", "-n", target], cwd=checkout, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_venv_made_for_another_checkout_is_named_and_left_to_the_user(tmp_path):
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
    done = subprocess.run(["make", "setup"], cwd=copy, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and (venv / "python").is_file(), done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("make: error:")]
    assert said == [f"make: error: .venv runs the code of {installed_code()}, not of {copy.resolve()}; make "
                    "clean-venv setup makes it again here"], done.stderr
    # What the line says to do works: the venv made again by the Python 3.11 on PATH (here a script that
    # makes a venv of scripts), then its packages installed.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3.11").write_text("#!/bin/sh\n[ \"$1 $2\" = \"-m venv\" ] && mkdir -p .venv/bin && "
                                     "printf '#!/bin/sh\\n' > .venv/bin/python && chmod +x .venv/bin/python\nexit 0\n")
    (fake / "python3.11").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "PY"} | {"PATH": f"{fake}:/usr/bin:/bin"}
    again = subprocess.run(["make", "clean-venv", ".venv/.installed"], cwd=copy, capture_output=True, text=True,
                           timeout=60, env=env)
    assert again.returncode == 0 and (copy / ".venv" / ".installed").is_file(), again.stdout + again.stderr


def test_the_venv_of_this_checkout_is_kept(tmp_path):
    if not (REPO / ".venv" / ".installed").is_file() or Path(sys.prefix).resolve() != (REPO / ".venv").resolve():
        pytest.skip("not run from this checkout's .venv (make setup's): nothing of it to judge")
    assert "makes it again" not in dry_setup_of(REPO)


def uv_flags(tmp_path: Path, config: str | None, **env: str) -> str:
    """What make setup hands uv from pip's configuration (tools/uv_from_pip.py), given a pip config file's
    text (None: no config file at all) and PIP_* variables."""
    config_file = tmp_path / "pip.conf"
    if config is not None:
        config_file.write_text(config)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    done = subprocess.run([sys.executable, str(REPO / "tools" / "uv_from_pip.py")], capture_output=True, text=True,
                          timeout=60,
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


def test_a_venv_that_is_there_keeps_its_interpreter(tmp_path):
    """Made again over itself by another Python 3.11, a venv would link one interpreter and name the other's
    standard library: a changed pyproject.toml reinstalls the packages into the venv, never remakes it. Both
    interpreters here are scripts that note how they were called."""
    copy, bin_ = tmp_path / "copy", tmp_path / "bin"
    (copy / ".venv" / "bin").mkdir(parents=True)
    bin_.mkdir()
    shutil.copy(REPO / "Makefile", copy)
    shutil.copy(REPO / "pyproject.toml", copy)
    calls = tmp_path / "calls"
    for script, name in ((copy / ".venv" / "bin" / "python", "venv"), (bin_ / "python3.11", "other")):
        script.write_text(f"#!/bin/sh\necho \"{name} $*\" >> {calls}\n")
        script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_}:/usr/bin:/bin"}
    env.pop("PY", None)
    done = subprocess.run(["make", ".venv/.installed"], cwd=copy, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    called = calls.read_text().splitlines()
    assert not any("-m venv" in line for line in called), called  # (PYTHON311 is probed, never run)
    assert any(line.startswith("venv -m uv pip install") for line in called), called
