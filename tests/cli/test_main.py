"""`mewl` as a process: its version, `python -m mewl_gen.cluster`, and a reader that
stops early (`mewl ... | head`) ending it quietly, through real pipes."""
from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from mewl_gen.scenes.spec import GENERATOR_VERSION
from tests.command import MEWL, mewl_here


def test_version_names_the_generator_and_its_blender():
    done = mewl_here("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(f"{GENERATOR_VERSION} (bpy {metadata.version('bpy')}, Python 3.11")
    # the version in the specs is the installed package's
    assert GENERATOR_VERSION == f"mewl-gen {metadata.version('mewl-gen')}"


@pytest.mark.slow
def test_python_dash_m_cluster_is_mewl():
    done = subprocess.run([sys.executable, "-m", "mewl_gen", "schema"], capture_output=True, text=True)
    assert done.returncode == 0 and '"title": "Episode"' in done.stdout
    done = subprocess.run([sys.executable, "-m", "mewl_gen", "nonsense"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("mewl: error: ") and done.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def episode_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("data")
    done = mewl_here("sample", "--task", "object", "--n", 1, "--out", out, "--workers", 1)
    assert done.returncode == 0, done.stderr
    return out / "train" / "object" / "0"


def commands(folder: Path) -> list[list[str]]:
    return [["schema"], ["inspect", str(folder)], ["validate", str(folder)]]


@pytest.mark.parametrize("index", range(3), ids=["schema", "inspect", "validate"])
def test_a_reader_that_is_gone_ends_the_command_quietly(episode_folder, index):
    """The pipe's read end is closed before mewl writes: every write fails."""
    argv = commands(episode_folder)[index]
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([*MEWL, *argv], stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert done.stderr == "", done.stderr
    assert done.returncode == 141  # as a shell reports a program ended by SIGPIPE


@pytest.mark.parametrize("index", range(2), ids=["schema", "inspect"])
def test_piping_into_head_prints_the_first_line_and_nothing_else(episode_folder, index):
    argv = " ".join(f"'{a}'" for a in commands(episode_folder)[index])
    done = subprocess.run(f"'{MEWL[0]}' {argv} | head -1", shell=True, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.count("\n") == 1


def test_a_broken_pipe_of_our_own_is_still_a_bug(monkeypatch, mewl):
    """Only the reader of stdout going away is quiet; a worker's pipe breaking is not."""
    from mewl_gen.cli import specs

    def worker_pipe_breaks(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(specs, "cmd_schema", worker_pipe_breaks)
    with pytest.raises(BrokenPipeError):
        mewl("schema")
