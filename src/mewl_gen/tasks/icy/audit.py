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
- names only (icy-episodes): the context panels' names (their messages,
  also the panels' file stems) and the choices, never an image: per choice,
  how its message agrees with each panel's, letter by letter and by its
  beginning and end, and with the other choices'; a gradient-boosted scorer
  cross-validated over the items, against 1/5. The query's truth is left out
  on purpose: the language is the dataset's, so a model fitted on other
  items' queries and answers learns its words (icy-naming's task), which is
  no shortcut through the names.
- learned, context withheld (icy-episodes, views.py): the query and the choices alone, each choice by
  how its message stands among the others; a gradient-boosted scorer fitted on `--train`'s items,
  against 1/5. Only where `--train` is another seed's: the language is the dataset's, and a model fitted on
  items of one language learns its words (icy-naming's task) from the messages' letters.
- choice markers (icy-episodes, views.py): the marker scan (tasks.audit.markers) of the answer's
  choice, read as the object it names among the five choices' objects, against another choice's (a
  coin of the index), each with its slot: no statistic under its bound.
- rule-aware (tasks.audit.rules, `admits`): the sampler's rules replayed
  under every answer (icy-episodes: the five choices; icy-naming: every
  message of the objects the split shows) with the language's table and the
  context panels' messages, never an image: the query's pair of the split's
  share, the choices' objects fair (five colors, the query's material and
  size, all of the split's share), the context teaching them alike; a guess
  among the answers they admit, against 1 over the answers.
- repeats: the share of items whose key (`stored_key`: the objects shown and
  the messages, up to camera, lights, positions and seeds) is another split's
  item's; 0 in test, which holds by construction (a test query or naming
  object is of a held-out pair, which no other split shows).

