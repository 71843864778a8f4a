"""composite: find which attribute type each word position names, then read it."""
from __future__ import annotations

import itertools

from mewl_gen.scenes.universe import ATTRIBUTES, COLORS, MATERIALS, SHAPES, SIZES, TUPLE_ORDER

from ..item import Episode
from .deprived import most_voted

# The answer is one of the three unseen phrases of the syntax, and all three
# are always among the choices; the two others were heard in context.
CHANCE = 1 / 3
SYNTAXES = tuple((a, b) for a in ("shape", "color", "material") for b in ("shape", "color", "material") if a != b)


def _meanings_at(ep: Episode, position: int) -> dict[str, str]:
    """The one attribute type whose value is constant per word and distinct
    across words at this position; each word's value of that type."""
    objects: dict[str, list[tuple]] = {}
    for p in ep.context_panels:
        objects.setdefault(p.utterance.split()[position], []).append(p.scene.objects[0].properties)
    readings = []
    for k, attribute in enumerate(TUPLE_ORDER):
        values = {w: {o[k] for o in objs} for w, objs in objects.items()}
        if all(len(v) == 1 for v in values.values()) and len({next(iter(v)) for v in values.values()}) == len(values):
            readings.append({w: next(iter(v)) for w, v in values.items()})
    assert len(readings) == 1, f"position {position}: {len(readings)} readings"
    return readings[0]


def solve(ep: Episode) -> str:
    first, second = _meanings_at(ep, 0), _meanings_at(ep, 1)
    query = ep.query.objects[0].properties
    hits = [c for c in ep.choices
            if c.split()[0] in first and c.split()[1] in second
            and first[c.split()[0]] in query and second[c.split()[1]] in query]
    assert len(hits) == 1, hits
    return hits[0]


def text_only_guess(ep: Episode, rng) -> str:
    """A syntax-respecting phrase never heard in context."""
    heard = {p.utterance for p in ep.context_panels}
    firsts = {p.utterance.split()[0] for p in ep.context_panels}
    seconds = {p.utterance.split()[1] for p in ep.context_panels}
    new = [c for c in ep.choices if c not in heard and c.split()[0] in firsts and c.split()[1] in seconds]
    pool = new or list(ep.choices)
    return pool[rng.integers(len(pool))]


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    first, second = ep.context_panels[0].utterance.split()
    syntax = tuple(next(a for a, vs in ATTRIBUTES.items() if ep.lexicon[w] in vs) for w in (first, second))
    observed: dict[str, tuple[list, tuple]] = {"syntax": ([syntax], SYNTAXES)}
    query = ep.query.objects[0]
    for attribute, support in (("shape", SHAPES), ("color", COLORS), ("material", MATERIALS)):
        if attribute in syntax:
            named = [v for v in ep.lexicon.values() if v in support]
            observed[f"named {attribute}"] = (named, support)
            observed[f"query {attribute}"] = ([getattr(query, attribute)], support)
        else:
            observed[f"free {attribute}"] = ([getattr(query, attribute)], support)
    observed["query size"] = ([query.size], SIZES)
    return observed


def query_only_guess(ep: Episode, rng) -> str:
    """Nothing ties a word to the query object's values without the context,
    but the rules do: the three unseen phrases (one per first word, one per
    second word) are all offered and the answer is one of them. Hypotheses:
    the transversals of the word grid that lie among the choices, each of
    their phrases the answer."""
    pairs = [tuple(c.split()) for c in ep.choices]
    firsts, seconds = sorted({p[0] for p in pairs}), sorted({p[1] for p in pairs})
    votes = [0] * len(pairs)
    if len(firsts) == len(seconds):
        for order in itertools.permutations(seconds):
            unseen = set(zip(firsts, order))
            if unseen <= set(pairs):
                for k, p in enumerate(pairs):
                    votes[k] += p in unseen
    return most_voted(ep.choices, votes, rng)
