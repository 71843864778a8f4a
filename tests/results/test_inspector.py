"""The inspector's pages, used as a person would in headless Chromium (playwright, Debian's chromium), on the
gallery of the session's preview render of every task: on an item of every benchmark, clicking each object
on the image (inside its mask) shows its spec, its ground truth, its words and its role; every layer
switches; the map draws every object where its spec stands it and selects with the image; "why" gives the
answer the task's file-only solver gives and the validator's verdict; no request leaves the folder. Pages
hold no image as data, every picture is lazy, every text of the dataset is escaped; a damaged item is one
line, never a traceback; the passes a dataset has are layers with a depth scale."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from pycocotools import mask as mask_utils

from mewl_gen.render.passes import png16
from mewl_gen.results import inspector, inspector_html
from mewl_gen.store.manifest import MANIFEST
from mewl_gen.store.record import RECORD, write_record
from mewl_gen.tasks import catalog
from tests.conftest import rendered_all, run_mewl

from .study.test_browser import browser  # noqa: F401 (the study's Chromium, a fixture)

# A folder to keep a screenshot of each benchmark's page in (docs/inspect.md's are taken so); unset: none kept.
SHOTS = os.environ.get("MEWL_INSPECT_SHOTS")


def first_tasks() -> dict[str, str]:
    """benchmark -> its first task: one item of each benchmark is clicked through."""
    return {b.name: b.tasks[0].name for b in catalog.BENCHMARKS}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("inspector") / "site"
    assert run_mewl("gallery", rendered_all(), dest) == 0
    return dest


def item_of(task: str):
    """Item 0 of the task in the session's render, read from its record."""
    model = catalog.task(task).model
    return model.model_validate_json((rendered_all() / "train" / task / "0" / model.RECORD_FILE).read_text())


def each_scene(page, item):
    """(k, name, spec) of every scene, each shown on the page in turn."""
    for k, (name, spec) in enumerate(item.scenes().items()):
        page.click(f'nav.scenes button[data-scene="{k}"]')
        yield k, name, spec


