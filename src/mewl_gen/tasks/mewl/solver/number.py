"""number: a word is the count of objects in its panel."""
from __future__ import annotations

import itertools

from mewl_gen.scenes.universe import COLORS, SHAPES

from ..item import Episode
from .deprived import most_voted_pool, pick

# Every choice is a context word, each heard once; the answer is uniform
# among the six words and the left-out word uniform among the other five.
CHANCE = 1 / 5
COUNTS = (1, 2, 3, 4, 5, 6)


def solve(ep: Episode) -> str:
    ranked = sorted(ep.context_panels, key=lambda p: len(p.scene.objects))
    assert [len(p.scene.objects) for p in ranked] == list(COUNTS), "each count once"
    word_for = {n: p.utterance for n, p in zip(COUNTS, ranked)}
    answer = word_for[len(ep.query.objects)]
    assert answer in ep.choices
    return answer


def text_only_guess(ep: Episode, rng) -> str:
    """Bet that panel order leaks the count: the choice heard earliest."""
    order = [p.utterance for p in ep.context_panels]
    return min(ep.choices, key=order.index)


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    objects = [o for p in ep.context_panels for o in p.scene.objects]
    return {
        "query count": ([len(ep.query.objects)], COUNTS),
        "first panel count": ([len(ep.context_panels[0].scene.objects)], COUNTS),
        "left-out count": ([next(n for w, n in ep.lexicon.items() if w not in ep.choices)], COUNTS),
        "shape": ([o.shape for o in objects], SHAPES),
        "color": ([o.color for o in objects], COLORS),
    }


def query_only_pool(ep: Episode) -> list[str]:
    """Any bijection of the six words (the five offered and one left out) to
    1..6 fits without the context; each votes for the word of the query's
    count, unless that is the word left out."""
    n = len(ep.query.objects)
    words = [*ep.choices, None]
    votes = [0] * len(ep.choices)
    for counts in itertools.permutations(COUNTS):
        word = words[counts.index(n)]
        if word is not None:
            votes[ep.choices.index(word)] += 1
    return most_voted_pool(ep.choices, votes)


def query_only_guess(ep: Episode, rng) -> str:
    return pick(query_only_pool(ep), rng)
