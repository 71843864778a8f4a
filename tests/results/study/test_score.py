"""`mewl study score DIR RESULTS...` on participants' data written as the experiment writes it (jsPsych rows):
the exclusions are printed before the scores, the key decides each answer, a participant who fails the
catch trials or answers implausibly fast is excluded, the interval resamples participants and items, and
whatever a results file holds that is not this study's data is reported in one line, never a traceback."""
from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest

from mewl_gen.results.study import score

STUDY = "5a5a5a5a5a5a5a5a"
ITEMS = 10  # items of each task


def key(tmp_path: Path) -> Path:
    """A study folder's key beside it: ten pragmatic items (five words each) and ten MALeViC ones, two catches."""
    trials = {}
    for i in range(ITEMS):
        words = [f"w{i}{k}" for k in range(5)]
        trials[f"p{i}"] = {"kind": "test", "split": "test", "task": "pragmatic", "index": i,
                           "answers": {w: w for w in words}, "correct": words[i % 5]}
        trials[f"m{i}"] = {"kind": "test", "split": "test", "task": "malevic-pos", "index": i,
                           "answers": {"true": True, "false": False}, "correct": "true" if i % 2 else "false"}
    trials["c0"] = {"kind": "catch", "benchmark": "mewl", "correct": "w00"}
    trials["c1"] = {"kind": "catch", "benchmark": "malevic", "correct": "false"}
    (tmp_path / "study").mkdir()
    path = tmp_path / "study.key.json"
    path.write_text(json.dumps({"study": STUDY, "trials": trials}))
    return path


def rows(who: str, pick, rt: float = 1500.0) -> list[dict]:
    """A participant's jsPsych rows: consent, then every trial answered by pick(trial id, key entry)."""
    trials = json.loads((KEY_PATH[0]).read_text())["trials"]
    out = [{"study": STUDY, "participant": who, "phase": "consent", "response": 0, "rt": 900}]
    for tid, k in trials.items():
        out.append({"study": STUDY, "participant": who, "phase": "trial", "trial": tid, "choice": pick(tid, k),
                    "rt": rt, "shown": sorted(k.get("answers", {k["correct"]: 0}))})
    return out


KEY_PATH: list[Path] = []


@pytest.fixture
def study(tmp_path):
    KEY_PATH[:] = [key(tmp_path)]
    return tmp_path


def oracle(tid, k):
    return k["correct"]


def wrong(tid, k):
    return next(a for a in k.get("answers", {"x": 0, "y": 0}) if a != k["correct"])


def save(path: Path, data) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def run(mewl, study: Path, *files: str, extra=()) -> tuple[int, str, str]:
    """`mewl study score` of the study's key over `files`, into study/scores."""
    return mewl("study", "score", study / "study", *files, "--to", study / "scores", *extra)


def test_the_oracle_scores_one_and_its_predictions_are_the_key_s_answers(study, mewl):
    code, printed, _ = run(mewl, study, save(study / "a.json", rows("a", oracle)))
    assert code == 0
    assert printed.index("exclusions, stated before scoring") < printed.index("accuracy")
    row = json.loads((study / "scores" / "human.json").read_text())
    assert [(t["task"], t["accuracy"], t["interval"]) for t in row["tasks"]] == [
        ("pragmatic", 1.0, [1.0, 1.0]), ("malevic-pos", 1.0, [1.0, 1.0])]
    lines = [json.loads(line) for line in (study / "scores" / "human.jsonl").read_text().splitlines()]
    people = score.PEOPLE  # who answered: eval's figure names them, not "this model"
    assert {"split": "test", "task": "malevic-pos", "index": 3, "answer": True, "model": people} in lines
    assert {"split": "test", "task": "pragmatic", "index": 2, "answer": "w22", "model": people} in lines
    assert len(lines) == 2 * ITEMS


def test_a_participant_who_fails_the_catch_trials_is_excluded(study, mewl):
    def careless(tid, k):
        return wrong(tid, k) if k["kind"] == "catch" else k["correct"]

    files = [save(study / "a.json", rows("a", oracle)), save(study / "b.json", rows("b", careless))]
    code, printed, _ = run(mewl, study, *files)
    assert code == 0 and "1 kept, 1 excluded (passed 0 of 2 catch trials)" in printed
    with open(study / "scores" / "participants.csv") as f:
        assert [(r["participant"], r["kept"]) for r in csv.DictReader(f)] == [("a", "yes"), ("b", "no")]
    row = json.loads((study / "scores" / "human.json").read_text())
    assert row["participants"] == {"kept": 1, "excluded": 1} and row["tasks"][0]["excluded"] == 1


FORMULAS = ("=cmd|' /C calc'!A0", "+1", "-1", "@SUM(1)", '=HYPERLINK("http://x","y")', "\tx", "\rx")


