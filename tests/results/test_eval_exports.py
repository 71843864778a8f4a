"""`mewl eval` on a rendered dataset, as a model trained on our exports would meet it: the exports'
own labels, fed back as predictions in every form the exports give them (a ClassLabel's integer and
its name, MEWL's choice word, ICY's message), keyed by the export's `key`, score 1.0 on every task of
every benchmark, and the same forms all wrong score 0. An image damaged in place (one byte flipped,
the same size) is named in one line, not scored and counted apart."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mewl_gen.tasks import catalog
from tests.conftest import rendered_all, run_mewl

ANSWER_COLUMNS = ("answer", "message")  # string columns that hold the answer itself, beside the class label


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    """The session's render (exportable tasks only), its HF export, and the export's rows per task."""
    import datasets

    root = tmp_path_factory.mktemp("eval-exports")
    out = root / "data"
    shutil.copytree(rendered_all(), out)
    for task in (out / "train").iterdir():
        if task.is_dir() and catalog.task(task.name).export is None:
            shutil.rmtree(task)
    assert run_mewl("export", out, "--to", "hf", root / "hf") == 0
    rows = {}
    for task in sorted(p.name for p in (root / "hf" / "disk").iterdir()):
        ds = datasets.load_from_disk(str(root / "hf" / "disk" / task))["train"]
        keep = [c for c in ds.column_names if c in ("key", "label", *ANSWER_COLUMNS, "choices")]
        rows[task] = [{**r, "label_names": ds.features["label"].names} if "label" in r else r
                      for r in ds.select_columns(keep)]
    return out, rows


def forms(task: str, row: dict, wrong: bool) -> dict[str, object]:
    """Each form the export gives the row's answer, right or (`wrong`) another answer of the same form."""
    found = {}
    if "label" in row:
        names, k = row["label_names"], row["label"]
        other = (k + 1) % len(names)
        found["class index"] = other if wrong else k
        found["class name"] = names[other] if wrong else names[k]
    if "answer" in row:
        found["choice word"] = next(c for c in row["choices"] if c != row["answer"]) if wrong else row["answer"]
    if "message" in row:
        found["message"] = row["message"] + "x" if wrong else row["message"]
    assert found, f"{task}: the export gives no answer"
    return found


def score(mewl, out: Path, lines: list[dict], path: Path) -> tuple[int, dict]:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, printed, _ = mewl("eval", out, path, "--format", "json")
    return code, json.loads(printed)


@pytest.mark.parametrize("wrong, accuracy", [(False, 1.0), (True, 0.0)])
@pytest.mark.slow
@pytest.mark.render  # reads the session's render
def test_the_exports_labels_fed_back_score_one_in_every_form(exported, tmp_path, mewl, wrong, accuracy):
    out, rows = exported
    names = sorted({name for task, task_rows in rows.items() for name in forms(task, task_rows[0], wrong)})
    for name in names:
        lines = [{"key": r["key"], "answer": forms(task, r, wrong)[name]} for task, task_rows in rows.items()
                 for r in task_rows if name in forms(task, r, wrong)]
        code, found = score(mewl, out, lines, tmp_path / f"{name}.jsonl")
        assert code == 0 and found["problems"] == [], (name, found["problems"])
        scored = {r["task"] for r in found["tasks"]}
        assert scored == {task for task, task_rows in rows.items() if name in forms(task, task_rows[0], wrong)}
        assert all(r["accuracy"] == accuracy for r in found["tasks"]), (name, found["tasks"])


@pytest.mark.render  # reads the session's render
def test_every_task_of_every_benchmark_is_answered(exported):
    _, rows = exported
    assert set(rows) == {t.name for t in catalog.tasks().values() if t.export is not None}
    assert {catalog.task(t).benchmark for t in rows} == set(catalog.benchmarks())


@pytest.mark.render  # reads the session's render
def test_the_example_lines_are_valid_right_answers(exported, tmp_path, mewl):
    out, rows = exported
    code, printed, _ = mewl("eval", out, "--example")
    assert code == 0
    lines = [json.loads(line) for line in printed.splitlines()]
    assert {line["key"].split("/")[1] for line in lines} == set(rows)
    code, found = score(mewl, out, lines, tmp_path / "example.jsonl")
    assert all(r["correct"] == 1 for r in found["tasks"])


@pytest.mark.render  # reads the session's render
def test_a_damaged_image_is_named_not_scored_and_counted_apart(exported, tmp_path, mewl):
    source, rows = exported
    out = tmp_path / "data"
    shutil.copytree(source, out)
    task = next(t for t in rows if catalog.task(t).benchmark == "malevic")
    png = out / "train" / task / "0" / "image.png"
    data = bytearray(png.read_bytes())
    data[len(data) // 2] ^= 0x01  # the same size: only a checksum sees it
    png.write_bytes(bytes(data))
    lines = [{"key": r["key"], "answer": next(iter(forms(t, r, False).values()))} for t, task_rows in rows.items()
             for r in task_rows]
    code, found = score(mewl, out, lines, tmp_path / "p.jsonl")
    assert code == 1
    (line,) = [p for p in found["problems"] if "damaged" in p]
    assert line.startswith("1 damaged or incomplete items of OUT (not scored") and f"train/{task}/000000 (" in line
    assert found["overall"]["damaged"] == 1 and found["overall"]["n"] == sum(map(len, rows.values())) - 1
    assert all(r["task"] != task or (r["n"], r["damaged"]) == (len(rows[task]) - 1, 1) for r in found["tasks"])
    assert all(r["accuracy"] == 1.0 for r in found["tasks"])
    assert not any("predictions for items OUT does not hold" in p for p in found["problems"])
