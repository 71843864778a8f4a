"""bootstrap: pin repeated words by the object their panels share, then read
a once-said word off its panel's relation."""
from __future__ import annotations

import itertools
from collections import Counter

from mewl_gen.scenes.relations import offsets
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import DIRECTIONS

from ..item import Episode
from .deprived import pick

# The choices name five different pairs, none said in context; from the text
# alone any of them may be the query's.
CHANCE = 1 / 5
QUERY_ONLY_CHANCE = 1 / 5
NO_LANGUAGE_CHANCE = 1 / 5


def _is(scene: SceneSpec, x, rel: str, y) -> bool:
    objs = {o.properties: o for o in scene.objects}
    return x in objs and y in objs and offsets(scene.camera, objs[x], objs[y])[rel] > 0


def _meanings(ep: Episode) -> dict[str, tuple]:
    panels = [(p.utterance.split(), p.scene) for p in ep.context_panels]
    candidates: dict[str, set] = {}
    for (wa, _, wb), scene in panels:
        shown = {o.properties for o in scene.objects}
        for w in (wa, wb):
            candidates[w] = candidates.get(w, shown) & shown
    while any(len(c) > 1 for c in candidates.values()):
        before = sum(map(len, candidates.values()))
        pinned = {next(iter(c)) for c in candidates.values() if len(c) == 1}
        for w, c in candidates.items():
            if len(c) > 1:
                c -= pinned
        for (wa, rel, wb), scene in panels:
            if len(candidates[wa]) == 1:
                (x,) = candidates[wa]
                candidates[wb] = {y for y in candidates[wb] if _is(scene, x, rel, y)}
            if len(candidates[wb]) == 1:
                (y,) = candidates[wb]
                candidates[wa] = {x for x in candidates[wa] if _is(scene, x, rel, y)}
        assert sum(map(len, candidates.values())) < before, "stuck"
    return {w: next(iter(c)) for w, c in candidates.items()}


def solve(ep: Episode) -> str:
    meaning = _meanings(ep)
    hits = [c for c in ep.choices if _is(ep.query, meaning[c.split()[0]], c.split()[1], meaning[c.split()[2]])]
    assert len(hits) == 1, hits
    return hits[0]


def text_only_guess(ep: Episode, rng) -> str:
    """The query's pair is never said in context; any other choice may be it."""
    said = {frozenset(p.utterance.split()[::2]) for p in ep.context_panels}
    pool = [c for c in ep.choices if frozenset(c.split()[::2]) not in said] or list(ep.choices)
    return pick(pool, rng)


def _most_often_alone(ep: Episode, object_pairs) -> list[str]:
    """Hypotheses: two words of the choices name two of the query's objects
    (an ordered pair from `object_pairs`), every other word an object not
    shown. Over all of them alike, the choices most often the only true one
    (the guess: a uniform pick among them)."""
    objs = ep.query.objects
    said = [c.split() for c in ep.choices]
    words = sorted({t[0] for t in said} | {t[2] for t in said})
    alone = Counter()
    for x, y in itertools.permutations(words, 2):
        for i, j in object_pairs:
            where = {x: objs[i], y: objs[j]}
            true = [k for k, (wa, rel, wb) in enumerate(said)
                    if wa in where and wb in where and offsets(ep.query.camera, where[wa], where[wb])[rel] > 0]
            if len(true) == 1:
                alone[true[0]] += 1
    best = max(alone.values(), default=0)
    return [c for k, c in enumerate(ep.choices) if alone[k] == best]


def query_only_pool(ep: Episode) -> list[str]:
    """The query scene and the choices, never the context: any two of the
    query's objects may be the named ones."""
    return _most_often_alone(ep, list(itertools.permutations(range(len(ep.query.objects)), 2)))


def query_only_guess(ep: Episode, rng) -> str:
    return pick(query_only_pool(ep), rng)


def no_language_pool(ep: Episode) -> list[str]:
    """The context scenes without their utterances (or panel names), the
    query and the choices: the query's objects seen in context are the named
    pair, but which words name them is open."""
    seen = {o.properties for p in ep.context_panels for o in p.scene.objects}
    named = [i for i, o in enumerate(ep.query.objects) if o.properties in seen]
    return _most_often_alone(ep, list(itertools.permutations(named, 2)))


def no_language_guess(ep: Episode, rng) -> str:
    return pick(no_language_pool(ep), rng)


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    return {
        "context relation": ([p.utterance.split()[1] for p in ep.context_panels], DIRECTIONS),
        "query relation": ([solve(ep).split()[1]], DIRECTIONS),
        "query word order": ([solve(ep).split()[0] < solve(ep).split()[2]], (False, True)),
    }
