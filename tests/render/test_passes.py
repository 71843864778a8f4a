"""Passes on request (issue 30): depth, normals, albedo and instance ids from the same render as the
PNG, checked against geometry computed from the spec and its camera, never against themselves; the
PNG and its ground truth stay the same bytes; a dataset with passes pins them in its manifest, and its
checksums, verify, repair, reader, card, exports and SLURM script carry them."""
from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.assets.materials import GROUND, object_material
from mewl_gen.render import Worker
from mewl_gen.render.passes import PASSES, file_name, files_of, png16, read, read_png16
from mewl_gen.scenes.pointing import pointing_hand
from mewl_gen.scenes.quality import render_settings
from mewl_gen.scenes.spec import LightSpec, ObjectSpec, SceneSpec
from mewl_gen.scenes.stage import LIGHTS, base_camera
from mewl_gen.store.reader import read as read_items
from mewl_gen.store.record import write_record
from tests.blocks import blocks
from tests.conftest import run_mewl

pytestmark = pytest.mark.render

ROOT = Path(__file__).resolve().parents[2]
# Depth at a sphere's mask centre against the ray's hit on the true sphere, in scene units: the
# sphere's mesh lies inside the true sphere by up to 0.0007 (measured on 48 spheres of 16 scenes).
SPHERE_DEPTH_TOLERANCE = 0.002


def scene() -> SceneSpec:
    """Two rubber objects (a sphere, a cube turned 0.4 rad), a small glass sphere, a metal cylinder,
    each in the open, and the hand pointing at the sphere."""
    objects = (ObjectSpec(shape="sphere", color="red", material="rubber", size="large", position=(-2.0, 0.3), rotation=0.0),
               ObjectSpec(shape="cube", color="blue", material="rubber", size="large", position=(1.4, -0.9), rotation=0.4),
               ObjectSpec(shape="sphere", color="yellow", material="glass", size="small", position=(1.6, 1.8), rotation=0.0),
               ObjectSpec(shape="cylinder", color="green", material="metal", size="small", position=(0.3, 2.2), rotation=0.0))
    spec = SceneSpec(objects=objects, camera=base_camera(), render=render_settings("draft", 7), seed=7, attempt=0,
                     lights=tuple(LightSpec(name=n, location=loc, energy=e, size=s) for n, loc, e, s in LIGHTS))
    return spec.model_copy(update={"hand": pointing_hand(spec, 0)})


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The scene rendered by one worker twice: plain, then with every pass."""
    spec, root = scene(), tmp_path_factory.mktemp("passes")
    with Worker(device="cpu") as worker:
        for folder, passes in (("plain", ()), ("passes", PASSES)):
            (root / folder).mkdir()
            assert worker.render(spec, root / folder / "scene.png", root / folder / "scene.json", passes=passes).ok
    return spec, root / "passes", json.loads((root / "passes" / "scene.json").read_text())


def mask(entry: dict) -> np.ndarray:
    return mask_utils.decode({"size": entry["mask"]["size"], "counts": entry["mask"]["counts"].encode()}).astype(bool)


def centre_pixel(entry: dict) -> tuple[int, int]:
    """(row, column) of the pixel at the centroid of an object's mask."""
    rows, cols = np.nonzero(mask(entry))
    return int(np.rint(rows.mean())), int(np.rint(cols.mean()))


def pixel_of(camera: dict, point) -> tuple[int, int]:
    """(row, column) of the pixel a world point projects into, from the ground truth's camera."""
    m, k = np.array(camera["matrix_world"]), np.array(camera["intrinsics"])
    local = m[:3, :3].T @ (np.asarray(point, float) - m[:3, 3])
    return int(k[1][2] + k[1][1] * local[1] / local[2]), int(k[0][2] - k[0][0] * local[0] / local[2])


