"""Every reader of an output folder's JSON, and the reader of predictions files, fuzzed: whatever bytes or
JSON a file holds, the reader gives its typed value or its one-line error (a UserError, or the item's
damage), never a traceback of another kind."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mewl_gen.cluster.slurm.record import SUBMISSIONS, submissions
from mewl_gen.errors import UserError
from mewl_gen.results import predictions
from mewl_gen.results.gallery_masks import overlay
from mewl_gen.results.scoring import Problems, read_predictions
from mewl_gen.store import bookkeeping, card, door
from mewl_gen.store.layout import MANIFEST
from mewl_gen.store.manifest import passes_of, read_manifest
from mewl_gen.store.record import RECORD, full_problem, quick_problem, read_record
from mewl_gen.tasks import catalog
from mewl_gen.tasks.stored import DamagedItem, StoredItem

from .hostile import fake_image

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                      max_leaves=20)
# Objects shaped like the files they stand in for, with their fields' values drawn at random.
MANIFEST_KEYS = ["generator", "seed", "kind", "quality", "split_scheme", "passes", "config", "extra"]
RECORD_KEYS = ["format", "files"]
contents = (st.binary(max_size=200) | values.map(lambda v: json.dumps(v).encode())
            | st.dictionaries(st.sampled_from(MANIFEST_KEYS + RECORD_KEYS + ["n", "split", "task", "index", "answer"]),
                              values, max_size=6).map(lambda v: json.dumps(v).encode())
            | st.integers(1, 3000).map(lambda d: b"[" * d + b"]" * d))


def dataset(root: Path) -> Path:
    out = root / "out"
    (out / ".mewl" / "plan" / "train").mkdir(parents=True)
    (out / "train" / "shape" / "0").mkdir(parents=True)
    (out / MANIFEST).write_text(json.dumps({"generator": "mewl-gen 0.2.0", "seed": 3, "kind": "specs"}))
    return out


@FUZZ
@given(contents)
@pytest.mark.slow
def test_the_manifest_reader(data):
    with tempfile.TemporaryDirectory() as tmp:
        out = dataset(Path(tmp))
        (out / MANIFEST).write_bytes(data)
        try:
            assert isinstance(read_manifest(out), dict)
            passes_of(out)
        except UserError as err:
            assert "\n" not in str(err) and len(str(err)) < 2000


@FUZZ
@given(contents)
@pytest.mark.slow
def test_the_plan_reader(data):
    with tempfile.TemporaryDirectory() as tmp:
        out = dataset(Path(tmp))
        (out / ".mewl/plan/train/shape.json").write_bytes(data)
        try:
            n = bookkeeping.planned(out, "train", "shape", strict=True)
            assert 0 <= n <= bookkeeping.MAX_ITEMS
        except UserError as err:
            assert "\n" not in str(err)
        assert bookkeeping.plans(out) == [("train", "shape")]
        assert isinstance(bookkeeping.failure_reason(out, "train", "shape", 0), str)


@FUZZ
@given(contents, contents)
@pytest.mark.slow
def test_the_record_and_an_items_files(record, episode):
    with tempfile.TemporaryDirectory() as tmp:
        out = dataset(Path(tmp))
        folder = out / "train" / "shape" / "0"
        (folder / RECORD).write_bytes(record)
        (folder / "episode.json").write_bytes(episode)
        for problem in (quick_problem(folder, out), full_problem(folder, root=out)):
            assert problem is None or isinstance(problem, str)
        assert read_record(folder, out) is None or isinstance(read_record(folder, out), dict)
        stored = StoredItem("train", "shape", 0, folder, catalog.task("shape").model, door.opener(out))
        for read in (stored.item, stored.record, lambda: stored.truth("question"), lambda: stored.image_truth("question")):
            try:
                read()
            except DamagedItem as err:
                assert "\n" not in str(err)


@FUZZ
@given(contents)
@pytest.mark.slow
def test_the_audit_note_and_the_slurm_record(data):
    with tempfile.TemporaryDirectory() as tmp:
        out = dataset(Path(tmp))
        (out / card.AUDIT).write_bytes(data)
        assert isinstance(card._audit(out, {}), list)
        (out / "slurm").mkdir()
        (out / "slurm" / SUBMISSIONS).write_bytes(data + b"\n" + data)
        assert all(isinstance(r, dict) and ("array_job" in r or "check_job" in r) for r in submissions(out))


@pytest.fixture(scope="module")
def genuine_truth() -> dict:
    """A rendered image's ground truth as a render writes it (its pixels made without Blender)."""
    item = catalog.sample_item("malevic-pos1", 3, "train", 0)
    ((name, spec),) = item.scenes().items()
    return item.label_image(name, fake_image(spec, name)[0])


# Where a field of a genuine truth is replaced: the top level, an object, its mask.
PLACES = st.sampled_from(["", "objects.0", "objects.1", "objects.0.mask", "camera"])


@FUZZ
@given(place=PLACES, key=st.sampled_from(["objects", "bbox", "visible_pixels", "description", "shape", "mask", "size",
                                          "counts", "width", "caption", "x"]) | st.text(max_size=8), value=values)
@pytest.mark.slow
def test_a_truth_with_any_field_of_any_value_is_read_by_its_model_or_refused_in_one_line(genuine_truth, place, key, value):
    """The gallery reads an image's truth through its model: whatever a field holds, the truth is typed
    or one line names the file and the field; a typed one always draws its overlay."""
    truth = json.loads(json.dumps(genuine_truth))
    at = truth
    for step in filter(None, place.split(".")):
        at = at[int(step)] if isinstance(at, list) else at[step]
    at[key] = value
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "image.json").write_text(json.dumps(truth))
        stored = StoredItem("train", "malevic-pos1", 0, folder, catalog.task("malevic-pos1").model)
        try:
            typed = stored.image_truth("image")
        except DamagedItem as err:
            assert "\n" not in str(err) and "image.json: not an image's ground truth" in str(err)
            return
        png, legend = overlay(typed, (320, 240))
        assert png.startswith(b"\x89PNG") and isinstance(legend, list)


class _Everything:
    """A dataset holding every item a line can name: each prediction is kept, none passed over."""

    def __contains__(self, key) -> bool:
        return True


HOLDS_EVERYTHING = _Everything()


@FUZZ
@given(st.lists(contents, max_size=5))
@pytest.mark.slow
def test_the_predictions_reader(lines):
    for line in lines:
        p = predictions.parse_line(line)
        assert p is None or isinstance(p, predictions.Prediction)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "predictions.jsonl"
        path.write_bytes(b"\n".join(lines))
        problems = Problems()
        try:
            found = read_predictions(path, problems, HOLDS_EVERYTHING)
            assert all(isinstance(k, tuple) for k in found)
        except UserError as err:
            assert "\n" not in str(err)
        assert all("\x1b" not in line for line in problems.lines())
