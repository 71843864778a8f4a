"""`mewl audit bongard OUT`: are Bongard problems fair, and are their deprived solvers at chance? From the files.

Reads each problem's item.json (sampled or rendered; never the sampler)
and, where rendered, the fourteen `<name>.json` and `<name>.png`; a sampled
problem's per-image ground truth comes from its scene specs. Per split and
family:
- sound: solver.py's check (every image on its side, the concept a
  separator, no simpler separator, every separator answering both test
  images alike) finds nothing;
- file solver: a simplest separator of the context, found without reading
  the concept, answers both test images right;
- deprived solvers (probes.py), each a tasks.audit.Probe against its floor
  of 1/2: `examples withheld` (a classifier of single panels' geometry,
  fitted on other problems, never on the problem's examples), `identity
  fields` (the same on each scene spec's placement attempt and seeds),
  `names only` (the test images' names in the order shown), `count-only`
  and `histogram-only` (nearest mean over the six and six: the number of
  objects, or the color histogram: of the PNG's pixels, 4 levels per
  channel, where rendered, else the scene's area of each color x material);
- markers (views.py): `panel view`, a model of one panel's generic statistics
  fitted on other problems' labelled panels (`--train` items where given, else
  the first half by index), calling positive the test scene it scores higher;
  `distinct values`, the best of the rules "the test scene with fewer (more)
  distinct values of an attribute is the positive", its bound divided among
  the eight; both against 1/2. `edit markers` and `panel markers`, the marker
  scans (tasks.audit.markers) of the objects a near miss edited against the
  same negative's others, and of the negative panels against the positive;
- rule-aware (tasks.audit.rules): the sampler's rules that read no scene
  (one test image of each side, the concept one of the family's, freeform's
  two programs of the split's share) replayed with test_a and with test_b as
  the positive, a guess among those they admit, against 1/2.
Exit 1 when a problem is unsound, the file solver misses, a probe's
99.9 % interval lies above its floor, or the replayed rules reject a
problem's own answer, or a marker scan flags. Count-only, histogram-only,
panel view, distinct values and panel markers are judged on basic and
free-form, whose concepts say nothing of counts, colors or materials;
abstract's concepts are about them (all objects share a material, exactly
three objects, the frontmost object is red: in 3D the frontmost shows
larger), so there those solvers read the concept itself, and their cells are
shown, not judged.
"""
from __future__ import annotations

import json
import os

import numpy as np

from mewl_gen.scenes.image_truth import geometric_truth
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLORS, MATERIALS

from ..audit import Audit, AuditRun, Findings, Probe, leaking, measured
from ..audit.markers import scan
from ..audit.rules import consistent, rule_column
from ..stored import StoredItem
from . import probes, solver
from .concepts import Concept
from .freeform import near_miss_program
from .validate import concept_of_family, program_of_split
from .views import best_distinct_rule, edit_and_other, halves, panels_probe, positive_and_negative, slim

PROBES = ("examples withheld", "identity fields", "names only", "count-only", "histogram-only")
MARKERS = ("panel view", "distinct values", "edit markers", "panel markers")
COLUMNS = ("n", "sound", "file solver", *PROBES, *MARKERS, "rule-aware", "histogram of")
# A deprived solver only where the concepts are not about it (abstract's are about counts, colors, materials
# and how many values a panel shows: its panels differ by side as its concepts say).
CONCEPT_EVIDENCE = ("count-only", "histogram-only", "panel view", "distinct values", "panel markers")
ABOUT_COUNTS_AND_COLORS = ("bongard-abstract",)
NAMES = solver.NAMES
LEVELS = 4  # histogram levels per color channel
ANSWERS = ((True, False), (False, True))  # test_positive: test_a, or test_b, the positive one


