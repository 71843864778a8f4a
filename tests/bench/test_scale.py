"""`make bench ONLY=scale`'s plumbing at a tiny size: a store in the real layout that every reader takes as
sound, every command run on it and measured, the ratios, the floor and the extrapolation to the release."""
from __future__ import annotations

import io
import json
import os

import pytest
from PIL import Image

from mewl_gen.bench import scale, scale_report, scale_store
from mewl_gen.store.manifest import read_manifest
from mewl_gen.store.reader import read
from mewl_gen.tasks import catalog
from tests.store.hostile import fake_image


def a_png(shade: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 240), (shade, 90, 200)).save(buffer, "PNG")  # MEWL's scenes are rendered at 320x240
    return buffer.getvalue()


@pytest.fixture(scope="module")
def pool() -> list[scale_store.Image]:
    """Two images standing for a draft render's (no Blender in the fast lane): PNGs of a MEWL scene's size,
    with ground truth as a render writes it (the gallery reads it through its model)."""
    item = catalog.sample_item("shape", 0, "train", 0)
    name, spec = next(iter(item.scenes().items()))
    truth = json.dumps(item.label_image(name, fake_image(spec, name)[0])).encode()
    return [scale_store.Image(a_png(shade), truth) for shade in (10, 200)]


def test_a_bench_store_is_sound_says_its_images_are_reused_and_deals_items_over_the_tasks(tmp_path, pool):
    built = scale_store.build(tmp_path / "out", 20, pool)
    found = read(tmp_path / "out", images=True)
    assert not found.damaged
    assert sum(len(items) for items in found.items.values()) == 20 == built["items"]
    assert {task for _, task in found.items} == set(scale_store.tasks())
    assert "reused" in read_manifest(tmp_path / "out")["bench"]
    assert built["images"] == len(scale_store.pngs(tmp_path / "out")) == scale_store.floor(tmp_path / "out")["images"]
    assert not (tmp_path / "out" / ".staging").exists()


def test_every_command_it_runs_is_one_mewl_accepts(tmp_path):
    from mewl_gen.cli.main import build_parser

    for name, argv in scale.commands(tmp_path / "out", tmp_path, tmp_path / "p.jsonl", 9).items():
        if argv[:2] == ["-m", "mewl_gen"]:
            assert build_parser().parse_args(argv[2:]).func, name
        else:
            compile(argv[1], name, "exec")


def test_the_renders_it_asks_for_are_a_draft_render_mewl_accepts_made_once(tmp_path, monkeypatch):
    """ensure_renders' command, as `mewl render` parses it (tests/cli/test_doc_scale.py runs the bench on a
    renders folder that holds them already, as a second run finds them)."""
    from mewl_gen.cli.main import build_parser

    asked = []
    monkeypatch.setattr(scale_store.subprocess, "run", lambda argv, **kwargs: asked.append(argv))
    assert scale_store.ensure_renders(tmp_path / "renders") == tmp_path / "renders"
    (argv,) = asked
    assert argv[1:3] == ["-m", "mewl_gen"]
    args = build_parser().parse_args(argv[3:])
    assert (args.command, args.task, args.n, args.quality, args.split, args.out) == (
        "render", ",".join(scale_store.RENDERED_TASKS), "1", "draft", "train", tmp_path / "renders")


def test_a_commands_memory_is_its_own_not_the_benchmarks_and_its_exit_is_kept(tmp_path):
    """Linux counts the pages of the process a child was forked from into the child's max RSS: measured from
    the benchmark (which holds a store's items by then), every command read at least the benchmark's size."""
    (tmp_path / "out").mkdir()
    held = bytearray(300 * 2**20)
    held[::4096] = b"x" * len(held[::4096])  # resident: the benchmark's own pages, far above the command's
    grow = "x = bytearray(50 * 2**20); x[::4096] = b'y' * len(x[::4096])"
    found = scale.measure(["-c", grow], tmp_path / "w", tmp_path / "out", tmp_path / "grow.log", dict(os.environ))
    assert 50 * 2**20 < found["max_rss_bytes"] < 150 * 2**20 and found["exit"] == 0 and found["cpu_seconds"] > 0
    for code, exit in (("import sys; sys.exit(3)", 3), ("import os; os.kill(os.getpid(), 9)", -9)):
        assert scale.measure(["-c", code], tmp_path / "w", tmp_path / "out", tmp_path / "c.log", dict(os.environ))["exit"] == exit
    del held


