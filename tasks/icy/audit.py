"""`mewl audit icy OUT`: what ICY's items test, measured from the files.

Reads each item's item.json and, where the item is rendered, its images'
ground truth (else the same fields from the scene specs); the language's
table is rebuilt from the item's root seed and spec, as the manifest holds
it. Per split and task:

- oracle: the file-only checker (solver.py) finds every image's object named
  by the table, the answer naming the query and the split's pairs kept
  (held-out pairs in test only); under CONCAT solve_concat also reads the
  answer off the panels. Must be 1.
- text-only: no image. icy-naming has no text: the message guessed most
  often in the first half of the items, scored on the second, against 1 over
  the objects the split shows. icy-episodes: a gradient-boosted classifier
  on the six utterances and five choices (for each choice, how many
  utterances share each of its four word blocks and how many of its symbols
  stand where the utterances' do), fitted on the first half, against 1/5.
- identity fields: the same classifier on index, retry, seeds and camera and
  light jitter (tasks.audit.identity), against the same floor.
- repeats: the share of items whose key (`stored_key`: the objects shown and
  the messages, up to camera, lights, positions and seeds) is another split's
  item's; 0 in test, which holds by construction (a test query or naming
  object is of a held-out pair, which no other split shows).

Exit 1 when the oracle misses an item or a probe is above its floor.
"""
from __future__ import annotations

import functools
import json
from collections import Counter

from scenes.image_truth import geometric_truth
from scenes.spec import SceneSpec
from scenes.universe import TUPLE_ORDER

from ..audit import Probe, identity, leaking, learned, measured, repeat_failures, repeats
from ..benchmark import Audit, AuditRun
from ..stored import StoredItem
from . import solver
from .language import LanguageSpec, language_json

COLUMNS = ("split", "task", "n", "oracle", "held-out share", "text-only", "identity fields", "repeats", "verdict")
NAMING, QUESTION, IMAGE = "icy-naming", "question", "image"
BLOCKS = 4  # words per message: one per attribute
MIN_LEARNED = 100  # fewer items than this: no learned probe (half of them would be noise)


def truth(stored: StoredItem, name: str, scene: dict, label: str | None = None) -> dict:
    """An image's ground truth; for a sampled item the fields its scene spec gives, its object's name
    being `label` (what the item's record names it)."""
    rendered = stored.truth(name)
    if rendered is not None:
        return rendered
    found = geometric_truth(SceneSpec.model_validate(scene))
    found["objects"][0]["name"] = label
    return found


@functools.lru_cache(maxsize=8)
def _language(root_seed: int, spec: str) -> dict:
    return language_json(root_seed, LanguageSpec.model_validate_json(spec))


def language_of(item: dict) -> dict:
    """The whole language of an item, rebuilt from its root seed and spec (as the manifest holds it)."""
    return _language(item["root_seed"], json.dumps(item["language"], sort_keys=True))


def _shown(scene: dict) -> list[str]:
    return [scene["objects"][0][a] for a in TUPLE_ORDER]


def stored_key(stored: StoredItem) -> str:
    """What an item shows up to camera, lights, positions and seeds: its objects and its messages."""
    item = stored.record()
    if item["task"] == NAMING:
        return json.dumps([item["task"], _shown(item["scene"]), item["message"]])
    panels = sorted([p["utterance"], _shown(p["scene"])] for p in item["context_panels"])
    return json.dumps([item["task"], panels, _shown(item["query"]), sorted(item["choices"]), item["answer"]])


def text_features(item: dict, c_w: int) -> list[int]:
    """Per choice, in the given order: for each of its word blocks how many utterances have that block
    there, and how many of its symbols stand at the same place in an utterance (summed over them)."""
    said = [p["utterance"] for p in item["context_panels"]]
    found = []
    for choice in item["choices"]:
        found += [sum(u[k * c_w:(k + 1) * c_w] == choice[k * c_w:(k + 1) * c_w] for u in said) for k in range(BLOCKS)]
        found.append(sum(a == b for u in said for a, b in zip(u, choice)))
    return found


def _measure(items: list[StoredItem]) -> list[tuple]:
    """Per item: (the oracle's problems, held out?, the target, text features, identity features, floor)."""
    rows = []
    for stored in items:
        item = stored.record()
        language = language_of(item)
        pool = sum(solver.held_out(language, tuple(o[a] for a in language["attributes"])) == (item["split"] ==
                   solver.TEST_SPLIT) for o in language["objects"])
        if item["task"] == NAMING:
            problems = solver.check_naming(item, truth(stored, IMAGE, item["scene"], item["message"]), language)
            rows.append((problems, item["held_out"], item["message"], [], identity(item, [item["scene"]]), 1 / pool))
            continue
        truths = {p["name"]: truth(stored, p["name"], p["scene"], p["name"]) for p in item["context_panels"]}
        truths[QUESTION] = truth(stored, QUESTION, item["query"])
        problems = solver.check_episode(item, truths, language)
        if language["grammar"]["name"] == "concat" and solver.solve_concat(item, truths, language) != item["answer"]:
            problems.append("the panels do not teach the answer's words")
        scenes = [p["scene"] for p in item["context_panels"]] + [item["query"]]
        rows.append((problems, item["held_out"], item["choices"].index(item["answer"]),
                     text_features(item, language["word_length"]), identity(item, scenes), 1 / len(item["choices"])))
    return rows


def majority(targets: list) -> Probe:
    """A guesser with no input: the first half's most frequent answer, scored on the second half."""
    half = len(targets) // 2
    guess = Counter(targets[:half]).most_common(1)[0][0]
    return Probe(sum(t == guess for t in targets[half:]), len(targets) - half, 0.0)


def row(split: str, task: str, items: list[StoredItem], run: AuditRun) -> dict:
    rows = measured(_measure, items, run.workers)
    n, floor = len(rows), rows[0][5]
    targets = [r[2] for r in rows]
    failures = [f"{items[k].key}: {p}" for k, r in enumerate(rows) for p in r[0]][:3]
    found = {"split": split, "task": task, "n": n, "oracle": sum(not r[0] for r in rows) / n,
             "held-out share": sum(r[1] for r in rows) / n}
    probes = {}
    if n >= MIN_LEARNED:
        text = majority(targets) if task == NAMING else learned([r[3] for r in rows], targets, floor)
        probes = {"text-only": Probe(text.hits, text.n, floor),
                  "identity fields": learned([r[4] for r in rows], targets, floor)}
    found.update({name: probes[name].cell() if name in probes else "-" for name in ("text-only", "identity fields")})
    failures += leaking(probes)
    repeated = repeats(items, run.others, stored_key, run.workers)
    found["repeats"] = repeated.cell()
    failures += repeat_failures(split, repeated)
    found["verdict"] = "ok" if not failures else "; ".join(failures)
    return found


AUDIT = Audit(columns=COLUMNS, row=row, notes="floors: text-only and identity fields at 1 over the answers a guess "
              "chooses from (icy-naming: the objects the split shows; icy-episodes: the five choices); repeats at 0 "
              "in test (train and val may share items)")