def ray(camera: dict, row: int, col: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(origin, unit direction, optical axis) of the ray through a pixel's centre, from the ground
    truth's camera (pose and intrinsics, pixel (0, 0) at the top-left corner; Blender's camera looks
    down its -z with +y up)."""
    m, k = np.array(camera["matrix_world"]), np.array(camera["intrinsics"])
    d = m[:3, :3] @ np.array([(col + 0.5 - k[0][2]) / k[0][0], -(row + 0.5 - k[1][2]) / k[1][1], -1.0])
    return m[:3, 3], d / np.linalg.norm(d), -m[:3, 2]


def test_the_image_and_its_ground_truth_are_the_same_bytes_with_every_pass(rendered):
    _, folder, _ = rendered
    plain = folder.parent / "plain"
    for name in ("scene.png", "scene.json"):
        assert (folder / name).read_bytes() == (plain / name).read_bytes(), name
    assert sorted(p.name for p in plain.iterdir()) == ["scene.json", "scene.png"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(["scene.json", "scene.png", *files_of("scene", PASSES)])


def test_depth_at_each_spheres_mask_centre_is_the_distance_along_the_optical_axis(rendered):
    spec, folder, truth = rendered
    depth = np.load(folder / "scene.depth.npy")  # NumPy alone reads it
    assert depth.dtype == np.float32 and depth.shape == (spec.camera.height, spec.camera.width)
    spheres = [i for i, o in enumerate(spec.objects) if o.shape == "sphere"]
    assert len(spheres) == 2
    for i in spheres:
        row, col = centre_pixel(truth["objects"][i])
        assert read(folder / "scene.instance.png")[row, col] == i + 1
        origin, d, axis = ray(truth["camera"], row, col)
        to_centre = origin - np.array(spec.objects[i].center)
        b = to_centre @ d
        t = -b - math.sqrt(b * b - (to_centre @ to_centre - spec.objects[i].scale ** 2))  # the ray's first hit
        assert abs(depth[row, col] - t * (d @ axis)) < SPHERE_DEPTH_TOLERANCE, (i, depth[row, col], t * (d @ axis))


def test_depth_is_along_the_optical_axis_not_the_ray_at_the_images_bottom_corners(rendered):
    """Where the ray leaves the axis by 30 degrees the two readings differ by a metre: the ground (z = 0)
    says which one the pass holds (measured: 6.64640 against 6.64639 along the axis, 7.648 along the ray)."""
    spec, folder, truth = rendered
    depth = np.load(folder / "scene.depth.npy")
    for row, col in ((spec.camera.height - 1, 0), (spec.camera.height - 1, spec.camera.width - 1)):
        origin, d, axis = ray(truth["camera"], row, col)
        t = -origin[2] / d[2]
        assert abs(depth[row, col] - t * (d @ axis)) < 0.01 and abs(depth[row, col] - t) > 0.5


def test_normals_are_world_space_up_on_the_cubes_top_and_out_of_its_face_and_the_sphere(rendered):
    spec, folder, truth = rendered
    normal, instance = read(folder / "scene.normal.png"), read(folder / "scene.instance.png")
    cube = spec.objects[1]
    top = pixel_of(truth["camera"], (*cube.position, 2 * cube.scale))
    assert instance[top] == 2 and np.allclose(normal[top], (0, 0, 1), atol=0.01), normal[top]
    # The side face turned most towards the camera: its outward normal, turned by the cube's yaw.
    to_camera = np.array(spec.camera.location) - np.array(cube.center)
    faces = [np.array([math.cos(cube.rotation + k * math.pi / 2), math.sin(cube.rotation + k * math.pi / 2), 0.0])
             for k in range(4)]
    face = max(faces, key=lambda n: n @ to_camera)
    side = pixel_of(truth["camera"], np.array(cube.center) + face * cube.scale)
    assert instance[side] == 2 and np.allclose(normal[side], face, atol=0.01), (normal[side], face)
    sphere = spec.objects[0]
    row, col = centre_pixel(truth["objects"][0])
    origin, d, _ = ray(truth["camera"], row, col)
    to_centre = origin - np.array(sphere.center)
    t = -(to_centre @ d) - math.sqrt((to_centre @ d) ** 2 - (to_centre @ to_centre - sphere.scale ** 2))
    outward = (origin + t * d - np.array(sphere.center)) / sphere.scale
    assert math.degrees(math.acos(min(1.0, normal[row, col] @ outward))) < 2.0
    assert np.allclose(np.linalg.norm(normal, axis=-1), 1, atol=1e-4)  # every pixel hits a surface here


def test_instance_ids_are_the_masks_pixel_for_pixel_and_any_png_reader_opens_the_passes(rendered):
    spec, folder, truth = rendered
    with Image.open(folder / "scene.instance.png") as im:  # PIL reads the 16-bit grey PNG exactly
        assert im.mode == "I;16"
        instance = np.asarray(im)
    entries = truth["objects"]  # the objects, then the hand
    assert len(entries) == len(spec.objects) + 1 and entries[-1]["shape"] == "arrow"
    covered = np.zeros(instance.shape, bool)
    for label, entry in enumerate(entries, start=1):
        assert np.array_equal(instance == label, mask(entry)), label
        covered |= mask(entry)
    assert (instance[~covered] == 0).all() and instance.max() == len(entries)
    for kind in ("normal", "albedo"):  # PIL opens a 16-bit RGB PNG at 8 bits: the high byte of ours
        with Image.open(folder / file_name("scene", kind)) as im:
            eight = np.asarray(im.convert("RGB"))
        stored = np.rint((read(folder / file_name("scene", kind)) + (1 if kind == "normal" else 0))
                         * (65535 / (2 if kind == "normal" else 1))).astype(np.uint16)
        assert np.array_equal(eight, stored >> 8), kind


def test_the_reading_code_of_docs_passes_gives_every_stored_value(rendered, tmp_path, monkeypatch):
    """docs/passes.md's Python blocks, in order and in one namespace, beside the render's pass files named
    as the page names them. Each value is the file's own: depth the .npy's data bytes, the 16-bit samples
    those that give the file's bytes when written again (Pillow's instance ids, read apart, are the same)."""
    _, folder, _ = rendered
    for kind in PASSES:
        shutil.copyfile(folder / file_name("scene", kind), tmp_path / file_name("question", kind))
    monkeypatch.chdir(tmp_path)
    found, namespace = blocks((ROOT / "docs" / "passes.md").read_text(), "python"), {}
    assert len(found) == 2
    for code in found:
        exec(compile(code, "docs/passes.md", "exec"), namespace)

    depth = namespace["depth"]
    assert depth.dtype == np.float32 and (folder / "scene.depth.npy").read_bytes().endswith(depth.tobytes())
    stored = {}
    for kind in ("normal", "albedo", "instance"):
        data = (folder / file_name("scene", kind)).read_bytes()
        stored[kind] = read_png16(data)
        assert png16(stored[kind]) == data, kind  # the samples the file holds, every bit
    instance = namespace["instance"]
    assert instance.dtype == np.uint16 and np.array_equal(instance, stored["instance"]) and instance.max() > 1
    assert np.array_equal(namespace["stored"], stored["albedo"]) and (stored["albedo"] & 0xFF).any()
    assert np.array_equal(namespace["albedo"], stored["albedo"] / 65535)
    assert stored["normal"].any(axis=-1).all()  # every pixel hits a surface (none is 0): n = value / 65535 * 2 - 1
    assert np.array_equal(namespace["normal"], stored["normal"] / 65535 * 2 - 1)


def test_albedo_is_the_diffuse_base_colour_in_linear_light_and_none_on_metal_and_glass(rendered):
    spec, folder, truth = rendered
    albedo = read(folder / "scene.albedo.png")
    for i, o in enumerate(spec.objects):
        seen = albedo[centre_pixel(truth["objects"][i])]
        if o.material == "rubber":  # the base colour less what its faint specular layer takes: one factor
            ratio = seen / np.array(object_material(o.material, o.color)["Base Color"][:3])
            assert 0.9 < ratio.min() and ratio.max() < 1.0 and np.ptp(ratio) < 0.01, (o, ratio)
        else:
            assert (seen < 1e-3).all(), (o, seen)
    ground = albedo[-1, spec.camera.width // 2] / np.array(GROUND["Base Color"][:3])
    assert 0.9 < ground.min() and ground.max() < 1.0 and np.ptp(ground) < 0.01


def test_render_spec_writes_the_passes_asked_for_and_never_over_a_file(rendered, tmp_path, mewl):
    spec, folder, _ = rendered
    path = tmp_path / "scene.json"
    path.write_text(spec.model_dump_json())
    out = tmp_path / "out"
    assert mewl("render-spec", path, "--out", out, "--device", "cpu", "--passes", "instance,depth")[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["scene.depth.npy", "scene.instance.png", "scene.json", "scene.png"]
    for name in ("scene.png", "scene.depth.npy", "scene.instance.png"):  # another process, the same bytes
        assert (out / name).read_bytes() == (folder / name).read_bytes(), name
    (out / "scene.png").unlink()
    (out / "scene.json").unlink()
    code, _, err = mewl("render-spec", path, "--out", out, "--device", "cpu", "--passes", "depth")
    assert code == 2 and err.count("\n") == 1 and "scene.depth.npy exists" in err and not (out / "scene.png").exists()
    code, _, err = mewl("render-spec", path, "--out", tmp_path / "x", "--passes", "depth,mist")
    assert code == 2
    assert err == ("mewl: error: --passes 'depth,mist': 'mist' is not a pass; expected a comma list of depth, "
                   "normal, albedo, instance, or all\n") and not (tmp_path / "x").exists()


# -- a dataset with passes ----------------------------------------------------------------------------
DATASET = ["--task", "malevic-pos1", "--n", "1", "--seed", "3", "--quality", "preview", "--device", "cpu", "--workers", "1"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dataset") / "data"
    assert run_mewl("render", *DATASET, "--passes", "normal,depth,instance,albedo", "--out", out) == 0
    return out


def item(out: Path) -> Path:
    return out / "train" / "malevic-pos1" / "0"


def test_the_manifest_pins_the_passes_and_a_rerun_with_others_is_refused_in_one_line(dataset, mewl):
    manifest = json.loads((dataset / "mewl-dataset.json").read_text())
    assert manifest["passes"] == list(PASSES)  # in PASSES order, however typed
    card = (dataset / "README.md").read_text()
    assert "--passes depth,normal,albedo,instance --out OUT" in card and "`<scene>.depth.npy`: float32 NumPy" in card
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()}
    for other in (["--passes", "depth"], []):
        code, _, err = mewl("render", *DATASET, *other, "--out", dataset)
        assert code == 2, err
        assert err.count("\n") == 1 and "holds a different dataset: passes=['depth', 'normal', 'albedo', 'instance']" in err
    code, _, err = mewl("render", *DATASET, "--passes", "all", "--out", dataset)
    assert code == 0 and "nothing to do" in err  # the same passes
    assert {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file()} == before


def test_verify_names_a_damaged_pass_file_and_repair_renders_the_same_bytes(dataset, tmp_path, mewl):
    out = tmp_path / "data"
    shutil.copytree(dataset, out)
    folder = item(out)
    original = {p.name: p.read_bytes() for p in folder.iterdir()}
    images = [n for n in original if n.endswith(".png") and "." not in n[:-4]]
    assert len(images) == 1 and set(original) == {images[0], images[0][:-4] + ".json", *files_of(images[0][:-4], PASSES),
                                                  "item.json", "_checksums.json"}
    assert set(json.loads(original["_checksums.json"])["files"]) == set(original) - {"_checksums.json"}
    normal = folder / file_name(images[0][:-4], "normal")
    data = bytearray(normal.read_bytes())
    data[len(data) // 2] ^= 0xFF
    normal.write_bytes(bytes(data))
    code, printed, _ = mewl("verify", out)
    assert code == 1
    assert f"damaged: train/malevic-pos1/0: {normal.name}: sha256 differs from the record" in printed
    assert mewl("render", *DATASET, "--passes", "all", "--repair", "--out", out)[0] == 0
    assert {p.name: p.read_bytes() for p in item(out).iterdir()} == original
    # An image without a pass the manifest names (a folder from elsewhere, its record rewritten) is no sound item.
    (item(out) / file_name(images[0][:-4], "depth")).unlink()
    write_record(item(out))
    (damaged,) = read_items(out).damaged
    assert damaged == (f"train/malevic-pos1/0: {images[0][:-4]}.depth.npy is missing "
                       "(the dataset has the passes depth, normal, albedo, instance)")


def test_exports_carry_every_pass_as_numpy_files_read_exactly(dataset, tmp_path, monkeypatch, mewl):
    """Pillow reads the 16-bit PNG passes at 8 bits: the exports give every pass as a .npy file, which
    NumPy reads with every stored value, as a user of the export would read it."""
    import datasets
    import webdataset

    folder = item(dataset)
    stem = next(n for n in (p.name for p in folder.iterdir()) if n.endswith(".png") and "." not in n[:-4])[:-4]
    want = {kind: (np.load(folder / file_name(stem, kind)) if kind == "depth"
                   else read_png16((folder / file_name(stem, kind)).read_bytes())) for kind in PASSES}
    assert np.asarray(Image.open(folder / file_name(stem, "albedo"))).dtype == np.uint8  # what Pillow would give
    assert want["albedo"].dtype == np.uint16 and want["albedo"].max() > 255
    assert mewl("export", dataset, "--to", "webdataset", tmp_path / "wds")[0] == 0
    (sample,) = webdataset.WebDataset([str(p) for p in (tmp_path / "wds").rglob("*.tar")], shardshuffle=False,
                                      empty_check=False)
    member = json.loads(sample["json"])["panels"][0]
    for kind in PASSES:
        got = np.load(io.BytesIO(sample[f"{member}.{kind}.npy"]), allow_pickle=False)
        assert got.dtype == want[kind].dtype and np.array_equal(got, want[kind]), kind

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    assert mewl("export", dataset, "--to", "hf", tmp_path / "hf")[0] == 0
    (row,) = datasets.load_from_disk(str(tmp_path / "hf" / "disk" / "malevic-pos1"))["train"]
    for kind in PASSES:
        assert np.array_equal(np.load(io.BytesIO(row[kind][0]), allow_pickle=False), want[kind]), kind
    assert "Each image's passes are the columns `depth`, `normal`" in (tmp_path / "hf" / "README.md").read_text()


def test_slurm_passes_them_to_every_array_task_and_refuses_other_passes(dataset, tmp_path, mewl):
    new = tmp_path / "new"
    code, script, _ = mewl("slurm", "--task", "malevic-pos1", "--n", 2, "--out", new, "--array", 2,
                           "--passes", "albedo,depth")
    assert code == 0
    assert " --passes depth,albedo --shard \"${shard}/2\"" in script and not new.exists()
    code, _, err = mewl("slurm", *DATASET[:8], "--out", dataset, "--array", 1, "--passes", "depth")
    assert code == 2 and "passes=['depth', 'normal', 'albedo', 'instance'] (asked ['depth'])" in err


def test_make_render_hands_passes_on():
    def command(*assignments: str) -> str:
        done = subprocess.run(["make", "-n", "-C", str(ROOT), "render", *assignments], capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "--passes depth,normal" in command("PASSES=depth,normal")
    assert "--passes" not in command()
