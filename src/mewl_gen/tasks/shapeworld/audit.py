"""`mewl audit shapeworld OUT`: what ShapeWorld's items test, measured from the files.

Reads each item's item.json (sampled or rendered; never the sampler) and,
where the item is rendered, its image.json (else the same fields from the
item's scene spec). Per split and task:

- the file-only evaluator (solver.py) re-deciding every caption and its
  near miss (must be 1);
- the share of agreeing captions (a fair coin per item: within the
  verdict's interval of 1/2);
- deprived solvers against their floor of 1/2, each fitted on the first
  half of the items and scored on the second: a bag of words over the
  caption alone; a gradient-boosted classifier over the scene's statistics
  alone (object count, shape, color, material and size histograms; no
  caption); one over the identity fields (index, retry, seeds, camera and
  light jitter); and, fitting nothing, the other label than the index
  partner's (2j, 2j+1);
- quantifier and count: the same classifier over the caption's quantifiers
  (with their numbers) and the scene's object count alone (the count is
  drawn with the caption pair, before the label): at 1/2;
- the learned view probes (views.py), caption withheld (the scene's generic statistics) and scene
  withheld (the caption's words and logical form), each a gradient-boosted model fitted on `--train`'s
  items where given, else on the first half by index: at 1/2;
- the marker scan (tasks.audit.markers) of the caption's referents (the objects matching a
  description it states, which the sampler redraws and places until they decide it) against the
  scene's other objects (views.py): no statistic under its bound;
- the rule-aware solver (tasks.audit.rules): the sampler's rules that
  keep or place an item (the split side of its key, the held-out
  combinations its caption pair may use) replayed under both answers on the
  item's released fields, guessing among the answers they admit: at 1/2;
- the share of items repeating another split's item (tasks.audit.repeats
  on repeats.stored_key: 0 in test);
- the share of captions with a definite description, and the held-out
  combinations of the item's distribution found in its caption, near miss
  or image: none in train or val, one at least in every test item.

Exit 1 when any of these fails.
"""
from __future__ import annotations

import json
from typing import get_args

import numpy as np

from mewl_gen.scenes.image_truth import geometric_truth
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER

from ..audit import (REPEATS, Audit, AuditRun, Findings, Probe, balanced, identity, index_pairs, leaking, learned,
                     measured)
from ..audit import scikit
from ..audit.markers import scan
from ..audit.rules import consistent, rule_column
from ..audit.views import halves_probe
from ..stored import StoredItem
from . import solver
from . import repeats
from .distribution import Distribution
from .item import OBJECTS, ShapeWorldItem
from .logic import COUNTED, NUMBERS, Quantifier
from .sample import _held_out_ok
from .views import caption_view, referent_and_distractor, scene_view

VIEWS = ("learned, caption withheld", "learned, scene withheld")
COLUMNS = ("n", "evaluator", "near miss", "agree share", "caption-only", "scene statistics", "identity fields",
           "index pairs", "quantifier x count", *VIEWS, "referent markers", "rule-aware", REPEATS, "with 'the'",
           "held-out items")
TEST_SPLIT = "test"
MIN_LEARNED = 100  # fewer items than this: no caption-only classifier (half of them would be noise)


def truth(stored: StoredItem, item: dict) -> dict:
    """image.json when rendered; else its objects and relationships from the scene spec."""
    rendered = stored.truth("image")
    return rendered if rendered is not None else geometric_truth(SceneSpec.model_validate(item["scene"]))


def _definite(form: dict) -> bool:
    return any(a["kind"] == "relation" and "the" in (a.get("subject_determiner"), a.get("object_determiner"))
               for a in solver.atoms(form))


def statistics(image: dict) -> list[int]:
    """What the scene shows without the caption: its object count (one-hot over every task's range) and
    how many objects have each shape, color, material and size."""
    objects = image["objects"]
    most = max(hi for _, hi in OBJECTS.values())
    return [int(len(objects) == k) for k in range(most + 1)] + [
        sum(o[a] == v for o in objects) for a in TUPLE_ORDER for v in ATTRIBUTES[a]]


QUANTIFIED = [(q, n) for q in get_args(Quantifier) for n in ((None,) if q not in COUNTED else NUMBERS)]


def quantified(form: dict, count: int) -> list[int]:
    """How often the caption says each quantifier with each number, and the scene's object count: what
    a solver reading only these sees."""
    found = [(a["quantifier"], a.get("number")) for a in solver.atoms(form) if a["kind"] == "quantifier"]
    return [found.count(q) for q in QUANTIFIED] + [count]


def admits(item: dict, agreement: bool) -> bool:
    """The sampler's rules on an item's released fields with `agreement` as its answer: the split side
    of its key (repeats.admits) and the held-out combinations its caption pair may use for its split."""
    objects = [tuple(o[a] for a in TUPLE_ORDER) for o in item["scene"]["objects"]]
    dist = item.get("distribution")
    dist = None if dist is None else Distribution.model_validate(dist)
    test = dist is not None and item["split"] == TEST_SPLIT
    shown = ShapeWorldItem.model_validate(item)
    pair = (shown.logical_form, shown.near_miss.logical_form)
    return (repeats.admits(item["task"], item["caption"], objects, agreement, item["split"])
            and _held_out_ok(item["task"], dist, test)(pair))


