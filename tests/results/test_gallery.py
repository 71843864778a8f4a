"""`mewl gallery OUT --out DIR`: static pages that open from the file system. Built from the session's
preview render of every task, opened in headless Chromium (every image of an episode page loads, the
screenshot is not blank); every link resolves inside DIR; index pages list at most PER_PAGE items;
a damaged item is named and left out; an existing DIR is never overwritten; every text is escaped."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from PIL import Image

from mewl_gen.results import gallery, gallery_html
from mewl_gen.store import bookkeeping
from mewl_gen.store.record import RECORD, write_record
from mewl_gen.tasks.gallery import Block, Shown
from tests.conftest import rendered_all, run_mewl

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
INSTALL = ".ci/install-chromium"
# Episode pages opened in the browser: MEWL's (a panel named 'dunwo #32' in color), ICY's, a Bongard problem.
EPISODES = ("train/color/0.html", "train/pragmatic/0.html", "train/icy-episodes/0.html", "train/bongard-basic/0.html")
# Appended to a copy of a page: after the load event, whether each <img> decoded, written into the DOM.
PROBE = ('<script>addEventListener("load", () => document.body.setAttribute("data-images", JSON.stringify('
         '[...document.images].map(i => [i.getAttribute("src"), i.complete && i.naturalWidth > 0]))));</script>')
LINK = re.compile(r'(?:href|src)="([^"]*)"')


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("gallery") / "site"
    assert run_mewl("gallery", rendered_all(), "--out", dest) == 0
    return dest


def links(page: Path) -> list[str]:
    return [unescape(t) for t in LINK.findall(page.read_text())]


def dangling(site: Path) -> list[str]:
    """Every link of every page that does not lead to a file inside the site."""
    bad = []
    for page in site.rglob("*.html"):
        for target in links(page):
            path = (page.parent / unquote(target)).resolve()
            if "://" in target or target.startswith("/") or not path.is_file() or site.resolve() not in path.parents:
                bad.append(f"{page.relative_to(site)} -> {target}")
    return bad


def chromium(*args: str) -> subprocess.CompletedProcess:
    if CHROMIUM is None:
        pytest.skip(f"Chromium is not installed: run {INSTALL} as root to install it")
    return subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=60)


def loaded_images(page: Path) -> list[tuple[str, bool]]:
    """(src, decoded) of every <img> of the page once the browser fired its load event."""
    probe = page.with_name(page.stem + ".probe.html")
    probe.write_text(page.read_text().replace("</body>", PROBE + "\n</body>"))
    try:
        r = chromium("--dump-dom", probe.as_uri())
    finally:
        probe.unlink()
    found = re.search(r'data-images="([^"]*)"', r.stdout)
    assert found, f"no load event recorded: {r.stderr[-500:]}"
    return [tuple(x) for x in json.loads(unescape(found.group(1)))]


@pytest.mark.render
def test_every_task_has_an_index_and_every_item_a_page(site):
    for task in (rendered_all() / "train").iterdir():
        if task.is_dir():
            assert (site / "train" / task.name / "index.html").is_file()
            assert (site / "train" / task.name / "0.html").is_file()
            assert sorted(p.name for p in (site / "train" / task.name / "0").glob("*.png")) == \
                   sorted(p.name for p in task.joinpath("0").glob("*.png"))


@pytest.mark.render
def test_every_link_resolves_inside_the_gallery(site):
    assert not dangling(site)
    page = site / "train" / "pragmatic" / "0.html"
    assert {"index.html"} <= set(links(page)) and "../../style.css" in links(page)


@pytest.mark.browser
@pytest.mark.render
def test_episode_pages_load_every_image_in_chromium(site):
    for name in EPISODES:
        shown = loaded_images(site / name)
        assert len(shown) >= 14 and all(ok for _, ok in shown), (name, shown)


@pytest.mark.browser
@pytest.mark.render
def test_the_probe_sees_an_image_that_does_not_load(site):
    page = site / "train" / "pragmatic" / "broken.html"
    page.write_text((site / "train" / "pragmatic" / "0.html").read_text().replace('src="0/question.png"',
                                                                                    'src="0/missing.png"'))
    try:
        shown = dict(loaded_images(page))
    finally:
        page.unlink()
    assert shown.pop("0/missing.png") is False and len(shown) >= 6 and all(shown.values()), shown


@pytest.mark.browser
@pytest.mark.render
def test_an_episode_screenshot_is_not_blank(site, tmp_path):
    shot = tmp_path / "episode.png"
    r = chromium(f"--screenshot={shot}", "--window-size=1240,900", (site / EPISODES[1]).as_uri())
    assert shot.is_file(), r.stderr[-500:]
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.shape == (900, 1240) and pixels.std() > 20, pixels.std()


def _linked(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def many(tmp_path: Path, n: int, task: str = "malevic-pos") -> Path:
    """A dataset of one task whose item 0 is repeated as items 0..n-1 (hard links where they can be), each
    copy's record saying its own index (a folder must hold the item of its own number)."""
    source, out = rendered_all(), tmp_path / "many"
    (out / "train").mkdir(parents=True)
    shutil.copy(source / "mewl-dataset.json", out)
    for i in range(n):
        folder = out / "train" / task / str(i)
        shutil.copytree(source / "train" / task / "0", folder, copy_function=_linked)
        item = json.loads((folder / "item.json").read_text())
        for name in ("item.json", RECORD):
            (folder / name).unlink()  # a hard link to the source's: never written through
        (folder / "item.json").write_text(json.dumps({**item, "index": i}, indent=2) + "\n")
        write_record(folder)
    return out