def test_participant_ids_are_never_formulas_in_the_csv(study, mewl):
    """An id comes from the URL a participant opened: in participants.csv it is text a spreadsheet shows,
    never a formula it runs (OWASP's rule: a leading single quote)."""
    files = [save(study / f"{k}.json", rows(who, oracle)) for k, who in enumerate((*FORMULAS, "alice"))]
    assert run(mewl, study, *files)[0] == 0
    with open(study / "scores" / "participants.csv", newline="") as f:
        cells = [r["participant"] for r in csv.DictReader(f)]
    assert sorted(cells) == sorted([*(f"'{who}" for who in FORMULAS), "alice"])


def test_implausibly_fast_responses_exclude_by_the_stated_threshold(study, mewl):
    files = [save(study / "a.json", rows("a", oracle)), save(study / "f.json", rows("f", oracle, rt=120))]
    code, printed, _ = run(mewl, study, *files)
    assert code == 0 and "responses faster than 300 ms" in printed
    assert run(mewl, study, *files, extra=("--fast-ms", 100))[0] == 2  # the scores folder exists now: never overwritten
    (study / "again").mkdir()
    code, printed, _ = mewl("study", "score", study / "study", *files, "--to", study / "again", "--fast-ms", 100)
    assert code == 0 and "2 kept, 0 excluded" in printed


def test_several_participants_in_one_export_and_agreement_between_them(study, mewl):
    export = "\n".join(json.dumps(rows(w, oracle if w != "c" else wrong_but_catch)) for w in "abc")
    (study / "jatos.txt").write_text(export)
    assert run(mewl, study, study / "jatos.txt")[0] == 0
    row = json.loads((study / "scores" / "human.json").read_text())
    pragmatic = row["tasks"][0]
    assert pragmatic["participants"] == 3 and pragmatic["responses"] == 3 * ITEMS
    assert pragmatic["accuracy"] == pytest.approx(2 / 3)
    assert pragmatic["agreement"] == pytest.approx(1 / 3)  # of the three pairs of each item, one agrees
    lo, hi = pragmatic["interval"]
    assert lo <= 2 / 3 <= hi and hi - lo > 0


def wrong_but_catch(tid, k):
    return k["correct"] if k["kind"] == "catch" else wrong(tid, k)


def test_the_bootstrap_resamples_participants_and_items():
    rng = np.random.default_rng(0)
    who = np.repeat(np.arange(20), 10)
    item = np.tile(np.arange(10), 20)
    easy = (item < 5).astype(float)  # half the items always right, half always wrong: items vary, people do not
    lo, hi = score.bootstrap(who, item, easy, rng, 2000)
    assert lo < 0.35 and hi > 0.65  # the items' spread shows; resampling participants alone would give [0.5, 0.5]


@pytest.mark.parametrize("content, says", [
    ("not json at all\n{", "line 1 is not JSON"),
    (json.dumps([{"study": "another", "participant": "a", "phase": "trial", "trial": "p0"}]), "of 'another'"),
    (json.dumps({"a": 1}), "holds no data of this study"),
    ("[" * 100000 + "]" * 100000, "nested too deep"),
    (json.dumps([{"study": STUDY, "participant": "a", "phase": "trial", "trial": "p0", "rt": float("nan")}]),
     "NaN is not a finite number"),
    ('{"study": "%s", "participant": "a", "phase": "trial", "trial": "p0", "rt": 1e999}\n' % STUDY,
     "1e999 is not a finite number"),
])
def test_a_results_file_that_is_not_this_study_s_data_is_one_line(study, mewl, content, says):
    (study / "r.json").write_text(content)
    code, _, err = run(mewl, study, study / "r.json")
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (study / "scores").exists()


def test_a_results_file_that_is_a_fifo_is_one_line_without_waiting(study, mewl):
    """Judged on the file opened, not by a look before it that a swap could outrun."""
    os.mkfifo(study / "r.json")
    code, _, err = run(mewl, study, study / "r.json")
    assert code == 2 and "not a regular file" in err and len(err.strip().splitlines()) == 1


def test_rows_for_unknown_trials_and_repeats_are_reported_and_left_out(study, mewl):
    data = rows("a", oracle)
    data += [dict(data[1], choice="w01"), {"study": STUDY, "participant": "a", "phase": "trial", "trial": "zz"}]
    code, _, err = run(mewl, study, save(study / "a.json", data))
    assert code == 0
    assert "1 repeated answers to a trial (the first one stands)" in err
    assert "1 rows for a trial the key does not know (left out)" in err
    assert json.loads((study / "scores" / "human.json").read_text())["tasks"][0]["accuracy"] == 1.0


