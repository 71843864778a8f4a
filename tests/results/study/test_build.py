"""`mewl study OUT --out DIR`: a user's mistakes are one line and exit 2, before any work and with nothing
written; the texts a researcher edits replace the templates (no browser here: test_browser.py runs DIR)."""
from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path

import pytest

from mewl_gen.results.study import build
from mewl_gen.tasks import catalog
from tests.conftest import run_mewl

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sampled") / "out"
    assert run_mewl("sample", "--task", "shape,malevic-pos", "--n", 2, "--out", out, "--split", "test") == 0
    return out


def one_line(ran: tuple[int, str, str], says: str) -> None:
    """A command the fixture `mewl` ran stopped with exit status 2 and one line that says `says`."""
    code, _, err = ran
    assert code == 2 and says in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("args, says", [
    (["--items", "0"], "--items must be a whole number of at least 1"),
    (["--catch", "-1"], "--catch must be a whole number of at least 0"),
    (["--task", "nonesuch"], "unknown task 'nonesuch'"),
    (["--texts", "/nonexistent/texts"], "--texts /nonexistent/texts is not a folder"),
])
@pytest.mark.slow
def test_a_bad_option_is_one_line(sampled, tmp_path, args, says, mewl):
    one_line(mewl("study", sampled, "--out", tmp_path / "dir", *args), says)
    assert not (tmp_path / "dir").exists() and not build.key_path(tmp_path / "dir").exists()


def test_a_dataset_without_images_is_refused(sampled, tmp_path, mewl):
    one_line(mewl("study", sampled, "--out", tmp_path / "dir", "--pilot"),
             "sampled items without images")
    assert not (tmp_path / "dir").exists()


def test_the_templates_blanks_stop_a_study_unless_it_is_a_pilot(sampled, tmp_path, mewl):
    """A consent naming no researcher, no duration and no ethics approval is not one to show people."""
    dest = tmp_path / "dir"
    one_line(mewl("study", sampled, "--out", dest), "the study's texts keep the templates' blanks "
             "(consent.html: [the researchers' names and institution], [N], [where, for how long], [contact address], "
             "[ethics board, reference]); fill them in")
    assert not dest.exists() and not build.key_path(dest).exists()
    texts = tmp_path / "texts"
    texts.mkdir()
    consent = (build.WEB / "consent.html").read_text()
    (texts / "consent.html").write_text(consent.replace("[N]", "15"))
    one_line(mewl("study", sampled, "--out", dest, "--texts", texts),
             "(consent.html: [the researchers' names and institution], [where, for how long], [contact address], "
             "[ethics board, reference]); fill them in")
    (texts / "consent.html").write_text("<p>Run by the Example Lab; 15 minutes; approved by Board X, ref. 7.</p>")
    for extra in (["--texts", str(texts)], ["--pilot"]):  # past the texts: on to the items, here unrendered
        one_line(mewl("study", sampled, "--out", dest, *extra), "sampled items without images")


def test_a_split_the_folder_lacks_is_answered_with_what_it_holds(sampled, tmp_path, mewl):
    one_line(mewl("study", sampled, "--out", tmp_path / "dir", "--pilot", "--split", "train"),
             f"{sampled} holds no items in the split train; it holds test (malevic-pos, shape): choose one with "
             "--split test")


def test_the_keys_default_name_is_one_gitignore_skips():
    ignored = [line for line in (ROOT / ".gitignore").read_text().splitlines() if line and not line.startswith("#")]
    assert any(fnmatch(build.key_path(ROOT / "study").name, pattern) for pattern in ignored)


@pytest.fixture(scope="module")
def one_task(tmp_path_factory) -> Path:
    """Two rendered MALeViC items in train: a folder of one task and one split."""
    out = tmp_path_factory.mktemp("one-task") / "out"
    assert run_mewl("render", "--task", "malevic-pos", "--n", 2, "--quality", "preview", "--device", "cpu",
                    "--workers", 1, "--out", out) == 0
    return out


@pytest.mark.render
def test_a_one_task_folder_names_its_split_and_sums_up_the_tasks_it_lacks(one_task, tmp_path, mewl):
    dest = tmp_path / "dir"
    one_line(mewl("study", one_task, "--out", dest, "--pilot"),
             f"{one_task} holds no items in the split test; it holds train (malevic-pos): choose one with --split train")
    code, printed, err = mewl("study", one_task, "--out", dest, "--pilot", "--split", "train", "--items", 1,
                              "--practice", 1)
    assert code == 0
    showable = sum(1 for t in catalog.tasks().values() if t.study is not None)
    assert err.splitlines() == [f"mewl study: left out {showable - 1} task(s) that {one_task} holds no items "
                                "of in the split train: shape, color, material and "
                                f"{showable - 4} more"]
    key = build.key_path(dest).resolve()
    assert printed.splitlines()[-1].startswith(f"the key (each trial's item and answer) is {key}: ")
    assert key.is_file() and json.loads(key.read_text())["options"]["pilot"] is True


def test_the_key_never_goes_inside_the_experiment_and_nothing_is_overwritten(sampled, tmp_path, mewl):
    dest = tmp_path / "dir"
    one_line(mewl("study", sampled, "--out", dest, "--key", dest / "key.json"),
             "the key must stay outside the experiment")
    dest.mkdir()
    (dest / "mine.txt").write_text("kept")
    one_line(mewl("study", sampled, "--out", dest), "is not an empty folder")
    (tmp_path / "old.key.json").write_text("{}")
    one_line(mewl("study", sampled, "--out", tmp_path / "new", "--key", tmp_path / "old.key.json"),
             "never overwrites another's")
    one_line(mewl("study", sampled, "--out", sampled / "inside"), "lies inside")
    assert (dest / "mine.txt").read_text() == "kept" and (tmp_path / "old.key.json").read_text() == "{}"


def test_without_jspsych_installed_it_says_to_run_make_setup(sampled, tmp_path, monkeypatch, mewl):
    monkeypatch.setattr(build, "NODE_MODULES", tmp_path / "node_modules")
    one_line(mewl("study", sampled, "--out", tmp_path / "dir"), "run `make setup`")


def test_edited_texts_replace_the_templates_and_the_rest_stay(tmp_path):
    (tmp_path / "consent.html").write_text("<p>Our own consent</p>")
    (tmp_path / "mewl.html").write_text("<p>Our words for MEWL</p>")
    texts = build.read_texts(tmp_path, ["mewl", "bongard"])
    assert texts["consent"] == "<p>Our own consent</p>" and texts["mewl"] == "<p>Our words for MEWL</p>"
    assert texts["end"] == (build.WEB / "end.html").read_text() and "left" in texts["bongard"]
    (tmp_path / "end.html").symlink_to(tmp_path / "consent.html")
    with pytest.raises(Exception, match="is not a regular file"):
        build.read_texts(tmp_path, ["mewl"])


def test_study_alone_or_with_help_prints_both_forms(mewl):
    code, out, _ = mewl("study")
    assert code == 0 and "mewl study OUT --out DIR" in out and "mewl study score DIR RESULTS" in out
    code, out, _ = mewl("study", "--help")  # argparse's --help ends the command with exit status 0
    assert code == 0 and "--per-participant" in out
