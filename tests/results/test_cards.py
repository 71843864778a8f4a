"""The cards say how to load and how to cite, and their code runs: every Python block of the dataset
card (OUT/README.md) of a folder holding several benchmarks, and of the Hugging Face export's card, is
executed as a user would paste it; both cards carry the data's licence, a BibTeX entry for each
benchmark's paper and for the generator, and the features. An export stands alone: its cards say what
every column holds and what every class's values mean, and link nowhere it does not carry. The export's
`croissant.json` is Croissant that `mlcroissant` loads with nothing to warn of, record for record, its
images among them. Those export checks read a painted dataset: every task's items sampled, each image a
plain PNG of its camera's size (no Blender)."""
from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

import re

from PIL import Image

from mewl_gen.store.card import DATA_LICENSE, GENERATOR_BIBTEX
from mewl_gen.store.reader import read
from mewl_gen.store.record import write_record
from mewl_gen.tasks import catalog
from tests.blocks import blocks
from tests.conftest import rendered_all, run_mewl


@pytest.fixture(scope="module")
def several(tmp_path_factory) -> tuple[Path, Path]:
    """The session's render (every benchmark in one folder) and its Hugging Face export."""
    root = tmp_path_factory.mktemp("cards")
    out = root / "data"
    shutil.copytree(rendered_all(), out)
    assert run_mewl("export", out, "--to", "hf", root / "hf") == 0
    assert run_mewl("export", out, "--to", "webdataset", root / "wds") == 0
    return out, root / "hf"


PAINT = (120, 30, 200)  # every painted pixel


@pytest.fixture(scope="module")
def painted(tmp_path_factory) -> tuple[Path, Path, Path]:
    """One item of every task, sampled, each image painted at its camera's size with its ground truth beside
    it, as the reader takes a rendered item; its Hugging Face and WebDataset exports."""
    root = tmp_path_factory.mktemp("painted")
    out = root / "data"
    assert run_mewl("sample", "--task", "all", "--n", 1, "--out", out, "--workers", 1) == 0
    for items in read(out).items.values():
        for stored in items:
            for scene, spec in stored.item().scenes().items():
                Image.new("RGB", (spec.camera.width, spec.camera.height), PAINT).save(stored.folder / f"{scene}.png")
                (stored.folder / f"{scene}.json").write_text(json.dumps({"objects": []}))
            write_record(stored.folder)
    assert run_mewl("export", out, "--to", "hf", root / "hf") == 0
    assert run_mewl("export", out, "--to", "webdataset", root / "wds") == 0
    return out, root / "hf", root / "wds"


def benchmarks_of(out: Path) -> list:
    names = {catalog.task(p.name).benchmark for p in (out / "train").iterdir() if p.is_dir()}
    return [b for b in catalog.BENCHMARKS if b.name in names]


def run_blocks(card: str, folders: dict[str, Path], monkeypatch, tmp_path) -> int:
    """Execute each Python block of a card with its placeholder folders ("OUT", "DIR") filled in; how many ran."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    found = blocks(card, "python")
    for code in found:
        for placeholder, folder in folders.items():
            code = code.replace(f'"{placeholder}', f'"{folder}')
        exec(compile(code, "<card>", "exec"), {})
    return len(found)


@pytest.mark.slow
@pytest.mark.render  # reads the session's render
def test_the_dataset_cards_code_runs_in_a_folder_of_several_benchmarks(several, monkeypatch, tmp_path):
    out, _ = several
    assert len(benchmarks_of(out)) > 1
    assert run_blocks((out / "README.md").read_text(), {"OUT": out}, monkeypatch, tmp_path) >= 2


@pytest.mark.render  # reads the session's render
def test_the_export_cards_code_runs(several, monkeypatch, tmp_path):
    """Its own blocks read the export (DIR); those of the rendered dataset's card under it read OUT."""
    out, hf = several
    assert run_blocks((hf / "README.md").read_text(), {"DIR": hf, "OUT": out}, monkeypatch, tmp_path) >= 3


@pytest.mark.render  # reads the session's render
def test_the_webdataset_cards_code_runs(several, monkeypatch, tmp_path):
    out, hf = several
    assert run_blocks((hf.parent / "wds" / "README.md").read_text(), {"DIR": hf.parent / "wds", "OUT": out},
                      monkeypatch, tmp_path) >= 3


def test_a_sampled_datasets_card_code_runs(monkeypatch, tmp_path, mewl):
    """A dataset sampled without images (specs only), of MEWL and another benchmark: each block reads it."""
    out = tmp_path / "data"
    assert mewl("sample", "--task", "pragmatic,malevic-pos", "--n", 2, "--out", out, "--workers", 1)[0] == 0
    assert run_blocks((out / "README.md").read_text(), {"OUT": out}, monkeypatch, tmp_path) == 2