def test_a_missing_or_foreign_key_is_one_line(study, mewl):
    files = [save(study / "a.json", rows("a", oracle))]
    code, _, err = mewl("study", "score", study / "elsewhere", *files, "--to", study / "s")
    assert code == 2 and "no key at" in err
    (study / "bad.json").write_text('{"study": 1}')
    code, _, err = mewl("study", "score", study / "study", *files, "--key", study / "bad.json", "--to", study / "s")
    assert code == 2 and "is not a study's key" in err
    code, _, err = mewl("study", "score", study / "study", *files, "--to", study / "s", "--min-catch", 2)
    assert code == 2 and "expected a fraction from 0 to 1" in err


def test_every_participant_excluded_is_one_line(study, mewl):
    def careless(tid, k):
        return wrong(tid, k)

    code, _, err = run(mewl, study, save(study / "b.json", rows("b", careless)))
    assert code == 2 and "every participant was excluded (1)" in err


def test_eval_refuses_a_human_row_that_is_not_one_before_any_work(tmp_path, mewl):
    (tmp_path / "human.json").write_text(json.dumps({"tasks": [{"split": "test", "task": "shape", "accuracy": "high",
                                                                "interval": [0, 1]}]}))
    code, _, err = mewl("eval", tmp_path / "no-dataset", tmp_path / "p.jsonl", "--human", tmp_path / "human.json")
    assert code == 2 and "is not the human.json mewl study score writes" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("number, says", [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"),
                                          ("1e999", "1e999")])
@pytest.mark.parametrize("where", ["accuracy", "interval"])
def test_eval_refuses_a_human_row_whose_numbers_are_not_finite_before_any_work(tmp_path, mewl, number, says, where):
    """json reads NaN and Infinity (and 1e999 as infinite): shown as `inf [-inf, nan]`, printed as JSON no
    parser reads, drawn with numpy's warning. Such a row is refused in one line, before the dataset is read."""
    task = {"split": "test", "task": "shape", "accuracy": 0.5, "interval": [0.4, 0.6]}
    text = json.dumps({"tasks": [task]}).replace("0.5" if where == "accuracy" else "0.4", number)
    (tmp_path / "human.json").write_text(text)
    code, out, err = mewl("eval", tmp_path / "no-dataset", tmp_path / "p.jsonl", "--human", tmp_path / "human.json",
                          "--format", "json")
    assert code == 2 and err.startswith("mewl: error: --human ") and f"{says} is not a finite number" in err, err
    assert len(err.strip().splitlines()) == 1 and not out


def test_eval_refuses_a_human_accuracy_outside_zero_to_one(tmp_path, mewl):
    task = {"split": "test", "task": "shape", "accuracy": 1.5, "interval": [0.4, 0.6]}
    (tmp_path / "human.json").write_text(json.dumps({"tasks": [task]}))
    code, _, err = mewl("eval", tmp_path / "no-dataset", tmp_path / "p.jsonl", "--human", tmp_path / "human.json")
    assert code == 2 and "is not the human.json mewl study score writes" in err


def test_results_past_their_total_are_one_line_before_any_is_read(study, mewl, monkeypatch):
    files = [save(study / f"{who}.json", rows(who, oracle)) for who in "ab"]
    monkeypatch.setattr(score, "RESULTS_TOTAL_LIMIT", sum(Path(f).stat().st_size for f in files) - 1)
    code, _, err = run(mewl, study, *files)
    assert code == 2 and "more than one score reads (at " in err and "b.json); score the study in parts" in err
    assert not (study / "scores").exists()


@pytest.mark.slow
def test_results_at_their_total_limit_are_scored_within_the_bounds(study):
    """study score's limit (docs/security.md): RESULTS_TOTAL_LIMIT bytes in all, each file at most RESULTS_LIMIT.
    Two files at the limit, every participant distinct (the costliest: each is kept, scored and resampled),
    scored as its own process within hostile.mewl's bounds (60 s, 2 GB)."""
    from tests.store.hostile import mewl as bounded

    line = json.dumps(rows("P", oracle)) + "\n"
    files, people = [], 0
    for part in range(score.RESULTS_TOTAL_LIMIT // score.RESULTS_LIMIT):
        path, size = study / f"part{part}.jsonl", 0
        with path.open("w") as f:
            while size + len(line) + 200 <= score.RESULTS_LIMIT:  # a name adds under 8 bytes to each of its rows
                text = line.replace('"P"', f'"p{part}-{people}"')
                f.write(text)
                size, people = size + len(text), people + 1
        files.append(path)
    r = bounded("study", "score", study / "study", *files, "--to", study / "scores")
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads((study / "scores" / "human.json").read_text())["participants"]["kept"] == people