def admits(item: dict, test_positive: tuple[bool, bool]) -> bool:
    """The sampler's rules on a problem's released fields (its task, split, concept and near misses, never
    a scene) with `test_positive` as its answer: one test image of each side; the concept one of the
    family's (concept_of_family); in freeform both programs, the concept's and the one its near misses
    name, of the split's share of figures. The rules that read scenes (positives redrawn until the
    concept holds and one edit breaks it, near misses, the fairness proof) read the images the task is
    about, and read the test scenes by their roles, before the coin that puts the positive at test_a or
    test_b: they admit either answer, and so does the coin."""
    c = Concept.model_validate(item["concept"])
    ok = sorted(test_positive) == [False, True] and concept_of_family(item["task"], item["split"], c)
    if item["task"] != "bongard-freeform":
        return ok
    other = near_miss_program(item["near_misses"][-1])
    return ok and other is not None and program_of_split(other, item["split"])


def _specs(item: dict) -> dict[str, SceneSpec]:
    scenes = [SceneSpec.model_validate(s) for s in item["positives"] + item["negatives"] + item["tests"]]
    return dict(zip(NAMES, scenes))


def labels(item: dict) -> dict[str, bool]:
    """Whether each of the fourteen images is a positive (the tests' from `test_positive`)."""
    return {**{n: True for n in solver.POSITIVES}, **{n: False for n in solver.NEGATIVES},
            **dict(zip(solver.TESTS, item["test_positive"]))}


def _pixel_histogram(stored: StoredItem, scene: str) -> np.ndarray:
    from PIL import Image  # loads only where pixels are audited, not at every command's start

    with os.fdopen(stored.open_file(f"{scene}.png"), "rb") as f, Image.open(f) as im:  # the door's file, no path
        rgb = np.asarray(im.convert("RGB"), dtype=np.int64) * LEVELS // 256
    codes = (rgb[..., 0] * LEVELS + rgb[..., 1]) * LEVELS + rgb[..., 2]
    bins = np.bincount(codes.ravel(), minlength=LEVELS ** 3)
    return bins / bins.sum()


def spec_histogram(spec: SceneSpec) -> np.ndarray:
    """Near enough what an image's color histogram sees: the area of each color x material (a
    metal or glass object of one color looks another color than a rubber one), by object area."""
    h = np.zeros((len(COLORS), len(MATERIALS)))
    for o in spec.objects:
        h[COLORS.index(o.color), MATERIALS.index(o.material)] += o.scale ** 2
    return h.ravel() / h.sum()


def identity(spec: SceneSpec) -> np.ndarray:
    """What a scene spec says of how it was drawn, not of what it shows."""
    return np.array([spec.attempt, spec.seed % 1024, spec.render.seed % 1024], float)


def rendered_truths(stored: StoredItem) -> dict[str, dict] | None:
    """The fourteen per-image ground truths of a rendered problem; None for a sampled one."""
    truths = {n: stored.truth(n) for n in NAMES}
    return truths if all(t is not None and stored.image(n) is not None for n, t in truths.items()) else None


def spec_truths(item: dict) -> dict[str, dict]:
    """The fields of the fourteen ground truths that the scene specs give, for a problem not rendered."""
    return {n: geometric_truth(s) for n, s in _specs(item).items()}


def truths(stored: StoredItem, item: dict) -> dict[str, dict]:
    """The rendered ground truths, or for a sampled problem the same fields from its scene specs."""
    rendered = rendered_truths(stored)
    return rendered if rendered is not None else spec_truths(item)


def points(image: dict) -> list[tuple[float, float]]:
    return [tuple(o["3d_coords"][:2]) for o in image["objects"] if o["shape"] != "arrow"]


def _measure(items: list[StoredItem]) -> list[tuple]:
    rows = []
    for stored in items:
        item = stored.record()
        rendered = rendered_truths(stored)
        images = rendered if rendered is not None else spec_truths(item)
        specs = _specs(item)
        histograms = ({n: _pixel_histogram(stored, n) for n in NAMES} if rendered is not None
                      else {n: spec_histogram(s) for n, s in specs.items()})
        counts = {n: np.array([len(points(images[n]))], float) for n in NAMES}
        truth = list(item["test_positive"])
        rows.append((not solver.check(item, images), solver.answer(item, images) == truth,
                     probes.nearer_positive(counts, truth), probes.nearer_positive(histograms, truth),
                     "pixels" if rendered is not None else "specs",
                     {n: probes.geometry(points(images[n])) for n in NAMES}, {n: identity(s) for n, s in specs.items()},
                     labels(item), bool(truth[0]), consistent(item, ANSWERS, admits), slim(item)))
    return rows


