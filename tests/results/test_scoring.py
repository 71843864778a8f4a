"""`mewl eval`: the oracle's answers score 1.0 and all-wrong answers 0.0, per task and overall;
every problem with a predictions file is one line and never silently counted; every format
prints the same scores; --plot draws them."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mewl_gen.store import bookkeeping
from mewl_gen.store.reader import read
from mewl_gen.tasks import catalog
from tests.conftest import run_mewl

TASKS = ("shape", "pragmatic", "malevic-pos", "malevic-pos-hard", "shapeworld-existential", "icy-naming",
         "icy-episodes")
N = 12


@pytest.fixture(scope="module")
def sampled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "data"
    for split in ("train", "test"):
        assert run_mewl("sample", "--task", ",".join(TASKS), "--n", N, "--split", split, "--seed", 11, "--out", out,
                        "--workers", 1) == 0
    return out


def predictions(out: Path, wrong: bool = False) -> list[dict]:
    """The oracle's answer to every item (the item's own solution), or a wrong one of the same type."""
    lines = []
    for (split, task), items in read(out).items.items():
        for stored in items:
            item = stored.item()
            answer = item.solution()
            if wrong:
                answer = (not answer if isinstance(answer, bool)
                          else next(c for c in item.choices if c != answer) if hasattr(item, "choices")
                          else answer + "x")
            lines.append({"split": split, "task": task, "index": stored.index, "answer": answer})
    return lines


def write(path: Path, lines: list) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("wrong, accuracy", [(False, 1.0), (True, 0.0)])
@pytest.mark.slow
def test_the_oracle_scores_one_and_all_wrong_answers_zero(sampled, tmp_path, mewl, wrong, accuracy):
    path = write(tmp_path / "p.jsonl", predictions(sampled, wrong))
    code, out, _ = mewl("eval", sampled, path, "--format", "json")
    assert code == 0
    found = json.loads(out)
    assert sorted((r["split"], r["task"]) for r in found["tasks"]) == sorted((s, t) for s in ("test", "train")
                                                                              for t in TASKS)
    assert all(r["accuracy"] == accuracy and r["n"] == N for r in found["tasks"])
    assert found["overall"]["accuracy"] == accuracy and found["overall"]["n"] == 2 * N * len(TASKS)
    assert found["problems"] == []


@pytest.mark.slow
def test_every_problem_is_one_line_and_never_silently_counted(sampled, tmp_path, mewl):
    lines = [p for p in predictions(sampled) if p["task"] == "shape" and p["split"] == "train"]
    lines[0] = {**lines[0], "answer": "zzz"}  # not one of the choices: wrong
    del lines[1]  # missing: wrong
    lines += [dict(lines[2], answer=lines[2]["answer"]),  # a duplicate: the first stands
              "not json", {"split": "train", "task": "shape"},  # not predictions
              {"split": "train", "task": "shape", "index": 999, "answer": "x"},  # not in OUT
              {"split": "train", "task": "no-such-task", "index": 0, "answer": "x"}]
    path = write(tmp_path / "p.jsonl", lines)
    code, out, err = mewl("eval", sampled, path, "--format", "json")
    assert code == 1
    found = json.loads(out)
    (row,) = found["tasks"]
    assert (row["task"], row["n"], row["correct"]) == ("shape", N, N - 2)
    err = err.splitlines()
    assert len(err) == 6 and err == [f"mewl eval: {line}" for line in found["problems"]]
    joined = "\n".join(err)
    for words in ("2 lines that are not a prediction", "1 duplicate predictions", "1 predictions for tasks no benchmark",
                  "1 missing predictions (counted wrong): train/shape/000001", "1 answers an item cannot have",
                  "1 predictions for items OUT does not hold (not counted): train/shape/000999"):
        assert words in joined, words


@pytest.mark.slow
def test_formats_agree_and_the_plot_is_drawn(sampled, tmp_path, mewl):
    lines = predictions(sampled)
    rng = np.random.default_rng(0)
    wrong = {json.dumps(p) for p in predictions(sampled, wrong=True)}
    mixed = [p if rng.random() < 0.6 else json.loads(sorted(wrong)[k % len(wrong)]) for k, p in enumerate(lines)]
    mixed = list({(p["split"], p["task"], p["index"]): p for p in mixed}.values())
    path = write(tmp_path / "p.jsonl", mixed)
    _, out, _ = mewl("eval", sampled, path, "--format", "json")
    by_json = {(r["split"], r["task"]): r["correct"] for r in json.loads(out)["tasks"]}
    _, out, _ = mewl("eval", sampled, path, "--format", "csv", "--plot", tmp_path / "acc.png")
    by_csv = {(r["split"], r["task"]): int(r["correct"]) for r in csv.DictReader(io.StringIO(out)) if r["row"] == "score"}
    assert by_csv == by_json
    printed = mewl("eval", sampled, path, "--format", "markdown")[1]
    for (split, task), correct in by_json.items():
        assert f"| {split} | {task} | {N} | {N} | {100 * correct / N:.1f} |" in printed  # n, then planned
    image = np.asarray(Image.open(tmp_path / "acc.png").convert("L"))
    assert image.shape[1] > 400 and image.std() > 10  # drawn, not blank


@pytest.mark.slow
def test_every_papers_row_is_in_every_format_under_its_own_table(sampled, tmp_path, mewl):
    """MALeViC's Tables 1 and 2 name the same models: each table keeps its own rows, in every format."""
    path = write(tmp_path / "p.jsonl", predictions(sampled))
    want = [(p.paper, p.table, p.who, task, a) for b in catalog.BENCHMARKS for p in b.published
            for task, a in p.accuracy.items() if task in TASKS]
    assert {w[1] for w in want if w[0].startswith("MALeViC")} == {"Table 1 (avg test)", "Table 2"}
    records = json.loads(mewl("eval", sampled, path, "--format", "json")[1])["published"]
    assert sorted((r["paper"], r["table"], r["model"], r["task"], r["accuracy"]) for r in records) == sorted(want)
    assert all(set(r) >= {"paper", "table", "model", "condition", "task", "accuracy", "n"} for r in records)
    printed = mewl("eval", sampled, path, "--format", "csv")[1]
    rows = [r for r in csv.DictReader(io.StringIO(printed)) if r["row"] == "paper"]
    assert sorted((r["paper"], r["table"], r["model"], r["task"], float(r["accuracy"])) for r in rows) == sorted(want)
    for fmt in ("table", "markdown"):
        printed = mewl("eval", sampled, path, "--format", fmt)[1]
        assert "† reported by the paper, measured on the original data" in printed
        for paper, table, who, task, accuracy in want:
            assert f"{paper}, {table}" in printed
            block = printed.split(f"{paper}, {table}")[1].split("†")[0]
            line = next(line for line in block.splitlines() if line.strip("| ").startswith(who + " ")
                        or line.strip("| ").split("|")[0].strip() == who)
            assert f"{100 * accuracy:.1f}" in line, (fmt, who, task, line)


