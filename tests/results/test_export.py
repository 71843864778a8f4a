"""`mewl export`: a rendered dataset round-trips through the field's own loaders (Hugging Face
`datasets`, offline, and `webdataset`): every image's bytes and every answer come back as they
were written; damaged and unfinished items are named and left out (or refused with --strict);
a user's mistake is one line and writes nothing."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mewl_gen.errors import UserError
from mewl_gen.results import export, export_wds, mapped
from mewl_gen.store.reader import read
from mewl_gen.tasks import catalog
from tests.conftest import rendered_all


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """The session's preview render of every task (one item each), the exportable tasks only."""
    out = tmp_path_factory.mktemp("export") / "data"
    shutil.copytree(rendered_all(), out)
    for task in (out / "train").iterdir():
        if task.is_dir() and catalog.task(task.name).export is None:
            shutil.rmtree(task)
    return out


def expected(out: Path) -> dict[str, dict]:
    """key -> the item's images (bytes, in panel order), its fields and its files, from the folder."""
    found = {}
    for (split, task), items in read(out, images=True).items.items():
        export = catalog.task(task).export
        for stored in items:
            item = stored.item()
            shown = export.panels(item)
            found[f"{split}/{task}/{stored.index:06d}"] = {
                "images": [(stored.folder / f"{scene}.png").read_bytes() for _, scene, _ in shown],
                "panels": [m for m, _, _ in shown], "fields": export.fields(item), "solution": item.solution(),
                "truths": [stored.truth(scene) for _, scene, _ in shown],
                "record": json.loads((stored.folder / stored.model.RECORD_FILE).read_text())}
    return found


@pytest.mark.render
def test_every_exportable_task_has_an_item_in_the_fixture(rendered):
    exportable = {t.name for t in catalog.tasks().values() if t.export is not None}
    assert {p.name for p in (rendered / "train").iterdir() if p.is_dir()} == exportable


