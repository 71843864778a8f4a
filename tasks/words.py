"""Pseudo-words built from common English syllables."""
from __future__ import annotations

import numpy as np

from scenes.spec import RESERVED_NAMES
from scenes.universe import ATTRIBUTES, DIRECTIONS, NUMBER_WORDS

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
# Words that must never be coined: the universe, the utterance grammar, and the
# release's own file names (a panel named by its word, "info", would overwrite info.json).
RESERVED: frozenset[str] = frozenset(
    {v for values in ATTRIBUTES.values() for v in values} | set(DIRECTIONS) | set(NUMBER_WORDS) | GRAMMAR
    | set(RESERVED_NAMES)
)
MAX_TRIES = 1000


def pseudo_words(rng: np.random.Generator, n: int, syllables: int, exclude=()) -> list[str]:
    """n distinct words of `syllables` syllables, none reserved or excluded."""
    taken = set(exclude)
    words: list[str] = []
    for _ in range(MAX_TRIES):
        word = "".join(SYLLABLES[i] for i in rng.integers(len(SYLLABLES), size=syllables))
        if word not in RESERVED and word not in taken:
            taken.add(word)
            words.append(word)
            if len(words) == n:
                return words
    raise RuntimeError(f"could not coin {n} distinct words in {MAX_TRIES} tries")
