"""Predictions from a model nobody here trusts, and SLURM records that name any path: `mewl eval` reads
every line through one strict model and escapes what it quotes; `mewl status` shows a failed job's log
only from the log folder its submission recorded, a regular file of the expected name, its last line cut."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mewl_gen.cluster.slurm import status
from mewl_gen.cluster.slurm.jobs import TaskState
from mewl_gen.cluster.slurm.record import SUBMISSIONS

from .hostile import RENDERED_TASK, mewl, one_line, outside_folder, rendered_dataset, snapshot


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    return rendered_dataset(tmp_path_factory.mktemp("inputs"))


@pytest.mark.slow
def test_hostile_predictions_are_counted_and_quoted_escaped_and_cut(rendered, tmp_path):
    path = tmp_path / "predictions.jsonl"
    lines = [json.dumps({"split": "train", "task": RENDERED_TASK, "index": 0, "answer": True}),
             json.dumps({"split": "\x1b[2J\x1b[31mtrain", "task": RENDERED_TASK, "index": 1, "answer": True}),
             json.dumps({"split": "train", "task": "\x1b]0;owned\x07", "index": 1, "answer": True}),
             json.dumps({"split": "train", "task": RENDERED_TASK, "index": 2, "answer": "x" * (5 << 20)}),
             "[" * 100_000, "5", json.dumps({"split": "train", "task": RENDERED_TASK, "index": float("nan"), "answer": 1}),
             json.dumps({"split": "train", "task": RENDERED_TASK, "index": 10**30, "answer": True})]
    path.write_text("\n".join(lines) + "\n")
    r = mewl("eval", rendered, path)
    assert r.returncode == 1, r.stderr  # scored, with problems named
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr
    assert len(r.stdout) + len(r.stderr) < 20_000
    assert "lines that are not a prediction" in r.stderr and "\\x1b" in r.stderr


@pytest.mark.slow
def test_a_line_with_a_number_json_has_no_form_for_is_no_prediction(rendered, tmp_path):
    """NaN, Infinity and 1e999 (infinite to Python's parser) are no JSON numbers: such a line is counted as not
    a prediction and named by its number, like any line that is not JSON; what eval prints stays JSON."""
    path = tmp_path / "predictions.jsonl"
    line = '{"split": "train", "task": "%s", "index": %s, "answer": %s}'
    path.write_text("\n".join([line % (RENDERED_TASK, 0, "true"), line % (RENDERED_TASK, 1, "NaN"),
                               line % (RENDERED_TASK, 2, "-Infinity"), line % (RENDERED_TASK, "1e999", "true")]) + "\n")
    r = mewl("eval", rendered, path, "--format", "json")
    assert r.returncode == 1, r.stderr
    assert "3 lines that are not a prediction" in r.stderr and "line 2, line 3, line 4" in r.stderr, r.stderr
    json.loads(r.stdout, parse_constant=lambda name: pytest.fail(f"eval printed {name}"))


@pytest.mark.slow
def test_a_deep_or_huge_predictions_file_is_one_line(rendered, tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text("[" * 100_000 + "\n")
    r = mewl("eval", rendered, path)
    assert r.returncode == 2 and "holds no predictions" in r.stderr and "Traceback" not in r.stderr


@pytest.fixture
def failed(monkeypatch):
    """SLURM says every array task failed (no SLURM here to ask)."""
    monkeypatch.setattr(status, "states", lambda job: {0: TaskState("FAILED", exit_code="1:0")})


def records(out: Path, *lines: object) -> None:
    (out / "slurm").mkdir(parents=True, exist_ok=True)
    (out / "slurm" / SUBMISSIONS).write_text("".join(json.dumps(r) + "\n" for r in lines))


def test_a_log_is_read_only_from_the_log_folder_by_its_expected_name(tmp_path, failed):
    out, outside = tmp_path / "out", outside_folder(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "7_0.out").write_text("starting\n" + "x" * 10_000 + "\nrender failed: \x1b[31mout of memory\n")
    records(out, {"array_job": "7", "shards": [0], "of": 1, "logs": str(logs)})
    text = "\n".join(status.slurm_lines(out, []))
    assert "ends: render failed: \\x1b[31mout of memory" in text and "\x1b" not in text

    before = snapshot(outside)
    (logs / "7_0.out").unlink()
    (logs / "7_0.out").symlink_to(outside / "secret.txt")  # a link in the log's place
    assert "PRIVATE" not in "\n".join(status.slurm_lines(out, []))
    records(out, {"array_job": "../outside/secret", "shards": [0], "of": 1, "logs": str(logs)},  # not a job's id
            {"array_job": "8", "shards": [0], "of": 1, "logs": str(outside / "secret.txt")})
    text = "\n".join(status.slurm_lines(out, []))
    assert "PRIVATE" not in text and "../outside" not in text
    assert snapshot(outside) == before


@pytest.mark.parametrize("line", ["5", "[]", "{\"array_job\": 5}", "[" * 50_000, "{\"check_job\": \"1\", \"after\": []}"])
def test_a_mistyped_submissions_line_is_left_out(tmp_path, failed, line):
    out = tmp_path / "out"
    (out / "slurm").mkdir(parents=True)
    (out / "slurm" / SUBMISSIONS).write_text(line + "\n")
    assert status.slurm_lines(out, []) == []


def test_a_fifo_in_a_logs_place_is_not_waited_on(tmp_path, failed):
    import os

    out, logs = tmp_path / "out", tmp_path / "logs"
    logs.mkdir()
    os.mkfifo(logs / "7_0.out")
    records(out, {"array_job": "7", "shards": [0], "of": 1, "logs": str(logs)})
    assert "not a regular file" in "\n".join(status.slurm_lines(out, []))


@pytest.mark.slow
def test_a_predictions_file_at_its_limits_is_read_within_the_bounds_and_past_them_is_one_line(rendered, tmp_path):
    """eval's limits (docs/security.md): at most LINES_LIMIT lines and FILE_LIMIT bytes. At the line limit,
    every line the cheapest kind to write and the costliest kind to read (a distinct item OUT does not hold),
    eval ends with its scores within hostile.mewl's bounds (60 s, 2 GB); one line more, or a byte past the
    size, is one line before any scoring."""
    from mewl_gen.results.predictions import FILE_LIMIT, LINES_LIMIT

    path = tmp_path / "predictions.jsonl"
    held = json.dumps({"split": "train", "task": RENDERED_TASK, "index": 0, "answer": True}) + "\n"
    with path.open("w") as f:
        f.write(held)
        f.writelines(f'{{"key":"train/{RENDERED_TASK}/{i}","answer":1}}\n' for i in range(10, 10 + LINES_LIMIT - 1))
    r = mewl("eval", rendered, path)
    assert r.returncode == 1 and "over 3 items" in r.stdout, r.stderr[-2000:]
    assert f"{LINES_LIMIT - 1} predictions for items OUT does not hold (not counted)" in r.stderr
    with path.open("a") as f:
        f.write("1\n")
    assert f"more than {LINES_LIMIT:,} lines, more than a predictions file may have" in one_line(mewl("eval", rendered, path))
    path.write_bytes(held.encode() + b" " * FILE_LIMIT)
    assert "more than a predictions file may be" in one_line(mewl("eval", rendered, path))