@pytest.mark.parametrize("card", ["OUT/README.md", "DIR/README.md", "webdataset DIR/README.md"])
@pytest.mark.render  # reads the session's render
def test_every_card_carries_a_licence_a_citation_per_paper_and_the_features(several, card):
    out, hf = several
    folder = out if card.startswith("OUT") else hf if card.startswith("DIR") else hf.parent / "wds"
    text = (folder / "README.md").read_text()
    assert "## Licence" in text and DATA_LICENSE in text and "## Features" in text
    bibtex = "\n".join(blocks(text, "bibtex"))
    for bench in benchmarks_of(out):
        assert bench.card.bibtex and bench.card.bibtex in bibtex, bench.name
    assert GENERATOR_BIBTEX in bibtex
    assert bibtex.count("{") == bibtex.count("}")
    if card.startswith("DIR"):
        assert text.startswith("---\nlicense: cc-by-4.0\n")


def table(card: str, head: str) -> dict[str, str]:
    """The card's table whose header row starts with `head`: first cell -> last cell."""
    rows = card.split(head, 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return {cells[1].strip(): cells[-2].strip() for cells in (row.split("|") for row in rows)}


@pytest.mark.slow
def test_every_column_of_an_exports_cards_says_what_it_holds_and_every_class_value_what_it_means(painted):
    _, hf, wds = painted
    features = table((hf / "README.md").read_text(), "| column | type | what |")
    fields = table((wds / "README.md").read_text(), "| field | type | what |")
    exported = [t for t in catalog.tasks().values() if t.export is not None]
    for task in exported:
        for name, column in task.export.columns.items():
            for said in (features[f"{name} ({task.name})"], fields[f"`{name}` ({task.name})"]):
                assert said.startswith(("the answer: " if name == task.export.answer else "") + column.what)
                if column.kind == "class":  # "label": 0 is a number until the card names it
                    named = column.classes != tuple(str(i) for i in range(len(column.classes)))
                    values = ", ".join(f"{i} = {c}" for i, c in enumerate(column.classes)) if named else "0 to 4"
                    assert said.endswith(f"({values})"), said
    assert features["label (malevic-pos)"].endswith("(0 = false, 1 = true)")
    assert fields["`label` (bongard-basic)"].endswith("(0 = test_a, 1 = test_b)")
    for name in ("key", "split", "task", "index", "images", "panels", "utterances", "truths", "files"):
        assert features[name], name
    assert all(what for what in [*features.values(), *fields.values()])


@pytest.mark.slow
def test_an_exports_cards_link_only_to_what_resolves_where_they_are_published(painted):
    """A card is read on a hub or in the export's folder, neither of which holds mewl-gen's docs/: a link is an
    absolute URL or a heading of the card itself, and no file of the checkout is named as a reference."""
    _, hf, wds = painted
    for card in (hf / "README.md", wds / "README.md"):
        text = card.read_text()
        assert "MALeViC" in text  # the rendered dataset's own card, under the export's
        for target in re.findall(r"\]\(([^)]*)\)", text):
            assert target.startswith(("https://", "http://", "#")), f"{card}: {target}"
        assert not re.search(r"\bdocs/", text), f"{card}: {re.search(r'.{60}docs/.{20}', text).group()}"


@pytest.mark.slow
def test_croissant_metadata_is_valid_without_a_warning_and_loads_every_record_with_its_images(painted):
    import datasets
    import mlcroissant

    _, hf, _ = painted
    metadata = json.loads((hf / "croissant.json").read_text())
    assert metadata["license"].startswith("https://creativecommons.org/")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", metadata["datePublished"])
    dataset = mlcroissant.Dataset(jsonld=str(hf / "croissant.json"))
    assert not dataset.metadata.ctx.issues.errors and not dataset.metadata.ctx.issues.warnings
    sets = {rs.name for rs in dataset.metadata.record_sets}
    assert sets == {p.name for p in (hf / "data").iterdir()}
    columns = {rs["name"]: [field["name"] for field in rs["field"]] for rs in metadata["recordSet"]}
    for record_set in metadata["recordSet"]:
        assert all(field["description"] for field in record_set["field"]), record_set["name"]
    for name in sorted(sets):
        want = datasets.load_from_disk(str(hf / "disk" / name))
        assert sorted(columns[name]) == sorted(next(iter(want.values())).column_names)  # every column, described
        want_rows = {r["key"]: r for split in want.values() for r in split.select_columns(
            [c for c in ("key", "label", "panels") if c in split.column_names])}
        got = list(itertools.islice(dataset.records(record_set=name), len(want_rows) + 1))
        assert len(got) == len(want_rows), name
        for record in got:
            key = record[f"{name}/key"].decode()
            assert key in want_rows
            if "label" in want_rows[key]:
                assert record[f"{name}/label"] == want_rows[key]["label"]
            images = record[f"{name}/images"]  # each a PNG decoded, in panel order
            assert len(images) == len(want_rows[key]["panels"]) and images[0].getpixel((0, 0)) == PAINT, key
