"""`mewl study`'s page shows a dataset's words as text, never as markup: an item whose choices, utterances
and names are HTML (an image whose error handler runs script, a `</script>` that would end a script block)
is built into a study and opened in headless Chromium; its buttons read exactly those words, no script of
theirs runs, and the choice a participant clicks is saved as the very label the key maps to its answer."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mewl_gen.results.study import build, plan
from mewl_gen.tasks.catalog import sample_item

from .participant import CHROMIUM, WAIT_MS

pytestmark = pytest.mark.browser
SCRIPT = '<img src=x onerror="document.body.dataset.pwned=1">'
CLOSES = '</script><script>document.body.dataset.pwned=2</script>'
TAGS = "<b>bold</b> & <i>co</i>"


@pytest.fixture
def page_dir(tmp_path) -> tuple[Path, list[str]]:
    """DIR of a one-trial study of a MEWL episode whose choices, context names and utterances are HTML."""
    episode = sample_item("shape", 0, "test", 0)
    hostile = [SCRIPT, CLOSES, TAGS, "x\u2028y"]
    choices = [*hostile, episode.answer] if episode.answer not in hostile else hostile
    panels = [p.model_copy(update={"utterance": SCRIPT}) for p in episode.context_panels]
    item = episode.model_copy(update={"choices": tuple(choices), "context_panels": tuple(panels)})
    made = plan.make([plan.Source("test", "shape", 0, item)], [], 0, np.random.default_rng(1))
    texts = build.default_texts([b["benchmark"] for b in made.blocks])
    dest = tmp_path / "dir"
    dest.mkdir()
    build.write_page(dest, build.study_data(made, texts, "s1", 0), texts)
    (dest / "img").mkdir()
    for token in made.images:
        Image.new("RGB", (8, 8), (90, 90, 90)).save(dest / "img" / f"{token}.png")
    return dest, list(choices)


def test_a_datasets_words_are_text_on_the_page(page_dir):
    if not Path(CHROMIUM).is_file():
        pytest.skip("Chromium is not installed: run .ci/install-chromium as root to install it (Debian's package)")
    from playwright.sync_api import sync_playwright

    dest, choices = page_dir
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
            page.goto((dest / "index.html").as_uri())
            page.wait_for_selector(".jspsych-btn", timeout=WAIT_MS)
            page.click(".jspsych-btn >> nth=0")  # consent
            for _ in range(2):  # the study's instructions, the benchmark's
                page.click("#jspsych-instructions-next", timeout=WAIT_MS)
            page.wait_for_selector("#study-trial", timeout=WAIT_MS)
            page.wait_for_function("[...document.images].every(i => i.complete)", timeout=WAIT_MS)
            group = "#jspsych-html-button-response-btngroup"
            labels = page.eval_on_selector_all(f"{group} button", "bs => bs.map(b => b.textContent)")
            assert sorted(labels) == sorted(choices)
            assert page.eval_on_selector_all(f"{group} *:not(button)", "es => es.length") == 0
            assert page.eval_on_selector_all("#study-trial figcaption", "fs => fs.map(f => f.textContent)")[0] == SCRIPT
            page.click(f"{group} [data-choice='{labels.index(SCRIPT)}']")
            page.wait_for_function("document.body.dataset.done === '1' || !document.querySelector('#study-trial')",
                                   timeout=WAIT_MS)
            page.wait_for_timeout(200)  # an image's error event, had one been made, would have fired by now
            assert page.evaluate("document.body.dataset.pwned") is None
            rows = page.evaluate("window.jsPsych.data.get().filter({phase: 'trial'}).values()")
            assert [r["choice"] for r in rows] == [SCRIPT]
        finally:
            browser.close()


def test_the_trials_file_keeps_every_word_and_closes_no_script(page_dir):
    dest, choices = page_dir
    text = (dest / "study-data.js").read_text()
    assert "</script" not in text.lower() and "\u2028" not in text  # safe even inlined in a <script> block
    study = json.loads(text[text.index("{"): text.rindex("}") + 1])
    (trial,) = study["blocks"][0]["tasks"][0]
    assert sorted(trial["options"]) == sorted(choices)
