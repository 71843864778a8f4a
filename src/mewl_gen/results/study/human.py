"""The human row a study's scoring writes, and reads back for `mewl eval --human`.

`mewl study score ... --to FOLDER` writes FOLDER/human.jsonl (mewl eval's predictions: each item's most
chosen answer), FOLDER/human.json (per split and task: accuracy, its bootstrap interval, participants,
agreement; the row) and FOLDER/participants.csv (each participant, kept or why excluded). `mewl eval OUT
PREDICTIONS --human FOLDER/human.json` shows the row as "human (this dataset)" beside the paper's."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.json_depth import NotFinite, finite_loads
from mewl_gen.scenes.spec import SpecError, read_regular
from mewl_gen.store.files import write_atomic
from mewl_gen.store.new_folder import NewFolder

from ..spreadsheet import row as sheet_row
from .score import RESULTS_LIMIT, Result

LABEL = "human (this dataset)"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def write(folder: Path, result: Result) -> None:
    """The three files into FOLDER, a new (or empty) folder, made whole (store.new_folder)."""
    with NewFolder(folder, "write the scores") as root:
        _write(root, result)


def _write(root: Path, result: Result) -> None:
    write_atomic(root, root / "human.jsonl", "".join(json.dumps(p) + "\n" for p in result.predictions), sync=False)
    kept = [p for p in result.participants if not p.excluded]
    row = {"who": LABEL, "study": result.study, "rules": vars(result.rules),
           "participants": {"kept": len(kept), "excluded": len(result.participants) - len(kept)},
           "tasks": [{"split": s.split, "task": s.task, "accuracy": s.accuracy, "interval": list(s.interval),
                      "responses": s.responses, "items": s.items, "participants": s.participants,
                      "excluded": s.excluded, "agreement": s.agreement} for s in result.tasks]}
    write_atomic(root, root / "human.json", json.dumps(row, indent=1) + "\n", sync=False)
    sheet = io.StringIO(newline="")
    w = csv.writer(sheet)
    w.writerow(["participant", "kept", "why excluded", "trials answered"])
    for p in result.participants:
        w.writerow(sheet_row([p.name, "no" if p.excluded else "yes", p.excluded, len(p.answers)]))
    write_atomic(root, root / "participants.csv", sheet.getvalue(), sync=False)


def table(result: Result) -> str:
    kept = sum(1 for p in result.participants if not p.excluded)
    head = ["split", "task", "accuracy", "95 % interval", "responses", "items", "kept", "excluded", "agreement"]
    rows = [[s.split, s.task, _pct(s.accuracy), f"[{_pct(s.interval[0])}, {_pct(s.interval[1])}]", str(s.responses),
             str(s.items), str(s.participants), str(s.excluded), _pct(s.agreement)] for s in result.tasks]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]
    why = sorted({p.excluded for p in result.participants if p.excluded})
    return "\n".join([*lines, "", f"participants: {kept} kept, {len(result.participants) - kept} excluded"
                      + (f" ({'; '.join(why[:3])}{' ...' if len(why) > 3 else ''})" if why else "")])


def read_row(path: Path) -> dict[tuple[str, str], dict]:
    """(split, task) -> {accuracy, interval} of a human.json; one line where the file is not one."""
    try:
        text = read_regular(path, RESULTS_LIMIT, "a human.json", links=False).decode("utf-8")
    except (SpecError, OSError, UnicodeDecodeError):
        raise UserError(f"--human {path} is not a regular file of a readable size") from None
    try:
        data = finite_loads(text)
        row = {}
        for t in data["tasks"]:
            lo, hi = t["interval"]
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1
                       for x in (t["accuracy"], lo, hi)):
                raise TypeError
            if not (isinstance(t["split"], str) and isinstance(t["task"], str)):
                raise TypeError
            row[(t["split"], t["task"])] = {"accuracy": float(t["accuracy"]), "interval": [float(lo), float(hi)]}
    except NotFinite as err:
        raise UserError(f"--human {path}: {err}; expected the human.json mewl study score writes") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError):
        raise UserError(f"--human {path} is not the human.json mewl study score writes") from None
    return row


def attach(found: list[dict], row: dict[tuple[str, str], dict]) -> None:
    """Each of mewl eval's rows gets the human row's (read_row) accuracy and interval for its split and task
    (None where the row has none)."""
    for r in found:
        r[LABEL] = row.get((r["split"], r["task"]))
