"""`mewl study score DIR RESULTS...`: a study's participants, scored against its key.

The exclusions are stated, and printed, before anything is scored: a participant who passes fewer catch
trials than `min_catch`, or more of whose scored responses than `max_fast` come faster than `fast_ms`, is
excluded whole, and so is one with no scored response. Then, per split and task, over the participants
kept: human accuracy (every response counts once), a 95 % bootstrap interval that resamples participants
and items both (each draw weighs a response by how often its participant and its item were drawn),
participants kept and excluded, and agreement between participants (of each item answered by two or more,
the share of pairs who gave the same answer, averaged over items).

RESULTS are what jsPsych saved (a JSON array of a participant's rows, the file the last page saves) or a
host's export of several (one JSON document per line, as JATOS exports). They come from anyone: a file is
read only if regular and within a size limit, rows of another study or for a trial the key does not know
are counted and left out, and a malformed file is one line."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mewl_gen.errors import UserError, shown
from mewl_gen.json_depth import NotFinite, finite_loads
from mewl_gen.scenes.spec import SpecError, read_regular
from mewl_gen.tasks import catalog

RESULTS_LIMIT = 64 << 20  # bytes of one results file
# Bytes of all the results files of one score: a run well under a minute and 2 GB (docs/security.md, Sizes
# and times, has the measures). One file at a time is held parsed.
RESULTS_TOTAL_LIMIT = 64 << 20
KEY_LIMIT = 256 << 20
SHOWN = 3  # names in a problem's line before "and N more"


@dataclass(frozen=True)
class Rules:
    min_catch: float  # the least share of catch trials a kept participant passes
    fast_ms: int  # a response faster than this is implausibly fast
    max_fast: float  # the most share of scored responses a kept participant gives implausibly fast

    def line(self) -> str:
        return (f"exclusions, stated before scoring: a participant is excluded who passes fewer than "
                f"{100 * self.min_catch:.0f} % of the catch trials, or more than {100 * self.max_fast:.0f} % of whose "
                f"scored responses come faster than {self.fast_ms} ms, or who gave no scored response")


@dataclass
class Participant:
    name: str
    answers: dict[str, tuple[str | None, float | None]] = field(default_factory=dict)  # trial -> (choice, rt)
    excluded: str = ""  # why; "" for kept


@dataclass(frozen=True)
class TaskScore:
    split: str
    task: str
    accuracy: float
    interval: tuple[float, float]
    responses: int
    items: int
    participants: int  # kept participants who answered an item of the task
    excluded: int  # excluded participants who answered one
    agreement: float | None


@dataclass(frozen=True)
class Result:
    study: str
    rules: Rules
    participants: list[Participant]
    tasks: list[TaskScore]
    predictions: list[dict]  # mewl eval's lines: each item's most chosen answer
    problems: list[str]


def _json(path: Path, limit: int, what: str) -> str:
    return _text(path, _read(path, limit, what), what)


def _text(path: Path, data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"cannot read {shown(path)} ({what}): {shown(err, 120)}") from None


def _read(path: Path, limit: int, what: str) -> bytes:
    try:
        return read_regular(path, limit, what, links=False)
    except SpecError as err:
        raise UserError(f"{err} ({what})") from None
    except OSError as err:
        raise UserError(f"cannot read {shown(path)} ({what}): {shown(err, 120)}") from None


def read_key(path: Path) -> tuple[str, dict[str, dict]]:
    """The study's id and its trials; one line where the file is no study's key."""
    if not path.exists():
        raise UserError(f"no key at {path}; pass the study's key with --key (mewl study wrote it beside DIR)")
    try:
        data = finite_loads(_json(path, KEY_LIMIT, "a study's key"))
        study, trials = data["study"], data["trials"]
        ok = isinstance(study, str) and isinstance(trials, dict) and all(
            isinstance(t, dict) and t.get("kind") in ("test", "catch") and isinstance(t.get("correct"), str)
            and (t["kind"] == "catch" or (isinstance(t.get("answers"), dict) and isinstance(t.get("split"), str)
                                          and isinstance(t.get("task"), str) and isinstance(t.get("index"), int)))
            for t in trials.values())
    except (ValueError, KeyError, TypeError, RecursionError):
        ok = False
    if not ok:
        raise UserError(f"{path} is not a study's key (mewl study writes one: study, trials)")
    return study, trials


def _documents(path: Path) -> tuple[list, int]:
    """A file's JSON documents (the whole file, or one per line) and its size in bytes."""
    data = _read(path, RESULTS_LIMIT, "participants' data")
    return _parsed(path, _text(path, data, "participants' data")), len(data)


