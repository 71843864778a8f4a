"""Names only: what the context panels' names tell a solver that never sees a context image.

A panel's name is its files' stem, "<utterance>" or "<utterance> #<k>"; a model reads it with every
image. The guesser here reads the names (deprived.view(ep, NAMES_ONLY): names, utterances, the query
and the choices) and tries the decoding that once worked: k read as the object's index in the
universe, the meaning of a word is what its decoded objects share, and the answer is the word whose
meaning the query shows. Where that singles out nothing it guesses as the task's text-only or
query-only guesser would, so its floor is the task's chance. Only the tasks whose names can carry a
number have it: every other task's validator requires a panel's name to be its utterance.
"""
from __future__ import annotations

from mewl_gen.scenes.universe import UNIVERSE

from ..item import Episode
from ..text import utterance
from . import basic, relation
from .deprived import most_voted
from .features import suffix

# task -> (the guess where the names single out nothing, the floor: the task's chance).
FALLBACK = {
    "shape": (basic.text_only_guess, basic.CHANCE),
    "color": (basic.text_only_guess, basic.CHANCE),
    "material": (basic.text_only_guess, basic.CHANCE),
    "relation": (relation.query_only_guess, relation.CHANCE),
}


def decoded_meanings(ep: Episode) -> dict[str, set[str]]:
    """Each word's meaning read from its panels' numbers as universe indices: the values all its decoded
    objects share (no entry for a word with a panel whose name has no such number)."""
    objects: dict[str, list] = {}
    undecodable = set()
    for p in ep.context_panels:
        k = suffix(p.name)
        if k is None or k >= len(UNIVERSE):
            undecodable.add(utterance(p.name))
        else:
            objects.setdefault(utterance(p.name), []).append(set(UNIVERSE[k]))
    return {w: set.intersection(*objs) for w, objs in objects.items() if w not in undecodable}


def guess(ep: Episode, rng) -> str:
    """The choices whose decoded meaning the query shows, if some are; else the task's fallback guess."""
    shown = {v for o in ep.query.objects for v in o.properties}
    meanings = decoded_meanings(ep)
    votes = [bool(meanings.get(c, set()) & shown) for c in ep.choices]
    if any(votes):
        return most_voted(ep.choices, votes, rng)
    return FALLBACK[ep.task][0](ep, rng)
