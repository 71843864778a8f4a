"""Pseudo-words built from common English syllables, never English words."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from mewl_gen.scenes.draws import OutOfDraws
from mewl_gen.scenes.universe import ATTRIBUTES, DIRECTIONS, NUMBER_WORDS

from ..item import RESERVED_NAMES

# 175 frequent English syllables (our own list): open and closed syllables
# that combine into pronounceable, mostly non-English words.
SYLLABLES: tuple[str, ...] = tuple(
    """
    a ab ac ad af al am an ar as at ba be bi bo bu bal ban ber bin bor bun
    ca ce ci co cu cal can cen com con cor da de di do du dal den der dis
    dom dun e el em en er es ev fa fe fi fo fu fal fer fin for ful ga ge
    gi go gu ha he hi ho hu hal hen her hin hor i il im in ir is ja je jo
    ju ka ke ki ko ku la le li lo lu ma me mi mo mu mal man mar men min
    mon mor mun na ne ni no nu o ol om on or os pa pe pi po pu pal pen per
    pin por ra re ri ro ru sa se si so su ta te ti to tu tal ten ter tin
    tom tor tun u ul um un ur va ve vi vo val ven ver vin wa we wi wo ya
    ye yo za ze zo
    """.split()
)

GRAMMAR = frozenset({"and", "of", "the", "is", "a", "an", "arrow", "hand", "to", "in", "on", "or", "be", "am"})
# Words that must never be coined: the universe, the utterance grammar and the
# release's own file names (number and pragmatic name a panel by its bare word,
# so "info" would overwrite info.json).
RESERVED: frozenset[str] = frozenset(
    {v for values in ATTRIBUTES.values() for v in values}
    | set(DIRECTIONS) | set(NUMBER_WORDS) | GRAMMAR | set(RESERVED_NAMES)
)
# Coining n words takes about n draws (few candidates are English); this many
# per word is far beyond bad luck.
TRIES_PER_WORD = 200


class CoinageError(OutOfDraws):
    """No pseudo-word could be coined within the bounded number of draws."""


# The English words a coinage could hit: those of the word lists below that split into at most
# MAX_SYLLABLES of our syllables (every coined word does), one per line. Written by
# `python -m mewl_gen.tasks.mewl.sample.words` from the lists; tests/tasks/mewl/test_words.py checks it is theirs. Reading it
# costs milliseconds where loading the lists cost half a second in every process that coins words.
ENGLISH_FILE = Path(__file__).with_name("english_coinable.txt")
MAX_SYLLABLES = 4


def segmentable(word: str, parts: int = MAX_SYLLABLES) -> bool:
    """Whether the word is a concatenation of at most `parts` of SYLLABLES."""
    if not word:
        return True
    return parts > 0 and any(word.startswith(s) and segmentable(word[len(s):], parts - 1) for s in _BY_START.get(word[0], ()))


_BY_START: dict[str, tuple[str, ...]] = {}
for _s in SYLLABLES:
    _BY_START[_s[0]] = (*_BY_START.get(_s[0], ()), _s)


def english_lists() -> frozenset[str]:
    """Every English word we know of, lowercased: Webster's Second and GCIDE (the `english-words`
    package), which lack inflected and modern forms (`dies`, `fees`, `meme`, `disco`), and wordfreq's
    large English list, which has them (its alphabetic forms; the wheel ships its data, nothing is
    downloaded). About 0.5 s and 487,000 words."""
    from english_words import get_english_words_set
    from wordfreq import iter_wordlist

    frequent = {w.lower() for w in iter_wordlist("en", "large") if w.isalpha()}
    return frozenset(get_english_words_set(["web2", "gcide"], lower=True)) | frequent


def coinable_english(words: frozenset[str]) -> list[str]:
    """The words a coinage could hit: those that split into at most MAX_SYLLABLES syllables, sorted."""
    return sorted(w for w in words if segmentable(w))


@cache
def english_words() -> frozenset[str]:
    """The English words a coined word must not be (ENGLISH_FILE), read once per process."""
    return frozenset(ENGLISH_FILE.read_text().split())


def coinable(word: str) -> bool:
    return word not in RESERVED and word not in english_words()


def pseudo_words(rng: np.random.Generator, n: int, syllables: int, exclude=()) -> list[str]:
    """n distinct words of `syllables` syllables, none English, reserved or excluded."""
    if not 1 <= syllables <= MAX_SYLLABLES:
        raise ValueError(f"{syllables} syllables: the English list covers words of 1 to {MAX_SYLLABLES}")
    taken = set(exclude)
    words: list[str] = []
    for _ in range(TRIES_PER_WORD * n):
        word = "".join(SYLLABLES[i] for i in rng.integers(len(SYLLABLES), size=syllables))
        if word not in taken and coinable(word):
            taken.add(word)
            words.append(word)
            if len(words) == n:
                return words
    raise CoinageError(f"coined {len(words)} of {n} words of {syllables} syllables in {TRIES_PER_WORD * n} draws")


if __name__ == "__main__":  # write ENGLISH_FILE from the word lists
    ENGLISH_FILE.write_text("\n".join(coinable_english(english_lists())) + "\n")