def _parsed(path: Path, text: str) -> list:
    try:
        return [finite_loads(text)]
    except RecursionError:
        raise UserError(f"{path}: nested too deep to be jsPsych's data") from None
    except NotFinite as err:
        raise UserError(f"{path}: {err}; expected jsPsych's data") from None
    except ValueError:
        pass
    docs = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                docs.append(finite_loads(line))
            except NotFinite as err:
                raise UserError(f"{path}: line {number}: {err}; expected jsPsych's data") from None
            except (ValueError, RecursionError):
                raise UserError(f"{path}: line {number} is not JSON; expected jsPsych's data (a JSON array of rows, "
                                "or one per line)") from None
    return docs


class _Problems(dict):
    def add(self, kind: str, what: str) -> None:
        self.setdefault(kind, []).append(what)

    def lines(self) -> list[str]:
        return [f"{len(w)} {kind}: {', '.join(w[:SHOWN])}" + (f" (and {len(w) - SHOWN} more)" if len(w) > SHOWN else "")
                for kind, w in self.items()]


def read_results(paths: list[Path], study: str, trials: dict, problems: _Problems) -> dict[str, Participant]:
    """Every participant's first answer to each trial of the key, by participant id."""
    people: dict[str, Participant] = {}

    def too_much(at: Path) -> UserError:
        return UserError(f"the results files hold more than {RESULTS_TOTAL_LIMIT} bytes in all, more than one score "
                         f"reads (at {shown(at)}); score the study in parts")

    total = 0
    for path in paths:  # said before any is read where their sizes tell; else as they are read
        total += path.stat().st_size if path.is_file() and not path.is_symlink() else 0
        if total > RESULTS_TOTAL_LIMIT:
            raise too_much(path)
    total = 0
    for path in paths:
        docs, size = _documents(path)
        total += size
        if total > RESULTS_TOTAL_LIMIT:
            raise too_much(path)
        rows = [r for doc in docs for r in (doc if isinstance(doc, list) else [doc])]
        if not any(isinstance(r, dict) and r.get("study") == study for r in rows):
            found = {r.get("study") for r in rows if isinstance(r, dict) and isinstance(r.get("study"), str)}
            raise UserError(f"{path} holds no data of this study ({study})" +
                            (f"; it is of {', '.join(map(repr, sorted(found)[:SHOWN]))}" if found else
                             "; expected the JSON a participant saved at the end"))
        for row in rows:
            if not isinstance(row, dict) or row.get("phase") != "trial":
                continue
            trial, who = row.get("trial"), row.get("participant")
            if row.get("study") != study or not isinstance(who, str) or not isinstance(trial, str):
                problems.add("rows of another study or with no participant (left out)", path.name)
                continue
            if trial not in trials:
                problems.add("rows for a trial the key does not know (left out)", f"{path.name}: {trial[:40]!r}")
                continue
            person = people.setdefault(who, Participant(who))
            if trial in person.answers:
                problems.add("repeated answers to a trial (the first one stands)", f"{who[:40]!r}")
                continue
            choice, rt = row.get("choice"), row.get("rt")
            person.answers[trial] = (choice if isinstance(choice, str) else None,
                                     float(rt) if isinstance(rt, (int, float)) and not isinstance(rt, bool) else None)
    if not people:
        raise UserError("no participant answered a trial of this study")
    return people


def exclude(people: dict[str, Participant], trials: dict, rules: Rules) -> None:
    for p in people.values():
        catches = [trials[t]["correct"] == c for t, (c, _) in p.answers.items() if trials[t]["kind"] == "catch"]
        scored = [rt for t, (_, rt) in p.answers.items() if trials[t]["kind"] == "test"]
        fast = sum(1 for rt in scored if rt is None or rt < rules.fast_ms)
        if not scored:
            p.excluded = "no scored response"
        elif catches and sum(catches) < rules.min_catch * len(catches):
            p.excluded = f"passed {sum(catches)} of {len(catches)} catch trials"
        elif fast > rules.max_fast * len(scored):
            p.excluded = f"{fast} of {len(scored)} responses faster than {rules.fast_ms} ms"