def opened(browser, page_file: Path):
    """The page in a new tab, every request that is not a file inside the page's site refused and listed."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    page.blocked, page.errors = [], []
    root = page_file.parents[3].as_uri() if page_file.name == inspector.PAGE else page_file.parent.as_uri()

    def route(r):
        if r.request.url.startswith(root + "/"):
            return r.continue_()
        page.blocked.append(r.request.url)
        return r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    return page


def inside(mask) -> tuple[int, int]:
    """A pixel (x, y) of the mask, the one nearest its centroid."""
    m = mask_utils.decode({"size": list(mask["size"]), "counts": mask["counts"].encode()}).astype(bool)
    ys, xs = np.nonzero(m)
    k = int(np.argmin((ys - ys.mean()) ** 2 + (xs - xs.mean()) ** 2))
    return int(xs[k]), int(ys[k])


def shown_facts(page) -> dict[str, str]:
    return {dd.get_attribute("data-field"): dd.inner_text() for dd in page.query_selector_all("#info dd[data-field]")}


def expected_facts(spec, truth: dict, k: int, role: str, words) -> dict[str, str]:
    o = truth["objects"][k]
    x, y, w, h = o["bbox"]
    facts = {"index": f"#{k}", "description": o["description"], "box": f"[{x}, {y}, {w}, {h}]",
             "visible_pixels": str(o["visible_pixels"]), "words": words(o["name"]) if o["name"] else "—", "role": role}
    if k < len(spec.objects):
        s = spec.objects[k]
        facts.update(shape=s.shape, color=s.color, material=s.material,
                     position=f"[{', '.join(str(round(v, 4)) for v in s.position)}]",
                     rotation=str(round(math.degrees(s.rotation), 2)))
    return facts


@pytest.mark.browser
@pytest.mark.render
@pytest.mark.parametrize("benchmark", list(first_tasks()))
def test_every_object_answers_on_an_item_of_every_benchmark(site, browser, benchmark):
    task = first_tasks()[benchmark]
    source, item = rendered_all() / "train" / task / "0", item_of(task)
    roles = catalog.task(task).gallery.roles(item)
    page = opened(browser, site / "train" / task / "0" / inspector.PAGE)
    page.check("#show-answer")
    for k, name, spec in each_scene(page, item):
        truth = json.loads((source / f"{name}.json").read_text())
        view = page.locator(f'section.scene[data-scene="{k}"] .view')
        box = view.bounding_box()
        for j, obj in enumerate(truth["objects"]):
            if not obj["visible_pixels"]:
                continue
            x, y = inside(obj["mask"])
            page.mouse.click(box["x"] + (x + 0.5) * box["width"] / spec.camera.width,
                             box["y"] + (y + 0.5) * box["height"] / spec.camera.height)
            role = roles.get(name, {}).get(j, "context") if j < len(spec.objects) else inspector.HAND_ROLE
            facts = shown_facts(page)
            expected = expected_facts(spec, truth, j, role, catalog.task(task).gallery.words)
            assert {f: facts[f] for f in expected} == expected, (task, name, j)
            assert page.locator(f'section.scene[data-scene="{k}"] svg.map .obj.selected').count() == \
                (1 if j < len(spec.objects) else 0)
    assert page.blocked == [] and page.errors == []
    page.close()


@pytest.mark.browser
@pytest.mark.render
@pytest.mark.parametrize("benchmark", list(first_tasks()))
def test_the_map_stands_every_object_where_its_spec_does_and_selects_with_the_image(site, browser, benchmark):
    task = first_tasks()[benchmark]
    item = item_of(task)
    page = opened(browser, site / "train" / task / "0" / inspector.PAGE)
    for k, name, spec in each_scene(page, item):
        svg = page.locator(f'section.scene[data-scene="{k}"] svg.map')
        frame = svg.bounding_box()
        scale, x0, y0 = (float(svg.get_attribute(a)) for a in ("data-scale", "data-x0", "data-y0"))
        drawn = float(svg.get_attribute("width")) / frame["width"]  # the map's units per screen pixel
        for j, obj in enumerate(spec.objects):
            mark = svg.locator(f'.obj[data-index="{j}"] > :first-child').bounding_box()
            cx, cy = (mark["x"] - frame["x"] + mark["width"] / 2) * drawn, (mark["y"] - frame["y"] + mark["height"] / 2) * drawn
            assert math.dist((x0 + cx / scale, y0 - cy / scale), obj.position) < 0.05, (task, name, j)
            svg.locator(f'.obj[data-index="{j}"] text').click()
            assert shown_facts(page)["index"] == f"#{j}"
            selected = page.locator(f'section.scene[data-scene="{k}"] .marks rect.selected')
            assert selected.count() in (0, 1) and (selected.count() == 0 or selected.get_attribute("data-index") == str(j))
    assert page.blocked == [] and page.errors == []
    page.close()


@pytest.mark.browser
@pytest.mark.render
@pytest.mark.parametrize("benchmark", list(first_tasks()))
def test_why_gives_the_solver_s_answer_behind_the_switch(site, browser, benchmark):
    task = first_tasks()[benchmark]
    item = item_of(task)
    page = opened(browser, site / "train" / task / "0" / inspector.PAGE)
    assert not page.locator("#why").is_visible() and not page.locator('#info dd[data-field="role"]').is_visible()
    page.check("#show-answer")
    why = page.locator("#why").inner_text()
    answer = inspector._answer(item.solution())
    assert f"The file-only solver, reading this item's files, answers: {answer}." in why
    assert "The validator recomputes every label from the specs: they hold." in why
    assert len(why.splitlines()) > 4  # the benchmark's own derivation comes first
    page.click("nav.scenes button >> nth=-1")
    page.check('#layers input[data-layer="boxes"]')
    spec = list(item.scenes().values())[-1]
    box = page.locator("section.scene:not([hidden]) .view").bounding_box()
    truth = json.loads((rendered_all() / "train" / task / "0" / f"{list(item.scenes())[-1]}.json").read_text())
    x, y = inside(truth["objects"][0]["mask"])
    page.mouse.click(box["x"] + (x + 0.5) * box["width"] / spec.camera.width,
                     box["y"] + (y + 0.5) * box["height"] / spec.camera.height)
    assert shown_facts(page)["index"] == "#0"
    if SHOTS:
        Path(SHOTS).mkdir(exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{benchmark}.jpg"), full_page=True, type="jpeg", quality=80)
    page.close()


@pytest.mark.browser
@pytest.mark.render
def test_every_layer_switches(site, browser):
    page = opened(browser, site / "train" / first_tasks()["mewl"] / "0" / inspector.PAGE)
    section = 'section.scene[data-scene="0"]'
    for layer in [box.get_attribute("data-layer") for box in page.query_selector_all("#layers input[data-layer]")]:
        shown = page.locator(f'{section} .layer.{layer}, {section} [data-layer="{layer}"]').first
        switch = page.locator(f'#layers input[data-layer="{layer}"]')
        before = switch.is_checked()
        for state in (not before, before):
            switch.set_checked(state)
            assert shown.is_visible() == state, layer
    page.close()


@pytest.mark.render
def test_pages_are_small_lazy_and_hold_no_image_as_data(site):
    pages = sorted(site.glob("train/*/*/" + inspector.PAGE))
    assert len(pages) == len(catalog.tasks())
    for path in pages:
        text = path.read_text()
        assert "data:" not in text and "://" not in text, path
        imgs = re.findall(r"<img [^>]*>", text)
        assert imgs and all('loading="lazy"' in i for i in imgs), path
        assert len(text) < 400_000, (path, len(text))
    entry = (site / "train" / "pragmatic" / "index.html").read_text()
    assert f'href="0/{inspector.PAGE}"' in entry and f'href="0/{inspector.PAGE}"' in (site / "train/pragmatic/0.html").read_text()


def test_every_text_is_escaped():
    evil = '</script><script>alert("x")</script> & \'q\''
    scene = {"name": evil, "caption": evil, "width": 4, "height": 4,
             "objects": [{"index": 0, "description": evil, "box": [0, 0, 1, 1], "mask": [0, 1], "color_key": "#000000",
                          "words": evil}]}
    html = inspector_html.page(evil, [], [(scene, "<svg></svg>")], (), {}, [evil], "")
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    data = html.split('id="inspector-data">')[1].split("</script>")[0]
    assert json.loads(data)["scenes"][0]["objects"][0]["words"] == evil  # the script reads it back as written


def test_a_scene_whose_truth_lists_fewer_objects_than_its_spec_says_so_above_its_image():
    """Such a store (the scale benchmark's copies images between items) is still shown, with its problem."""
    scene = {"name": "image", "caption": "c", "width": 4, "height": 4, "objects": [],
             "problem": "image.json lists 1 objects and the spec 3: <b>"}
    html = inspector_html.page("t", [], [(scene, "<svg></svg>")], (), {}, [], "")
    assert '<p class="problem">image.json lists 1 objects and the spec 3: &lt;b&gt;</p>' in html


def _copy_item(tmp_path: Path, task: str) -> Path:
    out = tmp_path / "out"
    (out / "train").mkdir(parents=True)
    shutil.copy(rendered_all() / MANIFEST, out)
    shutil.copytree(rendered_all() / "train" / task / "0", out / "train" / task / "0")
    return out


@pytest.mark.render
def test_a_damaged_item_is_one_line(tmp_path, mewl):
    out = _copy_item(tmp_path, "malevic-pos")
    (out / "train/malevic-pos/0/image.json").write_text('{"objects": [')
    code, _, err = mewl("inspect", out / "train/malevic-pos/0", "--html", tmp_path / "page")
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and "malevic-pos/0" in err[0] and not (tmp_path / "page").exists()


@pytest.mark.browser
@pytest.mark.render
def test_the_passes_a_dataset_has_are_layers(tmp_path, browser, mewl):
    """The session's render has no passes: an item is given every pass, made from its ground truth, its record
    and manifest saying so, as a render with --passes all writes them."""
    out = _copy_item(tmp_path, "malevic-pos")
    folder = out / "train/malevic-pos/0"
    truth = json.loads((folder / "image.json").read_text())
    w, h = truth["camera"]["width"], truth["camera"]["height"]
    ids = np.zeros((h, w), np.uint16)
    for k, o in enumerate(truth["objects"]):
        ids[mask_utils.decode({"size": [h, w], "counts": o["mask"]["counts"].encode()}).astype(bool)] = k + 1
    depth = np.where(ids > 0, 5.0, 9.0).astype(np.float32)
    with open(folder / "image.depth.npy", "wb") as f:
        np.save(f, depth)
    (folder / "image.normal.png").write_bytes(png16(np.full((h, w, 3), 40000, np.uint16)))
    (folder / "image.albedo.png").write_bytes(png16(np.full((h, w, 3), 20000, np.uint16)))
    (folder / "image.instance.png").write_bytes(png16(ids))
    (folder / RECORD).unlink()
    write_record(folder)
    manifest = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**manifest, "passes": ["depth", "normal", "albedo", "instance"]}))
    assert mewl("inspect", folder, "--html", tmp_path / "page")[0] == 0
    page = opened(browser, tmp_path / "page" / "index.html")
    assert page.locator(".depth-scale").inner_text().startswith("5.00")
    for layer in ("depth", "normal", "albedo", "instance"):
        picture = page.locator(f'img[data-layer="{layer}"]')
        assert not picture.is_visible()
        page.check(f'#layers input[data-layer="{layer}"]')
        assert picture.is_visible() and picture.evaluate("i => i.complete && i.naturalWidth") == w
    assert page.blocked == [] and page.errors == []


