"""Deprived solvers: what each task's solvers may see when one ingredient is
taken away (docs/tasks.md, "Necessary ingredients").

A deprived solver gets everything but the ingredient, plus the rules of the
task; it must do no better than chance. Which deprivations a task has, and
its guesser for each, are declared once in tasks.mewl.solver.SOLVERS; a
guesser is handed the view below, so it cannot read what it is denied even
by mistake. A guess draws at most once from its generator (`rng.integers`):
the audit makes every guess as it reads an episode and its draw afterwards
(`outcomes`, `replayed`), so it keeps no episode.
"""
from __future__ import annotations

import numpy as np

from ..item import Episode

QUERY_ONLY, NO_HAND, NO_LANGUAGE, NO_QUERY = "query_only", "no_hand", "no_language", "no_query"

# Each deprivation's name in the README's chance table. Query-only: the query
# scene and the choices. No-hand: everything but the query's pointing hand.
# No-context-language: context scenes without utterances, query, choices.
# No-query: the context (scenes, utterances, hands) and the choices, no query image.
TITLE: dict[str, str] = {QUERY_ONLY: "query-only", NO_HAND: "no-hand", NO_LANGUAGE: "no-context-language",
                         NO_QUERY: "no-query"}

# Channels a model is not meant to learn from (tasks.mewl.audit's probes). Names only: the panels'
# names and utterances, never their scenes, with the query and the choices. Identity: the episode's
# index, retry and seeds and its scenes' draws (seeds, attempts, camera, lights), choices known only
# by their position.
NAMES_ONLY, IDENTITY = "names_only", "identity"


def view(ep: Episode, deprivation: str, keep_lexicon: bool = False) -> Episode:
    """The episode as a solver deprived of one ingredient sees it.

    The lexicon is always emptied (solvers learn it, or cannot), except for
    the no-hand and no-query views with `keep_lexicon`: the context determines the lexicon
    uniquely (every validator checks that by enumeration), so a learned
    no-hand or no-query baseline may be handed it as a perfect learner of the
    context would have it. Copies skip validation on purpose: a query-only
    episode has no context panels at all, a no-query one no query (None)."""
    lexicon = dict(ep.lexicon) if keep_lexicon and deprivation in (NO_HAND, NO_QUERY) else {}
    if deprivation == QUERY_ONLY:
        return ep.model_copy(update={"lexicon": lexicon, "context_panels": ()})
    if deprivation == NO_HAND:
        return ep.model_copy(update={"lexicon": lexicon, "query": ep.query.model_copy(update={"hand": None})})
    if deprivation == NO_LANGUAGE:
        # Bootstrap's panel names are its utterances: both go.
        silent = tuple(p.model_copy(update={"utterance": "", "name": f"panel {k}"}) for k, p in enumerate(ep.context_panels))
        return ep.model_copy(update={"lexicon": lexicon, "context_panels": silent})
    if deprivation == NO_QUERY:
        return ep.model_copy(update={"lexicon": lexicon, "query": None})
    if deprivation == NAMES_ONLY:
        named = tuple(p.model_copy(update={"scene": None}) for p in ep.context_panels)
        return ep.model_copy(update={"lexicon": lexicon, "context_panels": named})
    if deprivation == IDENTITY:
        def bare(scene):
            return scene.model_copy(update={"objects": (), "hand": None})
        panels = tuple(p.model_copy(update={"name": f"panel {k}", "utterance": "", "scene": bare(p.scene)})
                       for k, p in enumerate(ep.context_panels))
        return ep.model_copy(update={"lexicon": lexicon, "context_panels": panels, "query": bare(ep.query),
                                     "choices": tuple(f"choice {k}" for k in range(len(ep.choices))), "answer": ""})
    raise KeyError(deprivation)


def pick(pool, rng: np.random.Generator) -> str:
    """A uniform pick among the pool: a guess's one draw, where its pool is all it draws among."""
    return pool[rng.integers(len(pool))]


def most_voted_pool(choices, votes) -> list[str]:
    """The choices with the most votes (hypotheses under which each is the answer), ties included."""
    votes = np.asarray(votes, dtype=float)
    return [choices[int(k)] for k in np.flatnonzero(votes == votes.max())]


def most_voted(choices, votes, rng: np.random.Generator) -> str:
    """The choice with the most votes (hypotheses under which it is the
    answer); ties, including no votes at all, broken at random."""
    return pick(most_voted_pool(choices, votes), rng)


class _Draw:
    """The audit's generator as one deprived guess sees it while its episode is read: its one
    `integers(k)` is answered with a preset index and k is kept, so that the draw itself is made later,
    in the order in which the generator has always drawn (every text-only guess, then each deprivation's
    guesses in turn) while no episode is kept meanwhile (tasks.mewl.audit)."""

    def __init__(self, index: int):
        self.index, self.bound = index, None

    def integers(self, bound) -> int:
        if self.bound is not None:
            raise RuntimeError("a deprived guess drew twice; the audit replays one draw per guess")
        if bound <= 0:
            raise ValueError("high <= 0")
        self.bound = int(bound)
        return self.index


def outcomes(guess, seen: Episode, answer: str, pool=None) -> tuple[int, tuple[bool, ...]]:
    """A guess under every draw it could be given: the bound of its draw (0: it draws nothing) and, for
    each index the draw could return, whether the guess is the answer. `pool`, where the guess is
    pick(pool(seen), rng) (Deprived.pool), gives them in one call instead of one guess per index."""
    if pool is not None:
        found = pool(seen)
        if not found:
            raise ValueError("high <= 0")
        return len(found), tuple(c == answer for c in found)
    first = _Draw(0)
    hit = guess(seen, first) == answer
    if first.bound is None:
        return 0, (hit,)
    return first.bound, (hit, *(guess(seen, _Draw(j)) == answer for j in range(1, first.bound)))


def replayed(rng: np.random.Generator, bound: int, hits: tuple[bool, ...]) -> bool:
    """Whether a guess kept by `outcomes` is the answer, its draw made now from `rng`."""
    return hits[rng.integers(bound)] if bound else hits[0]