@pytest.mark.render
def test_index_pages_list_at_most_a_page_of_items_each_once(tmp_path, monkeypatch, mewl):
    assert gallery.PER_PAGE <= 100
    per, pages = 4, 13
    monkeypatch.setattr(gallery, "PER_PAGE", per)  # 13 pages of a few items rather than 3 of a hundred
    n = per * (pages - 1) + 1
    site = tmp_path / "site"
    assert mewl("gallery", many(tmp_path, n), "--out", site)[0] == 0
    folder = site / "train" / "malevic-pos"
    names = ["index.html", *(f"page-{k}.html" for k in range(2, pages + 1))]
    assert sorted(p.name for p in folder.glob("*.html") if not p.stem.isdigit()) == sorted(names)
    listed = [[t for t in links(folder / p) if re.fullmatch(r"\d+\.html", t)] for p in names]
    assert [len(x) for x in listed] == [per] * (pages - 1) + [1]
    assert sorted(int(t.split(".")[0]) for x in listed for t in x) == list(range(n))
    for k, page in enumerate(names):  # each item's page leads up to the index page that lists it
        for target in listed[k]:
            assert page in links(folder / target)
    middle = set(links(folder / "page-7.html"))  # the first, the last, four on each side, and up
    assert {"index.html", "page-3.html", "page-11.html", "page-13.html", "../../malevic.html"} <= middle
    assert "page-2.html" not in middle and "page-12.html" not in middle
    assert {"3.html", "5.html", "page-2.html"} <= set(links(folder / "4.html"))
    assert not dangling(site)


@pytest.mark.render
def test_a_damaged_item_is_named_and_left_out(tmp_path, mewl):
    out = many(tmp_path, 3)
    image = out / "train" / "malevic-pos" / "1" / "image.png"
    data = image.read_bytes()
    image.unlink()  # a hard link: write a new file
    image.write_bytes(data[:-10])
    site = tmp_path / "site"
    code, _, err = mewl("gallery", out, "--out", site)
    assert code == 0
    err = err.strip().splitlines()
    assert len(err) == 1 and "train/malevic-pos/1" in err[0] and "left out" in err[0]
    folder = site / "train" / "malevic-pos"
    assert not (folder / "1.html").exists() and not (folder / "1").exists()
    assert "2.html" in links(folder / "0.html") and not dangling(site)


@pytest.mark.render
def test_a_part_made_dataset_says_how_many_planned_items_it_lacks(tmp_path, mewl):
    out = many(tmp_path, 3)
    bookkeeping.record_plan(out, "train", "malevic-pos", 600)  # a render of 600 stopped after 3
    bookkeeping.record_plan(out, "test", "malevic-pos", 50)  # a split not begun
    site = tmp_path / "site"
    code, printed, err = mewl("gallery", out, site)
    assert code == 0
    (err,) = err.splitlines()
    said = ("incomplete dataset: test/malevic-pos: 0 of 50 planned items, train/malevic-pos: 3 of 600 planned items; "
            "3 of 650 planned items in all")
    assert err.startswith(f"mewl gallery: {said}") and "the dataset is incomplete" in printed
    front = unescape((site / "index.html").read_text())
    assert said in front and "<td>3 of 650 planned items</td>" in front  # the benchmarks' table
    assert "train: 3 of 600 planned items" in unescape((site / "malevic.html").read_text())
    assert "(3 of 600 planned items: the dataset is incomplete)" in (site / "train/malevic-pos/index.html").read_text()


@pytest.mark.render
def test_an_existing_folder_is_never_overwritten(tmp_path, mewl):
    out = many(tmp_path, 1)
    site = tmp_path / "site"
    site.mkdir()
    (site / "keep.txt").write_text("mine")
    code, _, err = mewl("gallery", out, "--out", site)
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and "not an empty folder" in err[0]
    assert [p.name for p in site.iterdir()] == ["keep.txt"] and (site / "keep.txt").read_text() == "mine"
    assert not list(tmp_path.glob(".site.partial-*"))
    assert mewl("gallery", out, "--out", out / "inside")[0] == 2


def test_every_text_is_escaped():
    evil = '<script>alert("x")</script> & \'q\''
    html = gallery_html.block(Block(evil, (Shown(evil, evil, evil),), words=(evil,), marked=(evil,),
                                    facts=((evil, evil),)), "0", {evil: [("#fff", evil)]})
    assert "<script>" not in html and "&lt;script&gt;" in html and "&quot;x&quot;" in html
    assert 'src="0/%3Cscript%3Ealert' in html  # a scene name in a link is quoted as a path
    assert "<script>" not in gallery_html.document(evil, "", "")
    assert "<script>" not in gallery_html.entry("a", "b", evil, evil)


def test_a_sampled_dataset_without_images_is_refused_in_one_line(tmp_path, mewl):
    out, site = tmp_path / "sampled", tmp_path / "site"
    assert mewl("sample", "--task", "malevic-pos", "--n", 1, "--out", out)[0] == 0
    code, _, err = mewl("gallery", out, "--out", site)
    assert code == 2
    err = err.strip().splitlines()
    assert len(err) == 1 and "without images" in err[0] and not site.exists()
