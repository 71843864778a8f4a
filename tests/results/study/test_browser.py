"""`mewl study` end to end in a real browser: a study built from the session's preview render of every task
(one task of each benchmark left unscored, so that its item gives the practice trial) is completed in
headless Chromium by scripted participants, over file:// and over a local HTTP server on 127.0.0.1, with
every request that would leave the machine refused. The oracle (answers from the key) scores 1.0 on every
task, `mewl eval --human` shows it as "human (this dataset)" in every format and in the plot; a guesser
lands within its interval of chance; one who fails the catch trials is excluded. No file of DIR names an
item or an answer, and its pictures carry nothing but pixels."""
from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from mewl_gen.results.study import build
from mewl_gen.tasks import catalog
from tests.conftest import rendered_all, run_mewl

from .participant import CHROMIUM, careless, guesser, oracle, take_part

pytestmark = pytest.mark.browser
PRACTICE = ("color", "malevic-sup1", "shapeworld-logical", "bongard-abstract")


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> tuple[Path, Path, dict]:
    """(OUT, DIR, key): one item of each task people can be shown but PRACTICE (whose items are the practice
    trials; ICY has no other task, so no practice), and a catch trial per benchmark."""
    root = tmp_path_factory.mktemp("study")
    out = rendered_all()
    dest = root / "dir"
    scored = [t.name for t in catalog.tasks().values() if t.study is not None and t.name not in PRACTICE]
    assert run_mewl("study", out, "--out", dest, "--task", ",".join(scored), "--split", "train",
                    "--items", 1, "--practice", 1, "--catch", 1, "--seed", 3, "--pilot") == 0
    return out, dest, json.loads(build.key_path(dest).read_text())


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip("Chromium is not installed: run .ci/install-chromium as root to install it (Debian's package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(study):
    """DIR served over HTTP on 127.0.0.1 (a port of its own), as any static host serves it."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(study[1]))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    thread.join(timeout=10)


def scored(mewl, tmp_path: Path, dest: Path, *files: Path, name: str = "scores") -> tuple[dict, str]:
    """The human row `mewl study score` writes, and what it printed. A scripted participant answers within
    milliseconds: the speed rule is off here (test_score.py tests it)."""
    code, printed, err = mewl("study", "score", dest, *files, "--to", tmp_path / name, "--fast-ms", 0)
    assert code == 0, err
    return json.loads((tmp_path / name / "human.json").read_text()), printed


def scored_trials(key: dict) -> list[dict]:
    return [k for k in key["trials"].values() if k["kind"] == "test"]


def test_the_oracle_over_file_scores_one_and_eval_shows_its_row(study, browser, tmp_path, mewl):
    out, dest, key = study
    blocked = []
    data, last = take_part(browser, (dest / "index.html").as_uri() + "?PROLIFIC_PID=p-oracle", oracle(key), blocked,
                           download=tmp_path / "saved.json")
    assert blocked == []
    assert json.loads((tmp_path / "saved.json").read_text()) == data  # the file a participant saves is the data
    rows = [r for r in data if r.get("phase") == "trial"]
    assert {r["participant"] for r in data} == {"p-oracle"} and all(r["rt"] > 0 for r in rows)
    assert len([k for k in key["trials"].values() if k["kind"] == "catch"]) == 5  # one per benchmark
    practice = [r for r in data if r.get("phase") == "practice"]
    assert len(practice) == len(PRACTICE) and all(r["trial"] not in key["trials"] for r in practice)
    row, _ = scored(mewl, tmp_path, dest, tmp_path / "saved.json")
    assert {t["task"] for t in row["tasks"]} == {k["task"] for k in scored_trials(key)}
    assert all(t["accuracy"] == 1.0 for t in row["tasks"])
    predictions, human = tmp_path / "scores" / "human.jsonl", tmp_path / "scores" / "human.json"
    code, printed, _ = mewl("eval", out, predictions, "--human", human, "--format", "json")
    assert code == 0
    found = json.loads(printed)
    assert found["overall"]["accuracy"] == 1.0
    assert all(r["human (this dataset)"]["accuracy"] == 1.0 for r in found["tasks"])
    for form in ("table", "markdown", "csv"):
        code, printed, _ = mewl("eval", out, predictions, "--human", human, "--format", form)
        assert code == 0 and "human (this dataset)" in printed
    assert mewl("eval", out, predictions, "--human", human, "--plot", tmp_path / "p.png")[0] == 0
    assert Image.open(tmp_path / "p.png").size[0] > 0


def test_a_guesser_over_http_lands_near_chance(study, browser, server, tmp_path, mewl):
    out, dest, key = study
    blocked = []
    data, last = take_part(browser, f"{server}/index.html?participant=p-guess&cc=C0DE", guesser(7), blocked)
    assert blocked == [] and "C0DE" in last  # the completion code from the URL, on the last page
    (tmp_path / "g.json").write_text(json.dumps(data))
    row, _ = scored(mewl, tmp_path, dest, tmp_path / "g.json")
    responses = sum(t["responses"] for t in row["tasks"])
    right = sum(t["accuracy"] * t["responses"] for t in row["tasks"])
    chance = [1 / len(k["answers"]) for k in scored_trials(key)]
    expected, spread = sum(chance), 3 * sum(c * (1 - c) for c in chance) ** 0.5
    assert responses == len(chance) and abs(right - expected) <= spread, (right, expected, spread)


def test_one_who_fails_the_catch_trials_is_excluded_and_an_id_always_sees_its_order(study, browser, tmp_path, mewl):
    out, dest, key = study
    data, _ = take_part(browser, (dest / "index.html").as_uri() + "?participant=p-careless", careless(key))
    first, _ = take_part(browser, (dest / "index.html").as_uri() + "?participant=p-other", oracle(key))
    (tmp_path / "c.json").write_text(json.dumps(data))
    (tmp_path / "o.json").write_text(json.dumps(first))
    row, printed = scored(mewl, tmp_path, dest, tmp_path / "c.json", tmp_path / "o.json")
    assert row["participants"] == {"kept": 1, "excluded": 1}
    assert "passed 0 of" in printed
    again, _ = take_part(browser, (dest / "index.html").as_uri() + "?participant=p-other", oracle(key))
    order = [[(r["trial"], r["shown"]) for r in d if r.get("phase") == "trial"] for d in (data, first, again)]
    trials = [[t for t, _ in o] for o in order]
    assert sorted(trials[0]) == sorted(trials[1]) and trials[0] != trials[1]  # each id its own order of the same trials
    assert order[1] == order[2]  # the same id sees the same order, buttons included


def test_no_file_of_the_study_names_an_item_or_an_answer(study):
    out, dest, key = study
    names = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    runner = {*build.RUNNER, "study-data.js", *(f"lib/{n}" for n in build.LIBRARY)}
    texts = {f"texts/{n}.html" for n in (*build.TEXTS, *catalog.benchmarks())}
    images = {n for n in names if n.startswith("img/")}
    assert names == runner | texts | images
    for name in images:
        assert len(name) == len("img/") + 16 + len(".png")
        with Image.open(dest / name) as im:
            assert not im.info.get("text") and set(im.info) <= {"dpi", "gamma", "srgb", "aspect"}, im.info
    text = "\n".join((dest / n).read_text(encoding="utf-8") for n in runner | texts if not n.startswith("lib/"))
    for word in ('"correct"', '"answers"', '"answer"', '"label"', "solution", "test_positive", "lexicon", '"split"',
                 '"index"', '"task"'):
        assert word not in text, word
    for k in scored_trials(key):
        assert f"{k['split']}/{k['task']}" not in text
    assert not build.key_path(dest).is_relative_to(dest)
    for name, source in build.LIBRARY.items():  # jsPsych as the lock file pins it, unchanged
        assert (dest / "lib" / name).read_bytes() == (build.NODE_MODULES / source).read_bytes()


def test_one_who_does_not_consent_sees_the_declined_text_and_nothing_is_kept(study, browser):
    page = browser.new_page()
    page.goto((study[1] / "index.html").as_uri() + "?participant=p-no")
    page.click("#jspsych-html-button-response-btngroup [data-choice='1']")  # "I do not agree"
    page.wait_for_function("document.body.dataset.done === '1'")
    assert "did not agree" in page.inner_text("body") and page.evaluate("window.STUDY_RESULT") is None
    page.close()
