"""Pseudo-words built from common English syllables, never English words."""
from __future__ import annotations

import json
import re
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


# The English words a coinage could hit: those of the word lists below, and of their inflected forms,
# that split into at most MAX_SYLLABLES of our syllables (every coined word does), one per line. Written by
# `python -m mewl_gen.tasks.mewl.sample.words` from the lists; tests/tasks/mewl/test_words.py checks it is theirs. Reading it
# costs milliseconds where loading the lists cost half a second in every process that coins words.
ENGLISH_FILE = Path(__file__).with_name("english_coinable.txt")
MAX_SYLLABLES = 4


def segmentable(word: str, parts: int = MAX_SYLLABLES) -> bool:
    """Whether the word is a concatenation of at most `parts` of SYLLABLES: one regular expression whose
    backtracking tries every split (the word lists hold four million forms; this takes seconds for them)."""
    return len(word) <= parts * _LONGEST and _spelled(parts).fullmatch(word) is not None


def _trie(words: list[str]) -> str:
    """A regular expression for exactly `words`, branching on their first letters (re tries the
    alternatives of a flat list one by one; a trie tries one letter)."""
    heads: dict[str, list[str]] = {}
    for w in words:
        heads.setdefault(w[0], []).append(w[1:])
    branches = []
    for head, tails in sorted(heads.items()):
        rest = [t for t in tails if t]
        if not rest:
            branches.append(re.escape(head))
        else:
            branches.append(f"{re.escape(head)}(?:{_trie(rest)}){'?' if len(rest) < len(tails) else ''}")
    return "|".join(branches)


@cache
def _spelled(parts: int) -> re.Pattern[str]:
    return re.compile(f"(?:{_trie(list(SYLLABLES))}){{0,{parts}}}")


def _begun(parts: int) -> re.Pattern[str]:
    """What every beginning of a word `_spelled(parts)` spells matches whole: at most `parts` syllables,
    then the beginning of one more."""
    starts = sorted({s[:i] for s in SYLLABLES for i in range(1, len(s))})
    partial = f"(?:{_trie(starts)})?" if starts else ""
    return re.compile(f"{_spelled(parts).pattern}{partial}")


_LONGEST = max(map(len, SYLLABLES))


def english_lists() -> frozenset[str]:
    """Every English word we know of, lowercased: Webster's Second and GCIDE (the `english-words`
    package), which lack inflected and modern forms (`dies`, `fees`, `meme`, `disco`), and wordfreq's
    large English list, which has them (its alphabetic forms; the wheel ships its data, nothing is
    downloaded). About 0.5 s and 487,000 words."""
    from english_words import get_english_words_set
    from wordfreq import iter_wordlist

    frequent = {w.lower() for w in iter_wordlist("en", "large") if w.isalpha()}
    return frozenset(get_english_words_set(["web2", "gcide"], lower=True)) | frequent


# SCOWL, the lists Debian's wamerican/wbritish/wcanadian packages are cut from, whole: every spelling
# (American, British, Canadian, Australian and their variants) at every size up to 95, the largest. The
# -insane packages (size 95) lack the Australian spellings (`afto`), which only Debian's `scowl` package ships.
# Read when SYSTEM_FILE is written; nothing reads them at run time.
SCOWL = Path("/usr/share/dict/scowl")
SCOWL_SPELLINGS = ("english", "american", "british", "british_z", "canadian", "australian",
                   "variant_1", "variant_2", "variant_3")
SYSTEM_FILE = Path(__file__).with_name("english_system_coinable.txt")
# The widest English lists on the npm registry (both the Letterpress list; word-list drops its one-letter and
# vulgar words), pinned by package-lock.json and installed by `make setup` (npm ci); read when NPM_FILE is written.
NODE_MODULES = Path(__file__).resolve().parents[5] / "node_modules"
NPM_LISTS = ("an-array-of-english-words/index.json", "word-list/words.txt")
NPM_FILE = Path(__file__).with_name("english_npm_coinable.txt")


def _alphabetic(words) -> frozenset[str]:
    """The alphabetic words, lowercased (possessives and accented words dropped: no coinage has an
    apostrophe or an accent)."""
    return frozenset(w.lower() for w in words if w.isascii() and w.isalpha())


def _require(paths, install: str) -> None:
    """A missing list is an error: the pinned file must be written from all of them."""
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"no word list at {', '.join(missing)} ({install})")