def _measure(items: list[StoredItem]) -> list[tuple]:
    rows = []
    for stored in items:
        item = stored.record()
        image = truth(stored, item)
        found = solver.held_out_found(item, image)
        stored = {json.dumps(c, sort_keys=True) for c in item.get("held_out_used", [])}
        rows.append((item["agreement"], solver.agrees(item["logical_form"], image),
                     solver.agrees(item["near_miss"]["logical_form"], image), item["caption"],
                     _definite(item["logical_form"]), len(found) > 0,
                     stored <= {json.dumps(c, sort_keys=True) for c in found},
                     item.get("distribution") is not None, statistics(image), identity(item, [item["scene"]]),
                     consistent(item, (True, False), admits),
                     quantified(item["logical_form"], len(item["scene"]["objects"])),
                     item["index"], scene_view(item["scene"]), caption_view(item["caption"], item["logical_form"]),
                     referent_and_distractor(item)))
    return rows


def _views(rows: list[tuple], train: list[tuple] | None) -> dict[str, Probe]:
    """The learned view probes (views.py), each fitted on `train`'s rows where given, else on the first half
    (none on fewer than MIN_LEARNED items)."""
    if not train and len(rows) < MIN_LEARNED:
        return {name: Probe(0, 0, 0.5) for name in VIEWS}
    return {name: halves_probe([(r[12], r[k], r[0]) for r in rows], [(r[k], r[0]) for r in train] if train else None,
                               0.5) for name, k in zip(VIEWS, (13, 14))}


def caption_only(captions: list[str], labels: list[bool]) -> tuple[int, int]:
    """(right, tested) of a bag of words (1- and 2-grams) with logistic regression, first half -> second."""
    scikit.load()
    from sklearn.feature_extraction.text import CountVectorizer  # loads only for an audit
    from sklearn.linear_model import LogisticRegression

    half = len(captions) // 2
    words = CountVectorizer(ngram_range=(1, 2)).fit(captions[:half])
    model = LogisticRegression(max_iter=2000).fit(words.transform(captions[:half]), labels[:half])
    predicted = model.predict(words.transform(captions[half:]))
    return int(np.sum(predicted == np.array(labels[half:]))), len(captions) - half


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    rows = measured(_measure, items, run.workers)
    n = len(rows)
    labels = [r[0] for r in rows]
    found = {"n": n, "evaluator": sum(r[1] == r[0] for r in rows) / n,
             "near miss": sum(r[2] != r[0] for r in rows) / n, "agree share": sum(labels) / n,
             "with 'the'": sum(r[4] for r in rows) / n}
    failures = []
    if found["evaluator"] < 1 or found["near miss"] < 1:
        failures.append("the file-only evaluator disagrees")
    if not balanced(sum(labels), n):  # a fair coin per item
        failures.append("agreement not half")
    probes = {}  # the deprived solvers, learned on the first half of the items, scored on the second
    if n >= MIN_LEARNED and len(set(labels[: n // 2])) == 2:
        probes = {"caption-only": Probe(*caption_only([r[3] for r in rows], labels), 0.5),
                  "scene statistics": learned([r[8] for r in rows], labels, 0.5),
                  "identity fields": learned([r[9] for r in rows], labels, 0.5),
                  "quantifier x count": learned([r[11] for r in rows], labels, 0.5)}
    if n >= MIN_LEARNED:
        probes["index pairs"] = index_pairs([s.index for s in items], labels)
    found.update({name: probes[name].cell() if name in probes else "-"
                  for name in ("caption-only", "scene statistics", "identity fields", "index pairs",
                               "quantifier x count")})
    failures += leaking(probes)
    viewed = _views(rows, measured(_measure, run.train, run.workers) if run.train else None)
    found.update({name: p.cell() for name, p in viewed.items()})
    failures += leaking(viewed)
    pairs = [r[15] for r in rows if r[15] is not None]
    referents = scan([role for role, _ in pairs], [pool for _, pool in pairs])
    found["referent markers"] = referents.cell()
    failures += referents.failures("the caption's referents")
    aware, replayed = rule_column(labels, [r[10] for r in rows], [s.index for s in items], 0.5)
    found["rule-aware"] = aware.cell()
    failures += replayed
    if any(r[7] for r in rows):
        using = sum(r[5] for r in rows)
        found["held-out items"] = using
        if split == TEST_SPLIT and using < n:
            failures.append(f"{n - using} test items without a held-out combination")
        if split != TEST_SPLIT and using:
            failures.append(f"{using} {split} items with a held-out combination")
        if not all(r[6] for r in rows):
            failures.append("held_out_used names a combination the files do not show")
    else:
        found["held-out items"] = "- (iid)"
    return Findings(found, failures)


AUDIT = Audit(COLUMNS, findings, repeats.stored_key, learns=True)
