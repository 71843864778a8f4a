"""The cards say how to load and how to cite, and their code runs: every Python block of the dataset
card (OUT/README.md) of a folder holding several benchmarks, and of the Hugging Face export's card, is
executed as a user would paste it; both cards carry the data's licence, a BibTeX entry for each
benchmark's paper and for the generator, and the features. The export's `croissant.json` is valid
Croissant that `mlcroissant` loads, record for record."""
from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from mewl_gen.cli.main import main
from mewl_gen.store.card import DATA_LICENSE, GENERATOR_BIBTEX
from mewl_gen.tasks import catalog
from tests.blocks import blocks
from tests.conftest import rendered_all


@pytest.fixture(scope="module")
def several(tmp_path_factory) -> tuple[Path, Path]:
    """The session's render (every benchmark in one folder) and its Hugging Face export."""
    root = tmp_path_factory.mktemp("cards")
    out = root / "data"
    shutil.copytree(rendered_all(), out)
    assert main(["export", str(out), "--to", "hf", str(root / "hf")]) == 0
    assert main(["export", str(out), "--to", "webdataset", str(root / "wds")]) == 0
    return out, root / "hf"


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


def test_a_sampled_datasets_card_code_runs(monkeypatch, tmp_path):
    """A dataset sampled without images (specs only), of MEWL and another benchmark: each block reads it."""
    out = tmp_path / "data"
    assert main(["sample", "--task", "pragmatic,malevic-pos", "--n", "2", "--out", str(out), "--workers", "1"]) == 0
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


@pytest.mark.slow
@pytest.mark.render  # reads the session's render
def test_croissant_metadata_is_valid_and_loads_every_record(several):
    import datasets
    import mlcroissant

    _, hf = several
    dataset = mlcroissant.Dataset(jsonld=str(hf / "croissant.json"))
    assert "error" not in dataset.metadata.ctx.issues.report().lower()
    sets = {rs.name for rs in dataset.metadata.record_sets}
    assert sets == {p.name for p in (hf / "data").iterdir()}
    for name in sorted(sets):
        want = datasets.load_from_disk(str(hf / "disk" / name))
        want_rows = {r["key"]: r for split in want.values() for r in split.select_columns(
            [c for c in ("key", "label") if c in split.column_names])}
        got = list(itertools.islice(dataset.records(record_set=name), len(want_rows) + 1))
        assert len(got) == len(want_rows), name
        for record in got:
            key = record[f"{name}/key"].decode()
            assert key in want_rows
            if "label" in want_rows[key]:
                assert record[f"{name}/label"] == want_rows[key]["label"]
    assert json.loads((hf / "croissant.json").read_text())["license"].startswith("https://creativecommons.org/")
