"""object: a word names the object that appears in exactly the panels that utter it."""
from __future__ import annotations

import itertools

from mewl_gen.scenes.universe import COLORS, MATERIALS, SHAPES, SIZES

from ..item import Episode
from .deprived import most_voted_pool, pick

# The answer and the four distractors are five unseen 3-subsets drawn
# exchangeably; word order is random, so the text cannot rank them.
CHANCE = 1 / 5


def _words(utterance: str) -> list[str]:
    return utterance.split(" and ")


def solve(ep: Episode) -> str:
    # Each word's and each object's membership pattern over the six panels.
    heard: dict[str, list[int]] = {}
    seen: dict[tuple, list[int]] = {}
    for k, p in enumerate(ep.context_panels):
        for w in _words(p.utterance):
            heard.setdefault(w, []).append(k)
        for o in p.scene.objects:
            seen.setdefault(o.properties, []).append(k)
    by_pattern = {tuple(ks): o for o, ks in seen.items()}
    assert len(by_pattern) == len(seen), "two objects appear in the same panels"
    meaning = {w: by_pattern[tuple(ks)] for w, ks in heard.items()}
    query = sorted(o.properties for o in ep.query.objects)
    hits = [c for c in ep.choices if sorted(meaning[w] for w in _words(c)) == query]
    assert len(hits) == 1, hits
    return hits[0]


def text_only_guess(ep: Episode, rng) -> str:
    """Favour choices whose words co-occurred most in context (ties at random)."""
    together: dict[frozenset, int] = {}
    for p in ep.context_panels:
        for pair in itertools.combinations(_words(p.utterance), 2):
            together[frozenset(pair)] = together.get(frozenset(pair), 0) + 1
    score = [sum(together.get(frozenset(pair), 0) for pair in itertools.combinations(_words(c), 2)) for c in ep.choices]
    best = [c for c, s in zip(ep.choices, score) if s == max(score)]
    return pick(best, rng)


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    objects = list(ep.lexicon.values())
    return {
        "shape": ([o[0] for o in objects], SHAPES),
        "color": ([o[1] for o in objects], COLORS),
        "material": ([o[2] for o in objects], MATERIALS),
        "size": ([o[3] for o in objects], SIZES),
        "query size": ([o.size for o in ep.query.objects], SIZES),
    }


def query_only_pool(ep: Episode) -> list[str]:
    """Any three words of the choices may name the query's three objects
    (in any order); a hypothesis counts when exactly one choice utters
    exactly those words, and votes for it."""
    said = [frozenset(_words(c)) for c in ep.choices]
    votes = [0] * len(ep.choices)
    for triple in itertools.permutations(sorted(set().union(*said)), 3):
        hits = [k for k, s in enumerate(said) if s == frozenset(triple)]
        if len(hits) == 1:
            votes[hits[0]] += 1
    return most_voted_pool(ep.choices, votes)


def query_only_guess(ep: Episode, rng) -> str:
    return pick(query_only_pool(ep), rng)