def test_mask_runs_are_read_off_the_counts_string_as_pycocotools_decodes_them():
    """The page's masks are run lengths read off each COCO string without decoding it; they must be the
    decoded mask's, column by column, background first; a string that does not cover its image is none."""
    from mewl_gen.scenes.image_truth import Mask
    from mewl_gen.results.gallery_masks import run_lengths

    rng = np.random.default_rng(3)
    for k in range(200):
        h, w = rng.integers(1, 40, 2)
        m = rng.random((h, w)) < rng.random() if k % 3 else np.zeros((h, w), bool) | (k % 2 == 0)
        enc = mask_utils.encode(np.asfortranarray(m.astype(np.uint8)))
        flat = m.T.ravel().astype(np.int8)
        bounds = np.r_[0, np.flatnonzero(np.diff(flat)) + 1, flat.size]
        want = ([0] if flat[0] else []) + np.diff(bounds).tolist()
        assert run_lengths(Mask(size=(h, w), counts=enc["counts"].decode()), h, w) == want
    assert run_lengths(Mask(size=(4, 4), counts="0"), 4, 4) is None and run_lengths(Mask(size=(4, 4), counts="4"), 4, 5) is None
    assert run_lengths(Mask(size=(4, 4), counts="o"), 4, 4) is None  # a run whose last character asks for more
