"""Pseudo-words: never English, never a release file's name, coined in bounded time."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from mewl_gen.scenes.draws import OutOfDraws
from mewl_gen.tasks.mewl.item import RESERVED_NAMES, TASKS
from mewl_gen.tasks.mewl.sample.words import (
    ENGLISH_FILE,
    MAX_SYLLABLES,
    RESERVED,
    SYLLABLES,
    SYSTEM_FILE,
    SYSTEM_LISTS,
    CoinageError,
    coinable,
    coinable_english,
    coinable_inflected,
    english_lists,
    english_words,
    inflected,
    inflections,
    pseudo_words,
    segmentable,
    system_lists,
)
from tests.conftest import episodes


@pytest.mark.parametrize("word", ["size", "pair", "info", "dies", "lies", "fees", "meme", "disco",
                                  # inflections (torso, rife) and words of the system's dictionaries
                                  "torsi", "rifer", "perter", "rehi", "ombu", "sijo", "torten"])
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
    assert set(SYSTEM_FILE.read_text().split()) <= words
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


@pytest.mark.skipif(not all(p.is_file() for p in SYSTEM_LISTS), reason="the system's word lists are not installed "
                    "(apt-get install wamerican wbritish wamerican-large wbritish-large wamerican-huge wbritish-huge)")
@pytest.mark.slow
def test_the_pinned_system_list_is_the_system_dictionaries_words_a_coinage_could_hit():
    """SYSTEM_FILE: the words of Debian's wamerican/wbritish lists (SCOWL up to size 70) and their
    inflections that split into our syllables, written when the lists are installed, read at run time."""
    words = system_lists()
    assert len(words) > 250_000 and {"torso", "rife", "ombu", "sijo"} <= words
    assert SYSTEM_FILE.read_text().split() == coinable_inflected(words), \
        "stale: run `python -m mewl_gen.tasks.mewl.sample.words`"


def test_a_missing_system_list_is_named():
    with pytest.raises(FileNotFoundError, match="no word list at /nowhere/words"):
        system_lists((Path("/nowhere/words"),))


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
def large_english() -> frozenset[str]:
    """wordfreq's large English list, read here apart from the coiner's own loader."""
    from wordfreq import iter_wordlist

    return frozenset(w.lower() for w in iter_wordlist("en", "large") if w.isalpha())


@pytest.mark.parametrize("seed", [11, 4242, 90210])
@pytest.mark.slow
def test_no_word_coined_by_any_task_is_in_a_large_english_list(seed):
    """Every MEWL task on seeds the other tests do not use: wordfreq's large list has the inflected and
    modern forms that Webster's and GCIDE lack (ICY coins no word: its messages are the paper's symbols)."""
    from mewl_gen.tasks.catalog import sample_item

    english = large_english()
    for task in TASKS:
        for index in range(8):
            words = coined(sample_item(task, seed, "train", index))
            assert words and not words & english, f"{task} seed {seed} episode {index}: {sorted(words & english)}"
