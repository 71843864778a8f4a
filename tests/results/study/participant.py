"""A scripted participant: takes part in a built study in Chromium (playwright, Debian's chromium, never a
downloaded browser), answering each trial by a rule, and hands back what the experiment saved. It moves
on events only: after each click it waits for jsPsych's next trial (or the end), never for a fixed time."""
from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Callable

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
STEPS = 2000  # a bound on clicks: a study that never ends fails the test, it does not hang it
WAIT_MS = 20000

Rule = Callable[[str, list[str], str], str]  # (trial id, the buttons' words, the question) -> the words to click


def oracle(key: dict) -> Rule:
    return lambda tid, labels, question: key["trials"][tid]["correct"]


def guesser(seed: int) -> Rule:
    """Guesses every item, and does what a catch trial's question says (it is written there, in quotes)."""
    rng = random.Random(seed)

    def pick(tid, labels, question):
        said = re.search(r"click “(.+)”", question)
        return said.group(1) if said and said.group(1) in labels else rng.choice(labels)

    return pick


def careless(key: dict) -> Rule:
    """Right on every item, wrong on every catch trial."""
    def pick(tid, labels, question):
        right = key["trials"][tid]["correct"]
        return next(label for label in labels if label != right) if key["trials"][tid]["kind"] == "catch" else right

    return pick


def take_part(browser, url: str, rule: Rule, blocked: list[str] | None = None,
              download: Path | None = None) -> tuple[list[dict], str]:
    """Complete the study at `url`; jsPsych's rows as the experiment saved them, and the last page's text.
    Any request that leaves the machine (neither file:// nor 127.0.0.1) is aborted and listed in `blocked`.
    With `download`, the participant also saves their responses with the last page's button, there."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    blocked = [] if blocked is None else blocked

    def route(r):
        if r.request.url.startswith(("file://", "http://127.0.0.1")):
            return r.continue_()
        blocked.append(r.request.url)
        return r.abort()

    page.route("**/*", route)
    page.goto(url)
    for _ in range(STEPS):
        page.wait_for_function("document.body.dataset.done === '1' || document.querySelector('.jspsych-btn') !== null",
                               timeout=WAIT_MS)
        if page.evaluate("document.body.dataset.done === '1'"):
            break
        step = page.evaluate("window.jsPsych.getProgress().current_trial_global")
        trial = page.query_selector("#study-trial")
        if page.query_selector("#jspsych-instructions-next"):
            page.click("#jspsych-instructions-next")
        elif trial is not None:
            tid = trial.get_attribute("data-trial")
            question = page.inner_text(".study-question")
            page.wait_for_function("[...document.images].every(i => i.complete && i.naturalWidth > 0)", timeout=WAIT_MS)
            labels = page.eval_on_selector_all("#jspsych-html-button-response-btngroup button",
                                               "bs => bs.map(b => b.textContent)")
            practice = page.query_selector(".study-note") is not None  # practice: not in the key, never scored
            choice = labels[0] if practice else rule(tid, labels, question)
            page.click(f"#jspsych-html-button-response-btngroup [data-choice='{labels.index(choice)}']")
        else:
            page.click(".jspsych-btn >> nth=0")
        page.wait_for_function(f"document.body.dataset.done === '1' || "
                               f"window.jsPsych.getProgress().current_trial_global > {step}", timeout=WAIT_MS)
    else:
        raise AssertionError(f"the study at {url} did not end in {STEPS} clicks")
    data = json.loads(page.evaluate("window.STUDY_RESULT"))
    text = page.inner_text("#study-done")
    if download is not None:
        with page.expect_download(timeout=WAIT_MS) as saving:
            page.click("#study-save")
        saving.value.save_as(download)
    page.close()
    return data, text