Exit 1 when the oracle misses an item, a probe is above its floor or the replayed rules reject an
item's own answer.
"""
from __future__ import annotations

import functools
import itertools
import json
from collections import Counter

import numpy as np

from mewl_gen.scenes.image_truth import geometric_truth
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import TUPLE_ORDER

from ..audit import Audit, AuditRun, Findings, Probe, identity, leaking, learned, measured
from ..audit import scikit
from ..audit.markers import scan
from ..audit.rules import consistent, rule_column
from ..stored import StoredItem
from . import solver
from .item import TEST_SPLIT, shown_in
from .language import LanguageSpec, language, language_json
from .validate import readings, shown_fairly
from .views import answer_and_distractor, item_choices, probe as withheld_probe

WITHHELD = "learned, context withheld"
MARKERS = "choice markers"
COLUMNS = ("n", "oracle", "held-out share", "text-only", "names-only", "identity fields", WITHHELD, MARKERS,
           "rule-aware")
NAMING, QUESTION, IMAGE = "icy-naming", "question", "image"
BLOCKS = 4  # words per message: one per attribute
MIN_LEARNED = 100  # fewer items than this: no learned probe (half of them would be noise)
MIN_ITEMS = 25  # fewer: no cross-validated names-only model worth reporting


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


@functools.lru_cache(maxsize=8)
def _named(root_seed: int, spec: LanguageSpec) -> dict[str, tuple]:
    """message -> the objects the language names by it (more than one only under PROJ)."""
    found: dict[str, list] = {}
    for o, m in language(root_seed, spec).messages.items():
        found.setdefault(m, []).append(o)
    return {m: tuple(objects) for m, objects in found.items()}


def answers(item: dict) -> tuple[str, ...]:
    """What an item's answer could be: icy-episodes' five choices; icy-naming's every message of the objects
    its split shows."""
    if item["task"] != NAMING:
        return tuple(item["choices"])
    lang = language(item["root_seed"], LanguageSpec.model_validate(item["language"]))
    return tuple(sorted({lang.messages[o] for o in shown_in(item["split"], lang)}))


def admits(item: dict, answer: str) -> bool:
    """The sampler's rules on an item's released fields (split, held_out, the language's table as the
    manifest holds it, the context panels' messages and the choices; never an image) with `answer` as
    its answer: it names an object of the split's share (held out in test only, as held_out says); in
    icy-episodes, read through the table, the choices are fair (five colors, the query's material and
    size, every one of the split's share) and the context shows them as the sampler's layouts and
    `teaches` keep them (each choice's color once, no choice's pair, every shape alike, CONCAT's and
    SHUFDET's answer derived), validate.shown_fairly. The answer's slot, a coin drawn last, reads nothing."""
    spec = LanguageSpec.model_validate(item["language"])
    lang, named = language(item["root_seed"], spec), _named(item["root_seed"], spec)
    test = item["split"] == TEST_SPLIT
    queries = [o for o in named.get(answer, ()) if lang.held_out(o) == test == item["held_out"]]
    if item["task"] == NAMING:
        return bool(queries)
    shown = [[o for o in named.get(p["utterance"], ()) if not lang.held_out(o)] for p in item["context_panels"]]
    contexts = [list(c) for c in itertools.product(*shown)]
    return any(shown_fairly(context, lang, objects, item["split"]) for query in queries
               for objects in readings(item["choices"], answer, lang, query) for context in contexts)


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
            options = answers(item)
            rows.append((problems, item["held_out"], item["message"], [], identity(item, [item["scene"]]), 1 / pool,
                         consistent(item, options, admits), item["message"], len(options), None, None))
            continue
        truths = {p["name"]: truth(stored, p["name"], p["scene"], p["name"]) for p in item["context_panels"]}
        truths[QUESTION] = truth(stored, QUESTION, item["query"])
        problems = solver.check_episode(item, truths, language)
        if language["grammar"]["name"] == "concat" and solver.solve_concat(item, truths, language) != item["answer"]:
            problems.append("the panels do not teach the answer's words")
        scenes = [p["scene"] for p in item["context_panels"]] + [item["query"]]
        rows.append((problems, item["held_out"], item["choices"].index(item["answer"]),
                     text_features(item, language["word_length"]), identity(item, scenes), 1 / len(item["choices"]),
                     consistent(item, answers(item), admits), item["answer"], len(item["choices"]),
                     item_choices(item, language["word_length"] or 0), answer_and_distractor(item)))
    return rows


def _agreement(a: str, b: str) -> list[float]:
    """Letters equal at the same place, common beginning, common end."""
    same = sum(x == y for x, y in zip(a, b))
    prefix = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    suffix = next((k for k, (x, y) in enumerate(zip(a[::-1], b[::-1])) if x != y), min(len(a), len(b)))
    return [same, prefix, suffix]


def names_rows(item: dict) -> np.ndarray:
    """Per choice: its position and length, its agreement with the panels' names (most, least, summed,
    and how many panels share its first or last letter) and with the other choices."""
    names = [p["name"] for p in item["context_panels"]]
    rows = []
    for k, c in enumerate(item["choices"]):
        panels = np.array([_agreement(c, n) for n in names], dtype=float)
        others = np.array([_agreement(c, o) for o in item["choices"] if o != c], dtype=float)
        rows.append([k, len(c), *panels.max(axis=0), *panels.min(axis=0), *panels.sum(axis=0),
                     sum(n[:1] == c[:1] for n in names), sum(n[-1:] == c[-1:] for n in names),
                     *others.max(axis=0), *others.sum(axis=0)])
    return np.array(rows, dtype=float)


def cross_validated(rows: list[np.ndarray], answers: list[int], seed: int = 0) -> np.ndarray:
    """Whether a model fitted on the other fold(s) ranks each item's answer first."""
    scikit.load()
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads only for an audit
    from threadpoolctl import threadpool_limits

    n, choices = len(rows), len(rows[0])
    folds = 2 if n >= 400 else 5
    fold = np.random.default_rng(seed).permutation(n) % folds
    labels = [np.arange(choices) == a for a in answers]
    out = np.zeros(n, dtype=bool)
    rng = np.random.default_rng(seed)
    with threadpool_limits(limits=1):  # small fits; OpenMP threads only slow a shared machine down
        for f in range(folds):
            train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            model = HistGradientBoostingClassifier(max_iter=150, max_leaf_nodes=15, l2_regularization=1.0,
                                                   early_stopping=False, random_state=0)
            model.fit(np.vstack([rows[i] for i in train]), np.concatenate([labels[i] for i in train]))
            score = model.predict_proba(np.vstack([rows[i] for i in test]))[:, 1].reshape(-1, choices)
            picks = (score + rng.uniform(0, 1e-9, size=score.shape)).argmax(axis=1)
            out[test] = picks == np.array([answers[i] for i in test])
    return out


def names_probe(items: list[dict]) -> Probe:
    """Names only over icy-episodes records: the cross-validated scorer of the choices on names_rows."""
    floor = 1 / len(items[0]["choices"]) if items else 1 / 5
    if len(items) < MIN_ITEMS:
        return Probe(0, 0, floor)
    hits = cross_validated([names_rows(it) for it in items], [it["choices"].index(it["answer"]) for it in items])
    return Probe(int(hits.sum()), len(hits), floor)


def _seeds(items: list[StoredItem]) -> set[int]:
    return {s.record()["root_seed"] for s in items}


def majority(targets: list) -> Probe:
    """A guesser with no input: the first half's most frequent answer, scored on the second half."""
    half = len(targets) // 2
    guess = Counter(targets[:half]).most_common(1)[0][0]
    return Probe(sum(t == guess for t in targets[half:]), len(targets) - half, 0.0)


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    rows = measured(_measure, items, run.workers)
    n, floor = len(rows), rows[0][5]
    targets = [r[2] for r in rows]
    failures = [f"{items[k].key}: {p}" for k, r in enumerate(rows) for p in r[0]][:3]
    found = {"n": n, "oracle": sum(not r[0] for r in rows) / n,
             "held-out share": sum(r[1] for r in rows) / n}
    probes = {}
    if n >= MIN_LEARNED:
        text = majority(targets) if task == NAMING else learned([r[3] for r in rows], targets, floor)
        probes = {"text-only": Probe(text.hits, text.n, floor),
                  "identity fields": learned([r[4] for r in rows], targets, floor)}
    if task != NAMING:
        probes["names-only"] = names_probe([s.record() for s in items])
        if run.train and not _seeds(run.train) & _seeds(items):  # another language: its words are not these
            probes[WITHHELD] = withheld_probe([r[9] for r in rows], [r[9] for r in measured(_measure, run.train,
                                                                                             run.workers)])
    found.update({name: probes[name].cell() if name in probes and probes[name].n else "-"
                  for name in ("text-only", "names-only", "identity fields", WITHHELD)})
    failures += leaking(probes)
    pairs = [r[10] for r in rows if r[10] is not None]
    marked = scan([a for a, _ in pairs], [d for _, d in pairs])
    found[MARKERS] = marked.cell()
    failures += marked.failures("the answer's choice")
    aware, replayed = rule_column([r[7] for r in rows], [r[6] for r in rows], [s.index for s in items], 1 / rows[0][8])
    found["rule-aware"] = aware.cell()
    failures += replayed
    return Findings(found, failures)


AUDIT = Audit(COLUMNS, findings, stored_key, learns=True, notes=(
    "floors: text-only, names-only, identity fields and the context withheld (fitted on another seed's --train "
    "only) at 1 over the answers a guess chooses from (icy-naming: the objects the split shows; icy-episodes: the "
    "five choices); rule-aware: the sampler's rules replayed under every answer (the five choices; icy-naming: "
    "the split's messages) with the language's table, never an image, a guess among those they admit, at 1 over "
    "the answers; repeats at 0 in test (train and val may share items)"))
