"""relation: a word means the one direction true of both its panels' pairs.

Deprived solvers enumerate lexicons: five statements about three objects
allow at most four to be the only true one under some map of the words to
directions, so no solver without the context can do better than 1/4; the
sampler draws choices so that it does no better either (tasks/mewl/sample/relation.py).
"""
from __future__ import annotations

import itertools
from collections import Counter

from mewl_gen.scenes.relations import true_relations
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import DIRECTIONS

from ..item import Episode
from .deprived import pick

# Without the context images, the dead fifth statement is still plain from
# the text and the rules, and the four live ones are equally likely.
CHANCE = 1 / 4
QUERY_ONLY_CHANCE = 1 / 4
NO_QUERY_CHANCE = 1 / 4


def _named(scene: SceneSpec, color: str, shape: str):
    (obj,) = [o for o in scene.objects if o.color == color and o.shape == shape]
    return obj


def _relations(scene: SceneSpec, text: str) -> tuple[str, set[str]]:
    c1, s1, word, c2, s2 = text.split()
    return word, true_relations(scene.camera, _named(scene, c1, s1), _named(scene, c2, s2))


def solve(ep: Episode) -> str:
    meanings: dict[str, set[str]] = {}
    for p in ep.context_panels:
        word, rels = _relations(p.scene, p.utterance)
        meanings[word] = meanings.get(word, set(DIRECTIONS)) & rels
    assert all(len(m) == 1 for m in meanings.values()), meanings
    meaning = {w: m.pop() for w, m in meanings.items()}
    hits = [c for c in ep.choices if meaning[_relations(ep.query, c)[0]] in _relations(ep.query, c)[1]]
    assert len(hits) == 1, hits
    return hits[0]


def _most_often_alone(choices, relations_of, layouts, live: int | None = None) -> list[str]:
    """Over every layout (a function giving a choice's word and true
    directions) in which `live` choices can be the only true one (any number
    if None), and every map of the words to directions, the choices most
    often the only true one (the guess: a uniform pick among them)."""
    words = sorted({c.split()[2] for c in choices})
    alone = Counter()
    for layout in layouts:
        said = [relations_of(layout, c) for c in choices]
        here = Counter()
        for dirs in itertools.permutations(DIRECTIONS, len(words)):
            meaning = dict(zip(words, dirs))
            true = [k for k, (w, rels) in enumerate(said) if meaning[w] in rels]
            if len(true) == 1:
                here[true[0]] += 1
        if live is None or len(here) == live:
            alone.update(here)
    best = max(alone.values(), default=0)
    return [c for k, c in enumerate(choices) if alone[k] == best]


def query_only_pool(ep: Episode) -> list[str]:
    """The query scene and the choices, never the context: every lexicon
    weighted alike."""
    return _most_often_alone(ep.choices, lambda scene, c: _relations(scene, c), [ep.query])


def query_only_guess(ep: Episode, rng) -> str:
    return pick(query_only_pool(ep), rng)


def _rank_layouts(phrases: list[str]):
    """Every order of the phrases along the two axes the rules allow (for
    three objects, the two orders are neither equal nor reversed), as the
    directions each ordered pair stands in."""
    for lr, fb in itertools.product(itertools.permutations(range(len(phrases))), repeat=2):
        if len(phrases) == 3 and fb in (lr, tuple(2 - r for r in lr)):
            continue
        yield {
            (p, q): {"left" if lr[i] > lr[j] else "right", "behind" if fb[i] > fb[j] else "front"}
            for (i, p), (j, q) in itertools.permutations(enumerate(phrases), 2)
        }


def text_only_guess(ep: Episode, rng) -> str:
    """The utterances and choices, no image: every layout of the named
    objects the rules allow (four choices live), and every lexicon, weighted
    alike."""
    split = [c.split() for c in ep.choices]
    phrases = sorted({" ".join(t[:2]) for t in split} | {" ".join(t[3:]) for t in split})

    def relations_of(layout, c):
        t = c.split()
        return t[2], layout[" ".join(t[:2]), " ".join(t[3:])]

    return pick(_most_often_alone(ep.choices, relations_of, list(_rank_layouts(phrases)), live=4), rng)


def _meaning(ep: Episode) -> dict[str, str]:
    meanings: dict[str, set[str]] = {}
    for p in ep.context_panels:
        word, rels = _relations(p.scene, p.utterance)
        meanings[word] = meanings.get(word, set(DIRECTIONS)) & rels
    return {w: next(iter(m)) for w, m in meanings.items() if len(m) == 1}


def no_query_pool(ep: Episode) -> list[str]:
    """The context (so the words' meanings) and the choices, never the query
    image: every layout of the named objects the rules allow, weighted alike."""
    meaning = _meaning(ep)
    split = [c.split() for c in ep.choices]
    phrases = sorted({" ".join(t[:2]) for t in split} | {" ".join(t[3:]) for t in split})
    said = [(" ".join(t[:2]), t[2], " ".join(t[3:])) for t in split]
    alone = Counter()
    for layout in _rank_layouts(phrases):
        # The rules: four choices are live under this layout, whatever the lexicon.
        live = {_alone(said, layout, dict(zip(meaning, dirs))) for dirs in itertools.permutations(DIRECTIONS, len(meaning))}
        if len(live - {None}) != 4:
            continue
        k = _alone(said, layout, meaning)
        if k is not None:
            alone[k] += 1
    best = max(alone.values(), default=0)
    return [c for k, c in enumerate(ep.choices) if alone[k] == best]


def no_query_guess(ep: Episode, rng) -> str:
    return pick(no_query_pool(ep), rng)


def _alone(said, layout, meaning) -> int | None:
    true = [k for k, (a, w, b) in enumerate(said) if meaning[w] in layout[a, b]]
    return true[0] if len(true) == 1 else None


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    solved = solve(ep)
    answer_word = solved.split()[2]
    meanings: dict[str, set[str]] = {}
    for p in ep.context_panels:
        word, rels = _relations(p.scene, p.utterance)
        meanings[word] = meanings.get(word, set(DIRECTIONS)) & rels
    used = [next(iter(m)) for m in meanings.values()]
    return {
        "relation": (used, DIRECTIONS),
        "unused relation": ([d for d in DIRECTIONS if d not in used], DIRECTIONS),
        "query relation": ([next(iter(meanings[answer_word]))], DIRECTIONS),
    }
