"""bootstrap: pin repeated words by the object their panels share, then read
a once-said word off its panel's relation."""
from __future__ import annotations

from collections import Counter

from scenes.relations import offsets
from scenes.spec import Episode, SceneSpec
from scenes.universe import DIRECTIONS, OPPOSITE

# The answer's two words head at least three choices; normalised to
# "first word rel second word", one relation there is said twice (never true)
# and the other two are opposites, one of them true: 1/2 from text alone.
CHANCE = 1 / 2


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
    """The pair of words said most often among the choices is the query's;
    normalise its statements to one word order; a relation said twice cannot
    be the one true statement, nor one whose opposite is absent."""
    pairs = Counter(frozenset((c.split()[0], c.split()[2])) for c in ep.choices)
    pair = pairs.most_common(1)[0][0]
    first = sorted(pair)[0]
    group = [c for c in ep.choices if frozenset((c.split()[0], c.split()[2])) == pair]
    norm = {c: c.split()[1] if c.split()[0] == first else OPPOSITE[c.split()[1]] for c in group}
    counts = Counter(norm.values())
    pool = [c for c in group if counts[norm[c]] == 1 and counts[OPPOSITE[norm[c]]] == 1] or group
    return pool[rng.integers(len(pool))]


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    return {
        "context relation": ([p.utterance.split()[1] for p in ep.context_panels], DIRECTIONS),
        "query relation": ([solve(ep).split()[1]], DIRECTIONS),
        "query word order": ([solve(ep).split()[0] < solve(ep).split()[2]], (False, True)),
    }
