"""`mewl audit icy OUT`: what an icy-episodes item tells a model that should not be read, from its files.

Reads item.json only (never the sampler). Two probes (tasks.audit.Probe), each a gradient-boosted
scorer of the five choices, fitted on some items and scored on the others (two halves when there are
plenty, five folds when few):

- names only: the context panels' names (their messages, which are also the panels' file stems)
  and the choices, never an image. A choice's features are how its message agrees with each panel's,
  letter by letter and by its beginning and end, and with the other choices'. Without an image no
  message is tied to an object, so the floor is 1/5. The query's truth is left out on purpose: the
  language is the dataset's, so a model fitted on other items' queries and answers learns its words
  (icy-naming's task), which is no shortcut through the names.
- identity: index, retry, root seed and every scene's seed, attempt, camera and lights, with the
  choices known by their position only; the answer's position is uniform, so the floor is 1/5.

icy-naming has one image and an open answer (its message); it has no names or choices to probe, and
its row says so.
"""
from __future__ import annotations

import numpy as np

from ..audit import Probe, leaking
from ..benchmark import Audit, AuditRun
from ..stored import StoredItem

PROBES = ("names-only learned", "identity learned")
COLUMNS = ("split", "task", "n", *PROBES, "verdict")
NOTES = ("'accuracy [95 % interval] / floor'; names-only: the panels' messages and the choices, never an "
         "image (the query's truth would let a model learn the dataset's language from other items); identity: index, retry, seeds, camera and lights, choices by "
         "position only; each a gradient-boosted scorer of the choices, cross-validated")
MIN_ITEMS = 25  # fewer: no model worth reporting


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


def _scene_fields(scene: dict) -> list[float]:
    camera = scene["camera"]
    lights = sorted(scene["lights"], key=lambda light: light["name"])
    return [scene["seed"] % 2**24, scene["attempt"], *camera["location"], *camera["rotation"], camera["lens_mm"],
            *(v for light in lights for v in (*light["location"], light["energy"], light["size"]))]


def identity_rows(item: dict) -> np.ndarray:
    fields = [item["index"], item["retry"], item["root_seed"] % 2**24]
    for scene in [p["scene"] for p in item["context_panels"]] + [item["query"]]:
        fields += _scene_fields(scene)
    return np.array([[k, *fields] for k in range(len(item["choices"]))], dtype=float)


def cross_validated(rows: list[np.ndarray], answers: list[int], seed: int = 0) -> np.ndarray:
    """Whether a model fitted on the other fold(s) ranks each item's answer first."""
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


def probes(items: list[dict]) -> dict[str, Probe]:
    """The names-only and identity probes over icy-episodes items (empty ones below MIN_ITEMS)."""
    floor = 1 / len(items[0]["choices"]) if items else 1 / 5
    if len(items) < MIN_ITEMS:
        return {name: Probe(0, 0, floor) for name in PROBES}
    answers = [it["choices"].index(it["answer"]) for it in items]
    found = {}
    for name, rows in (("names-only learned", names_rows), ("identity learned", identity_rows)):
        hits = cross_validated([rows(it) for it in items], answers)
        found[name] = Probe(int(hits.sum()), len(hits), floor)
    return found


def row(split: str, task: str, items: list[StoredItem], run: AuditRun) -> dict:
    cells = {"split": split, "task": task, "n": str(len(items))}
    if task != "icy-episodes":
        return cells | {name: "- (no names or choices)" for name in PROBES} | {"verdict": "ok"}
    found = probes([s.record() for s in items])
    return cells | {name: p.cell() for name, p in found.items()} | {"verdict": "; ".join(leaking(found)) or "ok"}


AUDIT = Audit(columns=COLUMNS, row=row, notes=NOTES)
