"""The session's shared render holds its pixel references on any CPU, and a real change to a scene breaks
them (tests/pixels.py; the tolerances and how they were measured: docs/pixels.md).

test_pinned_output.py pins the PNGs' bytes too, but only on the CPUs that recorded them: these tests are
the pixel check everywhere. The references are written by `make pins-update` with the digests."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLOR_RGB
from tests import pixels
from tests.conftest import RENDERED_QUALITY, rendered_all, stored_items

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def references() -> dict[str, pixels.Reference]:
    return pixels.read_references()


def test_every_image_of_the_shared_render_matches_its_reference(references):
    found = pixels.images(rendered_all())
    assert sorted(found) == sorted(references), "images and references differ: make pins-update writes them"
    failures = {name: pixels.differences(references[name], png) for name, png in found.items()}
    assert {name: f for name, f in failures.items() if f} == {}


# The deliberate changes are made to the image of the shared render that shows the most metal (roughness is
# changed for metal), rendered again by `mewl render-spec` at the tests' quality.


@pytest.fixture(scope="module")
def metal_scene() -> tuple[str, SceneSpec]:
    """(the image's name in the references, its scene spec)."""
    out = rendered_all()
    shown = {}
    for stored in stored_items(out, ""):
        for scene in stored.item().scenes():
            truth = stored.image_truth(scene)
            shown[(stored, scene)] = sum(o.visible_pixels for o in truth.objects if o.material == "metal")
    stored, scene = max(shown, key=shown.get)
    return f"{stored.split}/{stored.task}/{stored.index}/{scene}", stored.item().scenes()[scene]


def render(mewl, tmp_path: Path, stem: str, spec: SceneSpec) -> Path:
    """The spec rendered by the command as a user runs it; the image's path."""
    path = tmp_path / f"{stem}.json"
    path.write_text(spec.model_dump_json())
    code, _, err = mewl("render-spec", path, "--out", tmp_path / "out", "--quality", RENDERED_QUALITY,
                        "--device", "cpu")
    assert code == 0, err
    return tmp_path / "out" / f"{stem}.png"


def test_the_scene_rendered_again_matches(mewl, tmp_path, references, metal_scene):
    name, spec = metal_scene
    assert pixels.differences(references[name], render(mewl, tmp_path, "same", spec)) == []


def nearest_shade(color: str) -> str:
    """The other named colour nearest in sRGB: the smallest change of colour a spec can make."""
    return min((c for c in COLOR_RGB if c != color),
               key=lambda c: float(np.linalg.norm(np.subtract(COLOR_RGB[c], COLOR_RGB[color]))))


def test_one_object_a_shade_away_fails(mewl, tmp_path, references, metal_scene):
    name, spec = metal_scene
    ref = references[name]
    # The object that shows least (of those that show): its colour moves the fewest pixels.
    shown = {i: int(ref.sums[i + 1][0]) for i in range(len(spec.objects)) if i + 1 < len(ref.sums)}
    k = min((i for i, n in shown.items() if n), key=shown.get)
    shade = nearest_shade(spec.objects[k].color)
    objects = tuple(o.model_copy(update={"color": shade}) if i == k else o for i, o in enumerate(spec.objects))
    failures = pixels.differences(ref, render(mewl, tmp_path, "shade", spec.model_copy(update={"objects": objects})))
    assert [f for f in failures if f.startswith(f"object {k + 1}'s mean colour")], (spec.objects[k].color, shade, failures)
    assert not [f for f in failures if f.startswith("instance ids")], failures


def test_the_camera_turned_by_a_degree_fails(mewl, tmp_path, references, metal_scene):
    name, spec = metal_scene
    rx, ry, rz = spec.camera.rotation
    camera = spec.camera.model_copy(update={"rotation": (rx, ry, rz + math.radians(1.0))})
    failures = pixels.differences(references[name], render(mewl, tmp_path, "camera", spec.model_copy(update={"camera": camera})))
    assert [f for f in failures if f.startswith("instance ids differ")], failures


# Loaded by the Blender child at its start (Python reads sitecustomize from PYTHONPATH): the material table
# it builds the scene's materials from, with metal's roughness raised by 0.1.
ROUGHER_METAL = """from mewl_gen.assets.materials import MATERIALS
MATERIALS["metal"]["Roughness"] += 0.1
"""


def test_metal_rougher_by_a_tenth_fails(mewl, tmp_path, monkeypatch, references, metal_scene):
    name, spec = metal_scene
    patch = tmp_path / "patch"
    patch.mkdir()
    (patch / "sitecustomize.py").write_text(ROUGHER_METAL)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(patch), os.environ.get("PYTHONPATH")])))
    failures = pixels.differences(references[name], render(mewl, tmp_path, "rougher", spec))
    metal = {i + 1 for i, o in enumerate(spec.objects) if o.material == "metal"}
    assert [f for f in failures if any(f.startswith(f"object {k}'s mean colour") for k in metal)], failures