@pytest.mark.render
def test_hf_export_loads_offline_with_every_image_byte_and_answer(rendered, tmp_path, monkeypatch, mewl):
    import datasets

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    # Each task's Arrow cache has its pages let go of while it is written out (results.mapped), which is
    # safe only while its mapping lives: every pass over a task's cache sees the same one mapping.
    passes: dict[str, list] = {}
    let_go = mapped.let_go
    monkeypatch.setattr(mapped, "let_go", lambda folder: (passes.setdefault(str(folder), []).append(
        frozenset(mapped.mappings(folder))), let_go(folder)))
    dest = tmp_path / "hf"
    assert mewl("export", rendered, "--to", "hf", dest)[0] == 0
    if sys.platform == "linux":  # /proc/self/maps lists the mappings
        assert passes and all(len(set(seen)) == 1 and len(seen[0]) == 1 for seen in passes.values()), passes
    want = expected(rendered)
    card = (dest / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0\nconfigs:\n") and "\n---\n" in card
    seen = 0
    for task in sorted({key.split("/")[1] for key in want}):
        export = catalog.task(task).export
        loaded = datasets.load_dataset(str(dest), task, cache_dir=str(tmp_path / "cache"))
        on_disk = datasets.load_from_disk(str(dest / "disk" / task))
        for ds in (loaded["train"], on_disk["train"]):
            for name, column in export.columns.items():
                if column.kind == "class":
                    assert ds.features[name].names == list(column.classes)
            rows = ds.cast_column("images", datasets.List(datasets.Image(decode=False)))
            for r in rows:
                w = want[r["key"]]
                assert [im["bytes"] for im in r["images"]] == w["images"], r["key"]
                assert r["panels"] == w["panels"]
                assert {k: r[k] for k in w["fields"]} == w["fields"]
                assert json.loads(json.loads(r["files"])[catalog.task(task).model.RECORD_FILE]) == w["record"]
                seen += 1
    assert seen == 2 * len(want)


@pytest.mark.render
def test_webdataset_export_reads_back_unchanged_and_is_the_same_bytes_every_time(rendered, tmp_path, mewl):
    import webdataset

    first, second = tmp_path / "a", tmp_path / "b"
    for dest in (first, second):
        assert mewl("export", rendered, "--to", "webdataset", dest, "--shard-size", "1")[0] == 0
    shards = sorted(p.relative_to(first) for p in first.rglob("*.tar"))
    assert shards == sorted(p.relative_to(second) for p in second.rglob("*.tar"))
    assert all((first / s).read_bytes() == (second / s).read_bytes() for s in shards)
    want = expected(rendered)
    got = {}
    urls = [str(first / s) for s in shards]
    for sample in webdataset.WebDataset(urls, shardshuffle=False, empty_check=False):
        meta = json.loads(sample["json"])
        w = want[sample["__key__"]]
        assert [sample[f"{m}.png"] for m in meta["panels"]] == w["images"]
        assert {k: meta[k] for k in w["fields"]} == w["fields"]
        assert meta["files"][catalog.task(meta["task"]).model.RECORD_FILE] == w["record"]
        assert [json.loads(sample[f"{m}.json"]) for m in meta["panels"]] == w["truths"]  # each its own member
        assert "truths" not in meta
        got[sample["__key__"]] = meta
    assert sorted(got) == sorted(want)


@pytest.mark.render
def test_a_damaged_item_is_named_and_left_out_or_refused_with_strict(rendered, tmp_path, mewl):
    out = tmp_path / "data"
    shutil.copytree(rendered, out)
    png = next((out / "train" / "shape" / "0").glob("*.png"))
    png.write_bytes(png.read_bytes()[:-1] + b"\0")  # same size, other bytes
    code, _, err = mewl("export", out, "--to", "webdataset", tmp_path / "strict", "--strict")
    assert code == 2 and err.count("\n") == 1 and "train/shape/0" in err and "--strict" in err
    assert not (tmp_path / "strict").exists()

    (out / "train" / "malevic-pos1" / "0" / "_checksums.json").unlink()  # as if still rendering
    code, _, err = mewl("export", out, "--to", "webdataset", tmp_path / "wds")
    assert code == 0
    err = err.splitlines()
    assert "left out 2 damaged or incomplete item(s): train/malevic-pos1/0" in err[0]
    unexported = sum(t.export is None for t in catalog.tasks().values())  # their plans stand, their folders gone
    # each item counted once: the two damaged ones are not also "not complete yet"
    assert err[1:] == ([f"mewl export: {unexported} planned item(s) are not complete yet and are not exported; "
                        "`mewl status OUT` names them"] if unexported else [])
    names = {p.name for p in (tmp_path / "wds" / "train").iterdir()}
    assert "shape-000000.tar" not in names and "malevic-pos1-000000.tar" not in names and len(names) > 10


@pytest.mark.render
def test_mistakes_are_one_line_and_nothing_is_overwritten(rendered, tmp_path, mewl):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep")
    sampled = tmp_path / "sampled"
    assert mewl("sample", "--task", "color", "--n", 2, "--out", sampled, "--workers", 1)[0] == 0
    for argv, message in [
        (["export", rendered, "--to", "hf", taken], "exists and is not an empty folder"),
        (["export", rendered, "--to", "webdataset", tmp_path / "x", "--shard-size", 0], "--shard-size 0"),
        (["export", rendered, "--to", "hf", rendered / "inside"], "inside"),
        (["export", sampled, "--to", "hf", tmp_path / "y"], "sampled items without images"),
        (["export", tmp_path / "nothing", "--to", "hf", tmp_path / "z"], "is not a folder"),
        (["export", rendered, "--to", "csv", tmp_path / "w"], "invalid choice: 'csv'"),
    ]:
        code, _, err = mewl(*argv)
        assert code == 2, argv
        assert err.count("\n") == 1 and message in err, (argv, err)
    assert [p.name for p in taken.iterdir()] == ["mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sampled", "taken"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.integers(0, 4))
def test_a_truths_text_compacted_is_what_json_gives_of_its_value(value, indent):
    """An image's ground truth goes into both exports as json.dumps of its value; the export re-spaces the file's
    text instead of parsing and writing it again: the same text for any file json.dumps wrote with an indent."""
    from mewl_gen.results.export import compact_json

    assert compact_json(json.dumps(value, indent=indent)) == json.dumps(value)


def test_a_folder_that_cannot_be_made_is_one_line_before_any_item_is_read(tmp_path, monkeypatch, mewl):
    """A new folder inside a file (a typo in its path): export, gallery and study say so before they read an
    item, not after verifying every image of a release."""
    from mewl_gen.store import reader

    def read_nothing(*args, **kwargs):
        raise AssertionError("the dataset was read before the folder to write was checked")

    monkeypatch.setattr(reader, "read", read_nothing)
    out, file = tmp_path / "out", tmp_path / "a-file"
    out.mkdir()
    file.write_text("mine")
    for argv in (["export", out, "--to", "hf", file / "x"],
                 ["export", out, "--to", "webdataset", file / "x"],
                 ["gallery", out, file / "x"],
                 ["study", out, "--out", file / "x"]):
        code, _, err = mewl(*argv)
        assert code == 2, argv
        assert err == f"mewl: error: cannot create {file / 'x'}: {file} is not a folder\n", (argv, err)
    assert file.read_text() == "mine" and list(out.iterdir()) == []


@pytest.mark.render
def test_a_full_disk_leaves_no_half_export(rendered, tmp_path, monkeypatch, mewl):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "wds"))

    monkeypatch.setattr(export_wds, "sample", full)
    code, _, err = mewl("export", rendered, "--to", "webdataset", tmp_path / "wds")
    assert code == 2
    error = [line for line in err.splitlines() if line.startswith("mewl: error:")]
    assert len(error) == 1 and "no space left" in error[0]
    assert list(tmp_path.iterdir()) == []


