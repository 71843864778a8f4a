"""Pseudo-words: never English, never a release file's name, coined in bounded time."""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

from mewl_gen.scenes.draws import OutOfDraws
from mewl_gen.tasks.mewl.item import RESERVED_NAMES, TASKS
from mewl_gen.tasks.mewl.sample.words import (
    ENGLISH_FILE,
    MAX_SYLLABLES,
    NODE_MODULES,
    NPM_FILE,
    NPM_LISTS,
    RESERVED,
    SCOWL,
    SYLLABLES,
    SYSTEM_FILE,
    CoinageError,
    coinable,
    coinable_english,
    coinable_inflected,
    english_lists,
    english_words,
    inflected,
    inflections,
    npm_lists,
    pseudo_words,
    segmentable,
    system_lists,
)
from tests.conftest import episodes, sweep


@pytest.mark.parametrize("word", ["size", "pair", "info", "dies", "lies", "fees", "meme", "disco",
                                  # inflections (torso, rife) and words of the system's dictionaries
                                  "torsi", "rifer", "perter", "rehi", "ombu", "sijo", "torten",
                                  # the npm registry's lists and SCOWL's largest and Australian ones
                                  "derro", "foen", "katal", "puha", "afto", "acgi", "zoha"])
def test_english_words_and_file_names_are_never_coined(word):
    assert not coinable(word)


@pytest.mark.slow
def test_the_shipped_list_is_every_english_word_a_coinage_could_hit_loaded_once():
    """ENGLISH_FILE is the word lists' words that split into our syllables (`python -m mewl_gen.tasks.mewl.sample.words`
    writes it); every coined word splits so, so checking it against the file is checking it against the
    whole lists."""
    lists = english_lists()
    assert len(lists) > 400_000 and {"pair", "size", "cube", "table", "dies", "meme", "emails"} <= lists
    words = english_words()
    assert ENGLISH_FILE.read_text().split() == coinable_inflected(lists), \
        "stale: run `python -m mewl_gen.tasks.mewl.sample.words`"
    assert set(SYSTEM_FILE.read_text().split()) | set(NPM_FILE.read_text().split()) <= words
    assert {"dies", "fees", "meme", "disco", "wider", "torsi", "rifer"} <= words and english_words() is words
    rng = np.random.default_rng(0)
    for syllables in range(1, MAX_SYLLABLES + 1):
        assert all(segmentable("".join(SYLLABLES[i] for i in rng.integers(len(SYLLABLES), size=syllables)))
                   for _ in range(200))
    assert not segmentable("xyz") and not segmentable("bababababa")  # no syllable x; five syllables


@pytest.mark.slow
def test_inflecting_only_the_words_whose_forms_could_split_into_syllables_loses_no_form():
    """coinable_inflected skips a word whose beginning (all but its last two letters) begins no word of
    syllables: the same list as inflecting every word, on a random sample of the lists' words and on words
    made of syllables with endings."""
    lists = sorted(english_lists())
    rng = np.random.default_rng(1)
    made = {"".join(SYLLABLES[i] for i in rng.integers(len(SYLLABLES), size=rng.integers(1, MAX_SYLLABLES + 1)))
            + end for end in ("", "s", "e", "y", "f", "fe", "us", "ex", "a") for _ in range(300)}
    words = frozenset(lists[i] for i in rng.choice(len(lists), 10_000, replace=False)) | made
    assert all(form.startswith(w[:-2]) for w in words for form in inflections(w))
    assert coinable_inflected(words) == coinable_english(inflected(words))
    assert len(coinable_inflected(words)) > 1000


def test_every_base_word_brings_its_regular_forms():
    assert {"torsi", "torsos"} <= inflections("torso") and {"rifer", "rifest"} <= inflections("rife")
    assert {"cities", "citied"} <= inflections("city") and {"bigger", "biggest"} <= inflections("big")
    assert {"wolves"} <= inflections("wolf") and {"knives"} <= inflections("knife")
    assert {"baking", "baked", "bakes"} <= inflections("bake") and {"fungi"} <= inflections("fungus")


def installed(lists):
    """The words of lists installed outside the venv (Debian's, npm's); where they are missing a skip, and a
    failure under CI, which installs them (.ci/run): a check that skips there checks nothing."""
    try:
        return lists()
    except FileNotFoundError as missing:
        if os.environ.get("CI", "") not in ("", "0", "false"):
            raise
        pytest.skip(str(missing))


@pytest.mark.slow
def test_the_pinned_system_list_is_the_scowl_lists_words_a_coinage_could_hit():
    """SYSTEM_FILE: the words of every SCOWL list to size 95 in every spelling (Debian's scowl package) and their
    inflections that split into our syllables, written when the lists are installed, read at run time."""
    words = installed(system_lists)
    assert len(words) > 500_000 and {"torso", "rife", "ombu", "sijo", "afto", "zoha"} <= words
    assert SYSTEM_FILE.read_text().split() == coinable_inflected(words), \
        "stale: run `python -m mewl_gen.tasks.mewl.sample.words`"