def _slims(items: list[StoredItem]) -> list[dict]:
    return [slim(stored.record()) for stored in items]


def _objects(scene: dict) -> str:
    return json.dumps(sorted(json.dumps([o[a] for a in ("shape", "color", "material", "size")])
                             for o in scene["objects"]))


def key(stored: StoredItem) -> str:
    """What a problem shows a model up to camera, lights, positions and seeds: its concept, each side's
    scenes' objects (as multisets) and each test scene's objects with its label."""
    item = stored.record()
    sides = [sorted(_objects(s) for s in item[side]) for side in ("positives", "negatives")]
    tests = [[_objects(s), positive] for s, positive in zip(item["tests"], item["test_positive"])]
    return json.dumps([item["task"], item["concept"], sides, tests])


def _markers(problems: list[dict], train: list[dict] | None, found: dict, about_values: bool) -> list[str]:
    """The learned probe of single panels and the distinct-values rule (floor 1/2), and the marker scans of
    the near misses' edited objects and of the negative panels against the positive ones (views.py);
    their cells and the verdict's words (the panels' three not judged where the concepts are about them)."""
    view = panels_probe(*reversed(halves(problems, train)))
    rule, distinct = best_distinct_rule(problems)
    pairs = [p for p in map(edit_and_other, problems) if p is not None]
    edits = scan([role for role, _ in pairs], [other for _, other in pairs])
    sides = [positive_and_negative(p) for p in problems]
    panels = scan([neg for _, neg in sides], [pos for pos, _ in sides])
    found |= {"panel view": view.cell(), "distinct values": f"{rule}: {distinct.cell()}",
              "edit markers": edits.cell(), "panel markers": panels.cell()}
    failures = edits.failures("the near misses' edited objects")
    if not about_values:
        failures += [*leaking({"panel view": view, "distinct values": distinct}),
                     *panels.failures("the negative panels")]
    return failures


def findings(split: str, task: str, items: list[StoredItem], run: AuditRun) -> Findings:
    rows = measured(_measure, items, run.workers, batch=25)
    n = len(rows)
    hits = [sum(r[k] for r in rows) for k in range(4)]
    learned = {"examples withheld": probes.pooled_hits([r[5] for r in rows], [r[7] for r in rows]),
               "identity fields": probes.pooled_hits([r[6] for r in rows], [r[7] for r in rows]),
               "names only": probes.names_hits([solver.TESTS] * n, [r[8] for r in rows])}
    found_probes = {name: Probe(int(h.sum()), len(h), 0.5) if h is not None else Probe(0, 0, 0.5)
                    for name, h in learned.items()}
    found_probes.update({"count-only": Probe(hits[2], n, 0.5), "histogram-only": Probe(hits[3], n, 0.5)})
    found = {"n": n, "sound": hits[0] / n, "file solver": hits[1] / n,
             **{name: p.cell() for name, p in found_probes.items()},
             "histogram of": "/".join(sorted({r[4] for r in rows}))}
    failures = []
    if hits[0] < n:
        failures.append(f"{n - hits[0]} unsound problems")
    if hits[1] < n:
        failures.append(f"the file solver misses {n - hits[1]}")
    failures += leaking({name: p for name, p in found_probes.items()
                         if name not in CONCEPT_EVIDENCE or task not in ABOUT_COUNTS_AND_COLORS})
    train = measured(_slims, run.train, run.workers) if run.train else None
    failures += _markers([r[10] for r in rows], train, found, task in ABOUT_COUNTS_AND_COLORS)
    aware, replayed = rule_column([(r[8], not r[8]) for r in rows], [r[9] for r in rows], [s.index for s in items], 0.5)
    found["rule-aware"] = aware.cell()
    failures += replayed
    return Findings(found, failures)


AUDIT = Audit(COLUMNS, findings, key, notes="every probe reads 'accuracy % [95 % interval] / floor'; rule-aware: "
              "the sampler's rules that read no scene replayed with either test image as the positive; "
              "count-only and histogram-only are not judged on bongard-abstract, whose concepts are about counts, "
              "colors and materials (there they read the concept); repeats: none allowed in test", learns=True)