@pytest.mark.slow
def test_the_plot_is_for_a_paper_and_never_overwrites_or_writes_inside_out(sampled, tmp_path, mewl):
    path = write(tmp_path / "p.jsonl", predictions(sampled))
    for name in ("acc.png", "acc.pdf", "acc.svg"):
        assert mewl("eval", sampled, path, "--plot", tmp_path / name)[0] == 0
        assert (tmp_path / name).stat().st_size > 1000
    assert (tmp_path / "acc.pdf").read_bytes().startswith(b"%PDF")
    svg = (tmp_path / "acc.svg").read_text()
    assert "chance" in svg and "Human" in svg  # the legend names the dashed line and the paper's people
    before = (tmp_path / "acc.png").read_bytes()
    for argv, message in ((["--plot", str(tmp_path / "acc.png")], "exists; give --force"),
                          (["--plot", str(sampled / "acc.png")], "lies inside"),
                          (["--plot", str(tmp_path / "acc.jpg")], "expected a file ending in")):
        code, _, err = mewl("eval", sampled, path, *argv)
        assert code == 2 and err.count("\n") == 1 and message in err, err
    assert (tmp_path / "acc.png").read_bytes() == before and not (sampled / "acc.png").exists()
    assert mewl("eval", sampled, path, "--plot", tmp_path / "acc.png", "--force")[0] == 0