def test_the_key_has_no_dot_and_sorts_as_the_index():
    from mewl_gen.results.export import safe_key
    from mewl_gen.tasks.stored import StoredItem

    keys = [safe_key(StoredItem("test", "malevic-pos1", i, Path("."), object)) for i in (2, 10, 100)]
    assert keys == sorted(keys) and all("." not in k for k in keys)
    assert hashlib.sha256(keys[0].encode()).hexdigest()  # a str key, as webdataset wants


def test_the_staging_folder_beside_dir_is_new_and_unguessable(tmp_path):
    """Every command writing a DIR (export, gallery, inspect --html, study, study score) stages it beside DIR:
    in a folder it makes itself, exclusively, under a name no one could have planted a link at beforehand,
    private while it is built and as a plain mkdir leaves it once published."""
    from mewl_gen.store.new_folder import NewFolder

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("kept")
    dest = tmp_path / "site"
    (tmp_path / f".site.partial-{os.getpid()}").symlink_to(outside)  # the name it once had
    first, second = NewFolder(dest), NewFolder(dest)
    assert first.name != second.name
    beside = [tmp_path / f.name for f in (first, second)]
    assert all(p.is_dir() and not p.is_symlink() and p.name.startswith(".site.partial-") for p in beside)
    assert all(p.stat().st_mode & 0o777 == 0o700 for p in beside)  # no one else writes in it while it is built
    with first as root:
        (root / "index.html").write_text("page")
    with pytest.raises(RuntimeError), second as root:
        (root / "half.html").write_text("half")
        raise RuntimeError("killed half-way")
    assert (dest / "index.html").read_text() == "page" and not beside[1].exists()
    assert dest.stat().st_mode & 0o777 == 0o777 & ~current_umask()  # a plain mkdir's: DIR can be served
    assert sorted(p.name for p in outside.iterdir()) == ["keep"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["outside", "site", f".site.partial-{os.getpid()}"])


def test_a_staging_folder_renamed_away_meanwhile_still_gets_every_byte_and_dir_is_not_made(tmp_path):
    """Whoever may rename entries in DIR's parent can move the staging folder's name and leave a link there:
    the writes still reach the folder this process holds (its root names the held folder, not its name),
    nothing reaches the link's target, and DIR is refused in one line rather than made from the link."""
    from mewl_gen.store.files import make_folder, write_atomic
    from mewl_gen.store.new_folder import NewFolder

    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "site"
    made = NewFolder(dest, "write the gallery")
    with pytest.raises(UserError, match="moved or replaced while this command wrote it; .*site was not made"):
        with made as root:
            moved = tmp_path / "moved"
            (tmp_path / made.name).rename(moved)
            (tmp_path / made.name).symlink_to(outside)
            make_folder(root, root / "train" / "shape")
            write_atomic(root, root / "train" / "shape" / "0.html", "page", sync=False)
            (root / "lib.js").write_text("by path, as a library writes")
            assert (moved / "train" / "shape" / "0.html").read_text() == "page"
            assert (moved / "lib.js").is_file()
    assert list(outside.iterdir()) == [] and not dest.exists()
    assert (tmp_path / made.name).is_symlink()  # not ours: left where it is, not followed


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