def bootstrap(who: np.ndarray, item: np.ndarray, correct: np.ndarray, rng: np.random.Generator,
              resamples: int) -> tuple[float, float]:
    """A 95 % percentile interval of accuracy, resampling participants and items together."""
    pn, inn = int(who.max()) + 1, int(item.max()) + 1
    draws = []
    for _ in range(resamples):
        wp = np.bincount(rng.integers(pn, size=pn), minlength=pn)
        wi = np.bincount(rng.integers(inn, size=inn), minlength=inn)
        w = wp[who] * wi[item]
        if w.sum() > 0:
            draws.append(float((w * correct).sum() / w.sum()))
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def agreement(answers: dict[int, list[str]]) -> float | None:
    """The share of pairs of participants who answered an item alike, averaged over items answered twice or more."""
    shares = []
    for labels in answers.values():
        n = len(labels)
        if n >= 2:
            same = sum(c * (c - 1) for c in Counter(labels).values())
            shares.append(same / (n * (n - 1)))
    return float(np.mean(shares)) if shares else None


PEOPLE = "people (each item's most chosen answer, mewl study score)"  # who answered, as eval's figure says


def _order(split: str, task: str) -> tuple[int, str]:
    tasks = list(catalog.tasks())
    return (tasks.index(task) if task in tasks else len(tasks), split)


def score(key: Path, paths: list[Path], rules: Rules, seed: int, resamples: int) -> Result:
    """Read the key and the participants' data, exclude by the rules, score each split and task."""
    study, trials = read_key(key)
    problems = _Problems()
    people = read_results(paths, study, trials, problems)
    exclude(people, trials, rules)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5C0E]))
    by_task: dict[tuple[str, str], list[tuple[str, int, str | None]]] = {}
    shown_to_excluded: dict[tuple[str, str], set[str]] = {}
    for p in people.values():
        for t, (choice, _) in p.answers.items():
            k = trials[t]
            if k["kind"] != "test":
                continue
            if p.excluded:
                shown_to_excluded.setdefault((k["split"], k["task"]), set()).add(p.name)
            else:
                by_task.setdefault((k["split"], k["task"]), []).append((p.name, t, choice))
    scores, predictions = [], []
    for (split, task), responses in sorted(by_task.items(), key=lambda kv: _order(*kv[0])):
        # Positions by lookup, not list.index: that made scoring quadratic in participants.
        names = {name: k for k, name in enumerate(sorted({r[0] for r in responses}))}
        items = {index: k for k, index in enumerate(sorted({trials[r[1]]["index"] for r in responses}))}
        who = np.array([names[r[0]] for r in responses])
        item = np.array([items[trials[r[1]]["index"]] for r in responses])
        correct = np.array([r[2] == trials[r[1]]["correct"] for r in responses], dtype=float)
        chosen: dict[str, list[str]] = {}
        for _, t, choice in responses:
            if choice is not None:
                chosen.setdefault(t, []).append(choice)
        scores.append(TaskScore(split, task, float(correct.mean()), bootstrap(who, item, correct, rng, resamples),
                                len(responses), len(items), len(names), len(shown_to_excluded.get((split, task), ())),
                                agreement({trials[t]["index"]: labels for t, labels in chosen.items()})))
        for t in sorted(chosen, key=lambda t: trials[t]["index"]):
            counts = Counter(chosen[t])
            top = max(counts.values())
            label = min(c for c in counts if counts[c] == top)  # a tie goes to the first label by name
            if label in trials[t]["answers"]:
                predictions.append({"split": split, "task": task, "index": trials[t]["index"],
                                    "answer": trials[t]["answers"][label], "model": PEOPLE})
    if not scores:
        raise UserError(f"every participant was excluded ({len(people)}); no task can be scored")
    order = {name: k for k, name in enumerate(sorted(people))}
    return Result(study, rules, sorted(people.values(), key=lambda p: order[p.name]), scores, predictions,
                  problems.lines())