# Measured in a bare interpreter of its own: an xdist worker's other tests leave processes under it (servers,
# renders) that start or end between the two readings, and tree_memory counts them too (a CI run read 64 MB
# where 112 were touched).
MAPPED_AND_HELD = """
import mmap, os, sys
from mewl_gen.bench import scale
path = sys.argv[1]
with open(path, "wb") as f:
    f.write(b"z" * (64 * 2**20))
resident, anonymous = scale.tree_memory(os.getpid())
with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
    touched = sum(mapped[k] for k in range(0, len(mapped), 4096))  # every page of the file resident
    held = bytearray(48 * 2**20)
    held[::4096] = b"y" * len(held[::4096])
    resident_now, anonymous_now = scale.tree_memory(os.getpid())
print(touched, resident_now - resident, anonymous_now - anonymous)
"""


def test_anonymous_memory_counts_what_a_process_allocates_not_the_file_pages_it_maps(tmp_path):
    """An export maps its Arrow files: their pages are resident, yet the page cache's (issue 41)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", MAPPED_AND_HELD, str(tmp_path / "mapped")], capture_output=True,
                         text=True, check=True).stdout
    touched, resident, anonymous = map(int, out.split())
    assert touched == ord("z") * 64 * 2**20 // 4096
    assert resident > 100 * 2**20  # both
    assert 40 * 2**20 < anonymous < 60 * 2**20  # the allocation alone


@pytest.mark.slow
def test_commands_run_on_two_tiny_sizes_and_the_report_holds_ratios_floor_and_release(tmp_path, pool):
    names = ["status", "text", "export webdataset", "gallery"]  # one child each: a few seconds apiece
    report = scale.run(tmp_path, (9, 18), pool=pool, only=names)

    small, large = report["sizes"]
    assert (small["items"], large["items"]) == (9, 18)
    for row in (small, large):
        assert list(row["commands"]) == names
        for name, c in row["commands"].items():
            assert c["exit"] == 0, (name, c["log_tail"])
            assert c["seconds"] > 0 and c["cpu_seconds"] > 0 and c["max_rss_bytes"] > 0
        assert row["commands"]["status"]["bytes_written"] == 0 < row["commands"]["text"]["bytes_written"]
        wds = row["commands"]["export webdataset"]
        assert row["bytes"] < wds["bytes_written"] <= wds["peak_bytes"]  # the images and their JSON, in tar shards
        assert row["commands"]["gallery"]["item_pages"] == row["items"]
        assert row["floor"]["images"] == row["images"] > 0
    assert list(report["ratios"]) == names and set(report["release"]) == {*names, "floor"}
    assert report["release"]["status"]["seconds"] == pytest.approx(
        large["commands"]["status"]["seconds"] / 18 * scale.RELEASE_ITEMS)
    assert "status on the release" in report["verdicts"]
    assert json.loads((tmp_path / "scale.json").read_text())["sizes"][1]["items"] == 18
    assert not (tmp_path / "scratch").exists()  # stores and exports removed


def test_the_verdicts_name_a_command_that_is_not_linear():
    row = lambda n, seconds: {"items": n, "images": 7 * n, "bytes": 1, "load_before": 0.0,
                              "floor": {"seconds": 1.0, "cpu_seconds": 1.0, "images": 7 * n, "seconds_per_image": 0.1},
                              "commands": {"status": {"seconds": seconds, "cpu_seconds": seconds, "max_rss_bytes": 2**20,
                                                      "bytes_written": 0, "peak_bytes": 0}}}
    rows = [row(1000, 1.0), row(16000, 64.0)]
    report = {"sizes": rows, "cores": 2, "ratios": scale.ratios(rows), "release": scale.release(rows[-1])}
    verdicts = scale_report.check(report)
    assert verdicts["status linear"].startswith("MISSED") and "4.00 of linear;" in verdicts["status linear"]
    assert verdicts["status memory flat"].startswith("ok")


@pytest.mark.parametrize("sizes", ["0", "1000,x", "-5", ""])
def test_nonsense_sizes_are_one_line_before_anything_is_written(tmp_path, capsys, sizes):
    from mewl_gen.bench import suite

    with pytest.raises(SystemExit) as stop:
        suite.main(["--only", "scale", "--scale-sizes", sizes, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert "--scale-sizes" in capsys.readouterr().err.splitlines()[-1]
    assert not (tmp_path / "out").exists()