def system_lists(folder: Path = SCOWL) -> frozenset[str]:
    """Every alphabetic word of every SCOWL list in `folder` (one word a line, UTF-8 as Debian ships it)."""
    _require([folder / f"{spelling}-words.95" for spelling in SCOWL_SPELLINGS], "apt-get install scowl")
    return _alphabetic(w for p in sorted(folder.iterdir()) for w in p.read_text(encoding="utf-8").splitlines())


def npm_lists(folder: Path = NODE_MODULES) -> frozenset[str]:
    """Every alphabetic word of the npm registry's lists (a JSON array; one word a line)."""
    array, lines = (folder / name for name in NPM_LISTS)
    _require([array, lines], "make setup installs them with npm ci from package-lock.json")
    return _alphabetic(json.loads(array.read_text(encoding="utf-8"))) | _alphabetic(
        lines.read_text(encoding="utf-8").splitlines())


_VOWELS = frozenset("aeiou")
_LATIN = (("us", "i"), ("um", "a"), ("on", "a"), ("is", "es"), ("a", "ae"), ("o", "i"), ("ex", "ices"), ("ix", "ices"))


def inflections(word: str) -> set[str]:
    """The word and the forms English makes of it by a regular ending: plurals and third persons
    (-s, -es, -ies, -ves, and the Latin and Italian ones: torso, torsi), comparatives and superlatives
    (-er, -est, -r, -st, -ier, -iest: rife, rifer) and verb forms (-ed, -d, -ing, -ied, a doubled
    last consonant). Over-generating is safe: a form that is no word leaves one pseudo-word fewer."""
    forms = {word, word + "s", word + "es", word + "er", word + "est", word + "ed", word + "ing"}
    if word.endswith("e"):
        forms |= {word + "r", word + "st", word + "d", word[:-1] + "ing"}
    if len(word) > 1 and word.endswith("y") and word[-2] not in _VOWELS:
        forms |= {word[:-1] + e for e in ("ies", "ier", "iest", "ied")}
    if word.endswith(("f", "fe")):
        forms |= {word[:word.rindex("f")] + "ves"}
    if len(word) > 2 and word[-1] not in _VOWELS and word[-2] in _VOWELS and word[-3] not in _VOWELS:
        forms |= {word + word[-1] + e for e in ("er", "est", "ed", "ing")}
    forms |= {word[:-len(old)] + new for old, new in _LATIN if word.endswith(old)}
    return forms


def inflected(words: frozenset[str]) -> frozenset[str]:
    """The words and every regular form of each (inflections)."""
    return frozenset(form for w in words for form in inflections(w))


def coinable_english(words: frozenset[str]) -> list[str]:
    """The words a coinage could hit: those that split into at most MAX_SYLLABLES syllables, sorted. One
    scan of the words a line each, every line that segmentable's expression spells whole (a call of
    segmentable per word costs twice as long over the lists' four million forms)."""
    lines = re.compile(f"^{_spelled(MAX_SYLLABLES).pattern}$", re.M)
    return sorted(lines.findall("\n".join(words)))


def coinable_inflected(words: frozenset[str]) -> list[str]:
    """coinable_english(inflected(words)), inflecting only the words whose forms could split into syllables:
    every form of a word begins with the word less its last two letters (inflections), and a form that
    splits into at most MAX_SYLLABLES syllables begins with what `_begun` matches (a fifth of the time
    over the lists' words)."""
    begun = _begun(MAX_SYLLABLES)
    return coinable_english(inflected(frozenset(w for w in words if begun.fullmatch(w[:-2]))))


@cache
def english_words() -> frozenset[str]:
    """The English words a coined word must not be (ENGLISH_FILE, SYSTEM_FILE and NPM_FILE), read once per process."""
    return frozenset(w for f in (ENGLISH_FILE, SYSTEM_FILE, NPM_FILE) for w in f.read_text().split())


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


if __name__ == "__main__":  # write ENGLISH_FILE, SYSTEM_FILE and NPM_FILE from the word lists and their inflections
    try:
        written = {ENGLISH_FILE: english_lists(), SYSTEM_FILE: system_lists(), NPM_FILE: npm_lists()}
    except FileNotFoundError as missing:
        raise SystemExit(f"words: {missing}") from None
    for file, words in written.items():
        file.write_text("\n".join(coinable_inflected(words)) + "\n")