@pytest.mark.slow
def test_the_pinned_npm_list_is_the_npm_lists_words_a_coinage_could_hit():
    """NPM_FILE: the words of the npm registry's widest English lists (package-lock.json's versions) and their
    inflections that split into our syllables."""
    words = installed(npm_lists)
    assert len(words) > 270_000 and {"derro", "foen", "katal", "puha"} <= words
    assert NPM_FILE.read_text().split() == coinable_inflected(words), \
        "stale: run `python -m mewl_gen.tasks.mewl.sample.words`"


def test_a_missing_list_is_named_with_how_to_install_it():
    with pytest.raises(FileNotFoundError, match="no word list at /nowhere/english-words.95, .*apt-get install scowl"):
        system_lists(Path("/nowhere"))
    with pytest.raises(FileNotFoundError, match="no word list at /nowhere/an-array-of-english-words/.*npm ci"):
        npm_lists(Path("/nowhere"))


def test_release_file_names_are_reserved():
    assert {"info", "question", "episode"} <= set(RESERVED_NAMES) <= RESERVED


def test_coining_is_bounded_and_says_why():
    """175 one-syllable words, many of them English: 200 distinct ones cannot exist."""
    with pytest.raises(CoinageError, match="coined .* of 200 words"):
        pseudo_words(np.random.default_rng(0), 200, syllables=1)
    assert issubclass(CoinageError, OutOfDraws), "the item is redrawn from a derived seed, then reported"


@pytest.mark.slow
def test_a_sampler_out_of_draws_is_redrawn_a_bounded_number_of_times_then_reported():
    from mewl_gen.tasks.benchmark import MAX_RETRIES, ItemError, Solver, Task, draw_item

    seen = []

    def sample(rng, draw):
        seen.append(draw.retry)
        pseudo_words(rng, 200, syllables=1)  # always runs out

    task = Task("shape", "mewl", "", sample, lambda item: None, model=object, images=1, solver=Solver(lambda s: None, 1))
    with pytest.raises(ItemError, match=f"ran out of draws in {MAX_RETRIES} redraws .*coined"):
        draw_item(task, 0, "train", 3, first_retry=2)
    assert seen == list(range(2, 2 + MAX_RETRIES))


def coined(ep) -> set[str]:
    """Every token of the lexicon, utterances and choices that is not a word
    of the universe or the utterance grammar."""
    tokens = set(ep.lexicon) | {t for p in ep.context_panels for t in p.utterance.split()}
    tokens |= {t for c in ep.choices for t in c.split()}
    return tokens - (RESERVED - set(RESERVED_NAMES))


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_no_sampled_word_is_english_or_a_file_name(task):
    english = english_words()
    for ep in episodes(task):
        words = coined(ep)
        assert not words & english, f"{task} episode {ep.index}: {sorted(words & english)}"
        assert not words & set(RESERVED_NAMES)
        assert not {p.name for p in ep.context_panels} & set(RESERVED_NAMES)


@functools.cache
def wide_english() -> dict[str, frozenset[str]]:
    """The widest English lists, read here apart from the coiner's own loaders and files: wordfreq's large
    list, the npm registry's two and every SCOWL list (each word as the list spells it, lowercased)."""
    from wordfreq import iter_wordlist

    def alphabetic(words):
        return frozenset(w.lower() for w in words if w.isalpha())

    array, lines = (NODE_MODULES / name for name in NPM_LISTS)
    return {"wordfreq": alphabetic(iter_wordlist("en", "large")),
            "an-array-of-english-words": alphabetic(json.loads(array.read_text())),
            "word-list": alphabetic(lines.read_text().split()),
            "SCOWL": alphabetic(w for p in SCOWL.iterdir() for w in p.read_text().split())}


def in_wide_lists(words: set[str]) -> dict[str, list[str]]:
    return {name: sorted(words & english) for name, english in installed(wide_english).items() if words & english}


@pytest.mark.parametrize("seed", [11, 4242, 90210])
@pytest.mark.slow
def test_no_word_coined_by_any_task_is_in_a_wide_english_list(seed):
    """Every MEWL task on seeds the other tests do not use: wordfreq's large list has the inflected and
    modern forms that Webster's and GCIDE lack, npm's and SCOWL's the rare ones (ICY coins no word: its
    messages are the paper's symbols)."""
    from mewl_gen.tasks.catalog import sample_item

    for task in TASKS:
        for index in range(8):
            words = coined(sample_item(task, seed, "train", index))
            assert words and not in_wide_lists(words), f"{task} seed {seed} episode {index}: {in_wide_lists(words)}"


@pytest.mark.slow
def test_words_coined_on_many_seeds_are_in_no_wide_english_list():
    """Coinage as the tasks call it (two and three syllables), on many seeds: tens of thousands of words, each
    checked against the lists themselves rather than the shipped files written from them."""
    words = set()
    for seed in range(sweep(2_000, 10_000)):
        rng = np.random.default_rng([seed, 7])
        words |= set(pseudo_words(rng, 8, syllables=2)) | set(pseudo_words(rng, 6, syllables=3))
    assert len(words) > sweep(20_000, 70_000)
    assert not in_wide_lists(words)
