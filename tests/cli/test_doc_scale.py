"""docs/scale.md's `make bench ONLY=scale` lines: what each asks the bench for (make -n, nothing built), then the
line that names its sizes run whole at one store of 2 episodes (tests/cli/docs_blocks.py says how a block is
rewritten and run)."""
from __future__ import annotations

import json
import logging
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.docs_blocks import BENCH_MAKE, ROOT, block, run, scaled
from tests.conftest import rendered_all

SCALE_PAGE_SIZES = [(1125, 4000, 16000), (1125,), (250, 1000)]  # what the page's comments say each line measures


def bench_argv(line: str, here: Path) -> list[str]:
    """The arguments of `python -m mewl_gen.bench` that this checkout's Makefile runs for a make line (make -n:
    printed, nothing run)."""
    line = line.replace("make -C", "make -n --no-print-directory -C").replace("{here}", str(here))
    dry = subprocess.run(["bash", "-e", "-c", line], capture_output=True, text=True, timeout=60)
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
    render_log = logging.getLogger("render")  # the bench adds a filter to it: this process's other tests keep theirs
    monkeypatch.setattr(render_log, "filters", list(render_log.filters))
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
def test_the_scale_pages_line_with_sizes_measures_every_command_on_a_store(tmp_path):
    """`make bench ONLY=scale SCALE_SIZES=...` ("any sizes", the page says) at one store of 2 episodes, run whole:
    the bench takes its 14 images from its renders folder, runs every store command on the store and
    extrapolates to the release. The other two lines run the same bench with the sizes the test above checks;
    the ratios of a larger store to a smaller are tests/bench/test_scale.py's, on two tiny sizes. The renders
    folder holds the session's preview render of the same tasks (another seed's items, another quality: the
    bench copies their files and reads no pixel), as a second run of the bench finds its first run's draft
    render (the command that renders them is tests/bench/test_scale.py's)."""
    from mewl_gen.bench import scale, scale_store
    from mewl_gen.store.manifest import MANIFEST

    shared, renders = rendered_all(), tmp_path / "bench-out" / "scale" / "renders"
    (renders / scale_store.SPLIT).mkdir(parents=True)
    shutil.copy(shared / MANIFEST, renders)
    for task in scale_store.RENDERED_TASKS:
        shutil.copytree(shared / scale_store.SPLIT / task, renders / scale_store.SPLIT / task)
    line = scaled("scale").splitlines()[2]
    done = run(line, tmp_path)
    report = json.loads((tmp_path / "bench-out" / "scale" / "scale.json").read_text())
    assert [row["items"] for row in report["sizes"]] == [2], line
    (row,) = report["sizes"]
    assert list(row["commands"]) == list(scale.commands(Path(), Path(), Path(), 2))  # every store command
    assert all(c["exit"] == 0 for c in row["commands"].values()), row["commands"]
    assert report["pool_images"] == 14 and "reused" in report["note"] and report["note"] in done.stdout
    assert report["ratios"] == {}  # one size: nothing to compare
    assert set(report["release"]) == {*row["commands"], "floor"}
    assert (tmp_path / "bench-out" / "bench.json").is_file()
    assert not (tmp_path / "bench-out" / "scale" / "scratch").exists()  # its stores removed
