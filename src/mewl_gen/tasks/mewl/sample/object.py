"""object: cross-situational learning of words for whole objects (docs/tasks.md).

Six universe objects get six words. Each panel shows three of them and utters
their words, joined by "and" in random order, so no panel alone says which
word is which object; the six panels are chosen so that no two objects appear
in exactly the same panels, which leaves a single word-to-object bijection.
"""
from __future__ import annotations

import itertools

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import UNIVERSE, ObjectTuple

from ...item import Panel
from ...sampling import choices_with_answer, distinct_objects, enumerate_mappings, shuffled
from ...seeds import draw_seed
from ...validation import require
from ..item import Draft, Episode, check_common
from .words import pseudo_words

N_OBJECTS = 6
PER_PANEL = 3
SUBSETS: tuple[tuple[int, ...], ...] = tuple(itertools.combinations(range(N_OBJECTS), PER_PANEL))
JOIN = " and "


def identifying(subsets) -> bool:
    """Every object is shown, and no two objects are shown in the same panels."""
    membership = [tuple(i in s for s in subsets) for i in range(N_OBJECTS)]
    return all(any(m) for m in membership) and len(set(membership)) == N_OBJECTS


def utterance(rng: np.random.Generator, words) -> str:
    return JOIN.join(shuffled(rng, list(words)))


def sample(rng: np.random.Generator) -> Draft:
    # Six distinct objects, six words.
    objects = distinct_objects(rng, N_OBJECTS)
    words = pseudo_words(rng, N_OBJECTS, syllables=3)
    lexicon = dict(zip(words, objects))

    # Context: six distinct 3-subsets that pin down every word.
    context = redraw(lambda: [SUBSETS[i] for i in rng.choice(len(SUBSETS), size=6, replace=False)],
                     identifying, "identifying context")
    panels = []
    for subset in context:
        said = utterance(rng, [words[i] for i in subset])
        scene = place_scene(draw_seed(rng), shuffled(rng, [objects[i] for i in subset]))
        panels.append(Panel(name=said, utterance=said, scene=scene))

    # Query and distractors: five unseen subsets, exchangeable, so the text
    # alone cannot tell the answer from a distractor.
    unseen = [s for s in SUBSETS if s not in context]
    query_subset, *others = [unseen[i] for i in rng.choice(len(unseen), size=5, replace=False)]
    query = place_scene(draw_seed(rng), shuffled(rng, [objects[i] for i in query_subset]))
    answer = utterance(rng, [words[i] for i in query_subset])
    distractors = [utterance(rng, [words[i] for i in s]) for s in others]
    choices, answer = choices_with_answer(rng, answer, distractors)
    return Draft(lexicon, tuple(panels), query, choices, answer)


def uttered(text: str) -> frozenset[str]:
    return frozenset(text.split(JOIN))


def shown(scene: SceneSpec) -> frozenset[ObjectTuple]:
    return frozenset(o.properties for o in scene.objects)


def mappings_consistent_with(ep: Episode, limit: int = 2) -> list[dict]:
    """Word->object bijections under which every panel's words name exactly
    its objects. A word's domain: objects shown in all its panels and in none
    of the others."""
    panels = [(uttered(p.utterance), shown(p.scene)) for p in ep.context_panels]
    words = sorted(set().union(*(w for w, _ in panels)))
    objects = set().union(*(o for _, o in panels))
    domains = {
        w: sorted(o for o in objects if all((w in ws) == (o in os) for ws, os in panels))
        for w in words
    }

    def consistent(mapping: dict) -> bool:
        return all(mapping[w] in os for ws, os in panels for w in ws if w in mapping)

    return enumerate_mappings(words, domains, consistent, limit=limit)


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = {w: tuple(o) for w, o in ep.lexicon.items()}
    require(len(lexicon) == N_OBJECTS, "six words")
    require(len(set(lexicon.values())) == N_OBJECTS and set(lexicon.values()) <= set(UNIVERSE),
            "six distinct universe objects")
    named = {o: w for w, o in lexicon.items()}
    context = []
    for p in ep.context_panels:
        words, objects = uttered(p.utterance), shown(p.scene)
        require(p.scene.hand is None and len(p.scene.objects) == PER_PANEL == len(objects),
                f"panel {p.name!r} must show three distinct objects")
        require(len(p.utterance.split(JOIN)) == PER_PANEL and words <= lexicon.keys(),
                f"panel {p.name!r} must utter three known words")
        require(p.name == p.utterance, f"panel name {p.name!r} is not its utterance")
        require({lexicon[w] for w in words} == objects, f"panel {p.name!r} utters other objects than it shows")
        context.append(words)
    require(len(set(context)) == 6, "context subsets repeat")
    require(set().union(*context) == lexicon.keys(), "a word never appears in context")
    # Identifiability: exactly one bijection fits the panels, the lexicon's.
    found = mappings_consistent_with(ep)
    require(found == [lexicon], f"{len(found)} word-object bijections fit the context")
    # The query: an unseen subset; exactly one choice names it; no choice was seen.
    query = shown(ep.query)
    require(len(ep.query.objects) == PER_PANEL == len(query) and query <= named.keys(),
            "the query shows three distinct lexicon objects")
    subsets = [uttered(c) for c in ep.choices]
    require(all(len(c.split(JOIN)) == PER_PANEL and s <= lexicon.keys() for c, s in zip(ep.choices, subsets)),
            "every choice utters three known words")
    require(len(set(subsets)) == 5 and not set(subsets) & set(context), "choices must be five distinct unseen subsets")
    true = [c for c, s in zip(ep.choices, subsets) if {lexicon[w] for w in s} == query]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
