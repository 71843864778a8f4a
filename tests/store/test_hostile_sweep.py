"""The kept hostile datasets, each run through every command that reads a dataset, as a user handed it would
run them: each run is its own process that may grow by at most 2 GB and take at most 60 s (hostile.mewl),
ends with its exit code and no traceback, prints no raw control character, writes no dataset text as
markup into a page, and leaves the user's folder beside OUT as it was, nothing of it read into an output.
The other hostile tests say what each command answers to each case; this one holds them all to the same
floor, so that a case added here meets every command at once."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from mewl_gen.store.layout import MANIFEST
from mewl_gen.tasks import catalog

from .hostile import World, copy, fake_render, mewl, outside_folder, png_claiming, rerecord, sample

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # a line break and a tab are the terminal's own
INJECTED = "\x1b]0;owned\x07\x1b[2J<script>window.owned=1</script>=HYPERLINK(\"x\")"


def _spoil_text(w: World) -> None:
    """The item's free text (its sentence, its split scheme's name) carrying terminal escapes, markup and a
    formula, its record rewritten to match (a hostile author makes damage look sound): still a readable item,
    so every command shows or writes it."""
    folder = w.item(0)
    item = json.loads((folder / "item.json").read_text())
    item["sentence"] += INJECTED
    item["scheme"] += INJECTED
    (folder / "item.json").write_text(json.dumps(item))
    rerecord(folder)


def _link_item(w: World) -> None:
    w.link(w.item(1), w.outside)


def _link_files(w: World) -> None:
    w.link(w.item(0) / "item.json", w.outside / "0.json")
    w.link(w.item(1) / "image.png", w.outside / "secret.txt")


def _link_bookkeeping(w: World) -> None:
    w.link(w.out / ".mewl", w.outside)


def _fifo(w: World) -> None:
    path = w.item(0) / "image.json"
    path.unlink()
    os.mkfifo(path)


def _foreign(w: World) -> None:
    shutil.copytree(w.item(0), w.item(7))
    shutil.copytree(w.item(1), w.out / "train" / w.task / "007")


def _newline_split(w: World) -> None:
    shutil.copytree(w.out / "train", w.out / "train\n")


def _deep_json(w: World) -> None:
    folder = w.item(1)
    (folder / "image.json").write_text("[" * 100_000)
    rerecord(folder)


def _size_bomb(w: World) -> None:
    folder = w.item(2)
    png_claiming(folder / "image.png", 12_000, 12_000)
    rerecord(folder)


def _broken_manifest(w: World) -> None:
    (w.out / MANIFEST).write_text('{"generator": "\x1b[2J' + "x" * 100 + '", ')


CASES = {"text with escapes and markup": _spoil_text, "an item folder linked outside": _link_item,
         "an item's files linked outside": _link_files, "the bookkeeping folder linked outside": _link_bookkeeping,
         "a FIFO in a file's place": _fifo, "foreign items": _foreign, "a split named with a line break": _newline_split,
         "JSON nested a hundred thousand deep": _deep_json, "an image claiming 12000 pixels a side": _size_bomb,
         "a broken manifest": _broken_manifest}


def _commands(w: World, predictions: Path) -> list[tuple]:
    """Every command that reads a dataset, each writing into its own new folder beside OUT."""
    dest = w.root / "written"
    return [("verify", w.out), ("status", w.out), ("index", w.out), ("audit", w.out), ("eval", w.out, predictions),
            ("text", w.out),
            ("validate", w.item(0) / catalog.task(w.task).model.RECORD_FILE), ("inspect", w.item(0)),
            ("inspect", w.item(0), "--html", dest / "inspect"),
            ("export", w.out, "--to", "webdataset", dest / "webdataset"), ("export", w.out, "--to", "hf", dest / "hf"),
            ("gallery", w.out, "--out", dest / "gallery"),
            ("study", w.out, "--out", dest / "study", "--key", dest / "study.key.json", "--task", w.task, "--split",
             "train", "--items", 2, "--practice", 0, "--catch", 0, "--pilot")]


def _every_command(w: World, predictions: Path) -> None:
    """Each command run on W's hostile OUT: no traceback, within 2 GB and 60 s (hostile.mewl), an exit code of
    its own, nothing raw on the terminal, no markup of the dataset in any page or script written, nothing of
    the folder outside read into what was written, and that folder as it was after every run."""
    (w.root / "written").mkdir()
    w.freeze()
    for command in _commands(w, predictions):
        r = mewl(*command)
        said = r.stdout + r.stderr
        assert r.returncode in (0, 1, 2, 3), (command, r.returncode, said[-2000:])
        assert not CONTROL.search(said), (command, CONTROL.search(said), said[-2000:])
        assert len(r.stderr) < 5000 and all(len(line) < 2000 for line in said.splitlines()), (command, said[-2000:])
        w.untouched()
    w.no_secret_in(w.root / "written")
    for page in (p for p in (w.root / "written").rglob("*") if p.suffix in (".html", ".js") and p.is_file()):
        assert "<script>window.owned" not in page.read_text(encoding="utf-8", errors="replace"), page


def _world_of(root: Path, task: str) -> World:
    """A World of a genuine dataset of `task`, three items, their images made without Blender."""
    w = World.__new__(World)
    w.root, w.task, w.before = root, task, None
    sample(root / "source", task)
    w.out = copy(root / "source", root / "out")
    shutil.rmtree(root / "source")
    fake_render(w.out, task)
    w.outside = outside_folder(root)
    return w


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.slow
def test_every_command_on_a_hostile_dataset_ends_short_escaped_and_touches_nothing_outside(rendered, case):
    w = rendered
    CASES[case](w)
    predictions = w.root / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"split": "train", "task": w.task, "index": i, "answer": True}) + "\n"
                                   for i in range(3)) + json.dumps({"split": INJECTED, "task": w.task, "index": 0}))
    _every_command(w, predictions)
    pages = [p for p in (w.root / "written").rglob("*") if p.suffix in (".html", ".js") and p.is_file()]
    if case == "text with escapes and markup":  # shown, not only refused: the gallery's page holds the text
        assert any("&lt;script&gt;window.owned" in p.read_text(encoding="utf-8") for p in pages)


def _spoiled_everywhere(folder: Path, model) -> int:
    """Every string of the item's record file that its model still takes with escapes, markup and a formula
    appended, so appended (a hostile author's free text, in whatever fields a benchmark has); how many."""
    path = folder / model.RECORD_FILE
    data = json.loads(path.read_text())
    spoiled = 0

    def walk(node):
        nonlocal spoiled
        keys = range(len(node)) if isinstance(node, list) else list(node) if isinstance(node, dict) else ()
        for k in keys:
            if isinstance(node[k], str):
                was, node[k] = node[k], node[k] + INJECTED
                try:
                    model.model_validate(data)
                    spoiled += 1
                except Exception:  # noqa: BLE001 - not taken (how a model refuses is the store's to handle)
                    node[k] = was
            else:
                walk(node[k])

    walk(data)
    path.write_text(json.dumps(data))
    rerecord(folder)
    return spoiled


def _shown_task(benchmark) -> str:
    """A task of the benchmark that every command shows: exported and studied where it has such tasks."""
    return next((t.name for t in benchmark.tasks if t.study is not None and t.export is not None), benchmark.tasks[0].name)


@pytest.mark.parametrize("benchmark", list(catalog.benchmarks()))
@pytest.mark.slow
def test_every_benchmarks_free_text_with_escapes_and_markup_meets_every_command(tmp_path, benchmark):
    """The text case above on an item of every benchmark, in every field its model lets take any text."""
    task = _shown_task(catalog.benchmarks()[benchmark])
    w = _world_of(tmp_path, task)
    assert _spoiled_everywhere(w.item(0), catalog.task(task).model) > 0
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"split": INJECTED, "task": task, "index": 0}) + "\n")
    _every_command(w, predictions)


@pytest.mark.slow
def test_a_concept_naming_a_value_of_no_attribute_meets_every_command(tmp_path):
    """Bongard's reasoning looks up each value its concept names: a value the universe has not (a KeyError in
    the lookup, once) is an answer no solver can give, never a traceback."""
    w = _world_of(tmp_path, next(iter(catalog.benchmarks()["bongard"].tasks)).name)
    item = json.loads((w.item(0) / "item.json").read_text())
    item["concept"]["args"][0][0] = "dodecahedron\x1b[2J"
    (w.item(0) / "item.json").write_text(json.dumps(item))
    rerecord(w.item(0))
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"split": "train", "task": w.task, "index": 0, "answer": True}) + "\n")
    _every_command(w, predictions)
