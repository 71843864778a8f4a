"""Real, tiny Cycles renders at draft quality: pixels checked against the ground truth."""
import json
import math

import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from mewl_gen.render import DeviceError, Worker
from mewl_gen.scenes.camera import directions, project
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.quality import render_settings, with_quality
from mewl_gen.scenes.spec import LightSpec, ObjectSpec, SceneSpec
from mewl_gen.scenes.stage import LIGHTS, base_camera
from mewl_gen.scenes.universe import COLOR_RGB
from mewl_gen.scenes.visibility import MIN_VISIBLE_PIXELS

pytestmark = pytest.mark.render

PROPS = [("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "large"), ("cylinder", "green", "rubber", "small"),
         ("cube", "yellow", "rubber", "small"), ("sphere", "purple", "metal", "small")]


@pytest.fixture(scope="module")
def worker():
    with Worker(device="cpu") as w:
        yield w


@pytest.fixture(scope="module")
def scene():
    return with_quality(place_scene(1, PROPS, pointed=2), "draft")


@pytest.fixture(scope="module")
def rendered(worker, scene, tmp_path_factory):
    out = tmp_path_factory.mktemp("scene")
    res = worker.render(scene, out / "a.png", out / "a.json")
    return res, out / "a.png", json.loads((out / "a.json").read_text())


def test_a_preview_at_one_sample_has_the_draft_renders_ground_truth(worker, scene, rendered, tmp_path):
    """The preview profile (one sample, no denoiser) is for checking a pipeline: its pixels are noise, its
    ground truth (every mask, box and count, from the object-index pass) is the draft render's."""
    _, _, draft = rendered
    res = worker.render(with_quality(scene, "preview"), tmp_path / "a.png", tmp_path / "a.json")  # as the draft named
    preview = json.loads((tmp_path / "a.json").read_text())
    assert res.ok and preview["render"]["samples"] == 1 and preview["render"]["denoiser"] == "none"
    assert preview["objects"] == draft["objects"]
    assert {k: v for k, v in preview.items() if k not in ("render", "spec_hash")} == \
        {k: v for k, v in draft.items() if k not in ("render", "spec_hash")}


def decode(entry) -> np.ndarray:
    return mask_utils.decode({"size": entry["mask"]["size"], "counts": entry["mask"]["counts"].encode()}).astype(bool)


def entries(gt):
    return gt["objects"]  # the hand is listed last, as MEWL lists its arrow


def test_render_is_ok_and_counts_match_masks(rendered, scene):
    res, png, gt = rendered
    assert res.ok and res.too_small == [] and res.device == "cpu"
    assert Image.open(png).size == (scene.camera.width, scene.camera.height)
    assert res.visible_pixels == [e["visible_pixels"] for e in entries(gt)]
    for e in entries(gt):
        m = decode(e)
        assert m.sum() == e["visible_pixels"] >= MIN_VISIBLE_PIXELS
        x, y, w, h = e["bbox"]
        assert m[y:y + h, x:x + w].sum() == m.sum()
        assert m[y, x:x + w].any() and m[y + h - 1, x:x + w].any()
        assert m[y:y + h, x].any() and m[y:y + h, x + w - 1].any()


def test_a_render_says_where_its_time_went(rendered):
    """Every phase measured, none negative, and together the render's wall time."""
    from mewl_gen.bench.render import PHASES

    res = rendered[0]
    assert set(res.phases) == set(PHASES) - {"denoising"}  # denoising is split off by the bench, by difference
    assert all(v >= 0 for v in res.phases.values()), res.phases
    assert res.phases["path_tracing"] > 0 and res.phases["sync"] > 0
    assert sum(res.phases.values()) == pytest.approx(res.seconds, rel=1e-6)


def test_masks_sit_around_projected_centres(rendered):
    _, _, gt = rendered
    for e in entries(gt):
        u, v, _ = e["pixel_coords"]
        x, y, w, h = e["bbox"]
        assert x - 2 <= u <= x + w + 2 and y - 2 <= v <= y + h + 2, e["description"]
        ys, xs = np.nonzero(decode(e))
        assert math.hypot(xs.mean() - u, ys.mean() - v) < max(w, h) / 2, e["description"]


def test_rubber_looks_its_colour(rendered):
    _, png, gt = rendered
    img = np.asarray(Image.open(png), dtype=float)
    palette = {name: np.array(rgb, float) for name, rgb in COLOR_RGB.items()}
    rubber = [e for e in gt["objects"] if e["material"] == "rubber"]
    assert rubber
    for e in rubber:
        mean = img[decode(e)].mean(axis=0)
        nearest = min(palette, key=lambda c: np.linalg.norm(palette[c] - mean))
        assert nearest == e["color"], (e["description"], mean)


def _hue(rgb) -> float:
    r, g, b = np.asarray(rgb, float).T
    return np.degrees(np.arctan2(np.sqrt(3) * (g - b), 2 * r - g - b))


def test_metal_and_glass_show_their_colour(rendered):
    """The tint survives reflections and the floor seen through glass: the most
    saturated quarter of each object's pixels has the hue of its declared colour."""
    _, png, gt = rendered
    img = np.asarray(Image.open(png), dtype=float)
    hues = {name: _hue(rgb) for name, rgb in COLOR_RGB.items() if name != "gray"}
    shiny = [e for e in gt["objects"] if e["material"] != "rubber"]
    assert {e["material"] for e in shiny} == {"metal", "glass"}
    for e in shiny:
        px = img[decode(e)]
        sat = px.max(axis=1) - px.min(axis=1)
        vivid = px[sat >= np.quantile(sat, 0.75)].mean(axis=0)
        nearest = min(hues, key=lambda c: abs((hues[c] - _hue(vivid) + 180) % 360 - 180))
        assert nearest == e["color"], (e["name"], vivid)


def test_finger_ray_reaches_the_target_first(rendered, scene):
    _, _, gt = rendered
    index = np.zeros((scene.camera.height, scene.camera.width), int)
    for label, e in enumerate(entries(gt), start=1):
        index[decode(e)] = label
    hand_label = len(scene.objects) + 1
    assert (index == hand_label).sum() >= MIN_VISIBLE_PIXELS
    yaw = scene.hand.yaw
    tip = np.array(gt["objects"][-1]["fingertip"])
    steps = tip + np.outer(np.arange(0.02, 8, 0.02), [math.cos(yaw), math.sin(yaw), 0])
    seen = []
    for u, v, _ in project(scene.camera, steps):
        if 0 <= u < scene.camera.width and 0 <= v < scene.camera.height:
            label = index[int(v), int(u)]
            if label not in (0, hand_label):
                seen.append(label)
    assert seen and seen[0] == scene.hand.target + 1


def test_same_spec_same_png_across_processes(rendered, scene, tmp_path, mewl):
    _, png, _ = rendered
    spec_file = tmp_path / "spec" / "again.json"
    spec_file.parent.mkdir()
    spec_file.write_text(scene.model_dump_json())
    assert mewl("render-spec", spec_file, "--out", tmp_path, "--device", "cpu")[0] == 0
    assert (tmp_path / "again.png").read_bytes() == png.read_bytes()
    assert json.loads((tmp_path / "again.json").read_text())["spec_hash"] == scene.spec_hash()


def test_hidden_object_is_reported_and_nothing_written(worker, tmp_path):
    cam = base_camera()
    behind = np.array(directions(cam)["behind"][:2]) * 1.5
    spec = SceneSpec(
        objects=(ObjectSpec(shape="cube", color="gray", material="rubber", size="large", position=(0.0, 0.0), rotation=0.785398),
                 ObjectSpec(shape="sphere", color="red", material="rubber", size="small",
                            position=(round(float(behind[0]), 4), round(float(behind[1]), 4)), rotation=0.0)),
        camera=cam, lights=tuple(LightSpec(name=n, location=l, energy=e, size=s) for n, l, e, s in LIGHTS),
        render=render_settings("draft", 0), seed=0, attempt=0,
    )
    res = worker.render(spec, tmp_path / "h.png", tmp_path / "h.json")
    assert not res.ok and res.too_small == [1] and res.visible_pixels[0] > MIN_VISIBLE_PIXELS
    assert list(tmp_path.iterdir()) == []


def test_worker_is_recycled_after_max_scenes(scene, tmp_path):
    cheap = scene.model_copy(update={
        "camera": scene.camera.model_copy(update={"width": 80, "height": 60}),
        "render": scene.render.model_copy(update={"samples": 1, "denoiser": "none"}),
    })
    with Worker(device="cpu", max_scenes=2) as w:
        pids, results = [], []
        for i in range(3):
            results.append(w.render(cheap, tmp_path / f"{i}.png", tmp_path / f"{i}.json"))
            pids.append(w.pid)
        assert w.starts == 2
    assert pids[0] == pids[1] != pids[2]
    assert all(len(r.visible_pixels) == len(scene.objects) + 1 for r in results)


def test_unavailable_gpu_is_a_clear_error():
    with pytest.raises(DeviceError, match="metal"):
        Worker(device="metal").start()
    with pytest.raises(DeviceError, match="unknown device"):
        Worker(device="vulkan")


def test_bad_spec_file_is_a_one_line_error(tmp_path, mewl):
    bad = tmp_path / "bad.json"
    bad.write_text('{"objects": []}')
    code, _, err = mewl("render-spec", bad, "--out", tmp_path, "--quality", "draft", "--device", "cpu")
    assert code == 2 and err.count("\n") == 1 and "bad.json" in err
    code, _, err = mewl("render-spec", tmp_path / "missing.json", "--out", tmp_path, "--device", "cpu")
    assert code == 2 and "cannot read" in err


def test_a_warm_up_render_changes_no_byte_of_what_follows(scene, tmp_path):
    """A GPU worker renders a tiny scene before its first timed image (kernel compilation);
    forced on the CPU here, the next image and its ground truth are those of a cold worker."""
    files = {}
    for warm in (False, True):
        with Worker(device="cpu", warm_up=warm) as w:
            res = w.render(scene, tmp_path / f"{warm}.png", tmp_path / "truth.json")
            assert res.ok and (w.warm_up_seconds is not None) == warm
        files[warm] = ((tmp_path / f"{warm}.png").read_bytes(), (tmp_path / "truth.json").read_text().replace(f"{warm}.png", ""))
    assert files[True] == files[False]
    assert not list(tmp_path.glob("*.tmp")) and sorted(p.name for p in tmp_path.iterdir()) == ["False.png", "True.png", "truth.json"]


def test_the_denoiser_follows_the_device():
    from mewl_gen.render.worker import denoiser_for

    assert denoiser_for("optix:0=NVIDIA H100 80GB HBM3") == "OPTIX"
    assert denoiser_for("cuda:0=NVIDIA H100 80GB HBM3") == "OPENIMAGEDENOISE"  # OIDN, on that GPU
    assert denoiser_for("cpu") == "OPENIMAGEDENOISE"


def test_without_an_optix_device_the_optix_denoiser_falls_back_to_oidn_and_says_so():
    """Cycles offers OptiX's denoiser only where it found an OptiX GPU; the device string must not claim it."""
    import subprocess
    import sys

    code = ("import bpy; from mewl_gen.render.devices import gpu_denoiser; sc = bpy.context.scene\n"
            "print(gpu_denoiser(sc, 'optix:0=no such GPU'), sc.cycles.denoiser, gpu_denoiser(sc, 'cpu'), sc.cycles.denoising_use_gpu)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-4:] == ["OPENIMAGEDENOISE", "OPENIMAGEDENOISE", "OPENIMAGEDENOISE", "False"]
