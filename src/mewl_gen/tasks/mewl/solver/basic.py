"""shape/color/material: a word means the one value all its objects share."""
from __future__ import annotations

import itertools
import math

from mewl_gen.scenes.universe import ATTRIBUTES, COLORS, MATERIALS, SHAPES

from ..item import Episode
from .deprived import most_voted

CHANCE = 1 / 3  # the answer is one of the three context words; fresh words never are


def solve(ep: Episode) -> str:
    objects_by_word: dict[str, list[tuple]] = {}
    for p in ep.context_panels:
        objects_by_word.setdefault(p.utterance, []).extend(o.properties for o in p.scene.objects)
    meaning = {}
    for word, objs in objects_by_word.items():
        common = [v for v in objs[0] if all(v in o for o in objs)]
        assert len(common) == 1, f"{word}: ambiguous {common}"
        meaning[word] = common[0]
    query = ep.query.objects[0].properties
    hits = [c for c in ep.choices if meaning.get(c) in query]
    assert len(hits) == 1, hits
    return hits[0]


def text_only_guess(ep: Episode, rng) -> str:
    heard = {p.utterance for p in ep.context_panels}
    known = [c for c in ep.choices if c in heard]
    return known[rng.integers(len(known))]



def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    support = {"shape": SHAPES, "color": COLORS, "material": MATERIALS}[ep.task]
    return {
        "value": (list(ep.lexicon.values()), support),
        "query value": ([ep.lexicon[ep.answer]], support),
    }


# Without the context the two fresh words look like the three taught ones.
QUERY_ONLY_CHANCE = 1 / 5


def query_only_guess(ep: Episode, rng) -> str:
    """Any three choices may be the taught words; the answer is the one bound
    to the query's value. Hypotheses: the answer, the two other taught words,
    and the values of those two (any two other values of the attribute)."""
    query_value = getattr(ep.query.objects[0], ep.task)
    others = [v for v in ATTRIBUTES[ep.task] if v != query_value]
    votes = [0] * len(ep.choices)
    for k in range(len(ep.choices)):
        rest = [j for j in range(len(ep.choices)) if j != k]
        for _taught in itertools.combinations(rest, 2):
            votes[k] += math.perm(len(others), 2)
    return most_voted(ep.choices, votes, rng)