def test_a_part_made_dataset_is_named_so_in_every_format_and_the_figure(tmp_path, mewl):
    """5 of 600 planned episodes (a render of 600 stopped after 5: OUT's plan keeps the 600 asked) are never
    scored as a whole dataset; the prediction left out is named by its key, as the predictions file writes it."""
    out = tmp_path / "data"
    assert mewl("sample", "--task", "pragmatic", "--n", 5, "--out", out, "--workers", 1)[0] == 0
    bookkeeping.record_plan(out, "train", "pragmatic", 600)
    path = write(tmp_path / "p.jsonl", [{"key": f"train/pragmatic/{p['index']:06d}", "answer": p["answer"]}
                                        for p in predictions(out) if p["index"] != 4])
    code, printed, err = mewl("eval", out, path, "--plot", tmp_path / "acc.svg")
    assert code == 1 and "1 missing predictions (counted wrong): train/pragmatic/000004\n" in err
    assert "mewl eval: incomplete dataset: train/pragmatic: 5 of 600 planned episodes;" in err
    assert re.search(r"^train +pragmatic +5 +600 +80\.0 ", printed, re.M), printed  # n, planned, accuracy
    assert "over 5 items; incomplete dataset: 5 of 600 planned episodes" in printed
    assert "incomplete dataset: 5 of 600 planned episodes" in (tmp_path / "acc.svg").read_text()  # its title
    found = json.loads(mewl("eval", out, path, "--format", "json")[1])
    assert (found["tasks"][0]["n"], found["tasks"][0]["planned"]) == (5, 600)
    assert (found["overall"]["n"], found["overall"]["planned"]) == (5, 600)
    (row,) = [r for r in csv.DictReader(io.StringIO(mewl("eval", out, path, "--format", "csv")[1])) if r["row"] == "score"]
    assert (row["n"], row["planned"]) == ("5", "600")
    assert mewl("eval", out, "--example")[1].startswith('{"key": "train/pragmatic/000000"')


@pytest.mark.parametrize("argv, message", [
    (["eval", "/nonexistent", "/nonexistent.jsonl"], "cannot read /nonexistent.jsonl"),
    (["eval", "DATA", "EMPTY"], "holds no predictions"),
    (["eval", "DATA", "OTHER"], "is for an item of"),
    (["eval", "DATA", "EMPTY", "--format", "xml"], "invalid choice: 'xml'"),
])
@pytest.mark.slow
def test_mistakes_are_one_line(sampled, tmp_path, mewl, argv, message):
    empty = write(tmp_path / "empty.jsonl", [])
    other = write(tmp_path / "other.jsonl", [{"split": "val", "task": "shape", "index": 0, "answer": "x"}])
    argv = [{"DATA": str(sampled), "EMPTY": str(empty), "OTHER": str(other)}.get(a, a) for a in argv]
    code, _, err = mewl(*argv)
    assert code == 2 and err.count("\n") == 1 and message in err, err


@pytest.mark.slow
def test_a_bongard_answer_is_two_truth_values_or_two_sides():
    item = catalog.sample_item("bongard-basic", 11, "test", 0)
    right = item.solution()
    sides = ["left" if positive else "right" for positive in right]
    assert item.read_answer(right) == item.read_answer(sides) == right
    assert item.read_answer([not p for p in right]) != right
    for wrong in (sides[0], [1, 0], ["left"], ["up", "down"], None):
        with pytest.raises(ValueError, match="expected two of"):
            item.read_answer(wrong)


def test_a_files_lines_are_those_splitlines_makes_one_at_a_time(tmp_path, monkeypatch):
    """Line numbers in eval's problems are splitlines' (every break it knows), read a few bytes at a time: a
    break split between two reads (a \r\n, a character of several bytes) is still one; a line past the
    limit comes as one overlong line, its text not kept."""
    from mewl_gen.results import predictions

    rng = np.random.default_rng(0)
    pieces = ["a", "bc", "é", "€", "\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\t", " "]
    path = tmp_path / "p.jsonl"
    for _ in range(3000):
        monkeypatch.setattr(predictions, "CHUNK", int(rng.choice([1, 2, 3, 7, 64])))
        text = "".join(rng.choice(pieces, size=rng.integers(0, 12)))
        path.write_bytes(text.encode())
        assert list(predictions.numbered_lines(path)) == text.splitlines(), repr(text)
    monkeypatch.setattr(predictions, "LINE_LIMIT", 5)
    path.write_bytes(b"abc\n" + b"x" * 40 + b"\nde")
    assert [len(x) for x in predictions.numbered_lines(path)] == [3, len(predictions.OVERLONG), 2]


def test_the_predictions_say_who_answered_only_when_every_line_says_the_same(tmp_path):
    """eval's figure names who answered (mewl study score's lines say "people ..."); lines that disagree, or
    one that names nobody, leave it "this model"."""
    from mewl_gen.results.scoring import Problems, read_predictions

    def who(*models) -> str | None:
        lines = [{"split": "train", "task": "shape", "index": i, "answer": "x", **({"model": m} if m else {})}
                 for i, m in enumerate(models)]
        problems = Problems()
        read_predictions(write(tmp_path / "p.jsonl", lines), problems, {("train", "shape", i) for i in range(9)})
        return problems.model

    assert who("people", "people") == "people"
    assert who("people", "gpt") == who("people", None) == who(None, "people") == who(None, None) == ""
