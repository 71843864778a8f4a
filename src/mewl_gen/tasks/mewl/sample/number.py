"""number: words for the counts one to six (docs/tasks.md).

Six words name 1..6; context panel k shows k distinct objects, each count
once, in shuffled order. The query shows a count with new objects; the choices
are five of the six words, so which word is left out says nothing.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ObjectTuple

from ...item import Panel
from ...sampling import choices_with_answer, distinct_objects, enumerate_mappings, shuffled
from ...seeds import draw_seed
from ...validation import object_multiset, require
from ..item import Draft, Episode, check_common
from .words import pseudo_words

COUNTS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


def sample(rng: np.random.Generator) -> Draft:
    words = pseudo_words(rng, len(COUNTS), syllables=2)
    lexicon = dict(zip(words, COUNTS))

    # Context: one panel per count, shuffled.
    shown: dict[int, list[ObjectTuple]] = {}
    panels = []
    for word, count in shuffled(rng, list(lexicon.items())):
        shown[count] = distinct_objects(rng, count)
        panels.append(Panel(name=word, utterance=word, scene=place_scene(draw_seed(rng), shown[count])))

    # Query: a uniform count, objects that are not that panel's.
    answer = words[rng.integers(len(words))]
    count = lexicon[answer]
    objects = redraw(lambda: distinct_objects(rng, count), lambda objs: sorted(objs) != sorted(shown[count]), "query objects")
    query = place_scene(draw_seed(rng), objects)

    # Choices: all words but one non-answer word.
    others = [w for w in words if w != answer]
    left_out = others[rng.integers(len(others))]
    choices, answer = choices_with_answer(rng, answer, [w for w in others if w != left_out])
    return Draft(lexicon, tuple(panels), query, choices, answer)


def count(scene: SceneSpec) -> int:
    return len(scene.objects)


def mappings_consistent_with(ep: Episode, limit: int = 2) -> list[dict[str, int]]:
    """Word->count bijections under which every panel's word is its count."""
    panels = [(p.utterance, count(p.scene)) for p in ep.context_panels]
    words = sorted({w for w, _ in panels})
    domains = {w: sorted({n for u, n in panels if u == w}) for w in words}

    def consistent(mapping: dict[str, int]) -> bool:
        return all(mapping[u] == n for u, n in panels if u in mapping)

    return enumerate_mappings(words, domains, consistent, limit=limit)


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(sorted(lexicon.values()) == list(COUNTS), f"the lexicon must name 1..6, not {sorted(lexicon.values())}")
    for p in ep.context_panels:
        require(p.scene.hand is None and len(set(object_multiset(p.scene))) == count(p.scene),
                f"panel {p.name!r} must show distinct objects")
        require(p.name == p.utterance and p.utterance in lexicon, f"panel {p.name!r} must utter one known word")
    require(sorted(count(p.scene) for p in ep.context_panels) == list(COUNTS), "each count once in context")
    # Identifiability: one bijection fits, the lexicon's.
    found = mappings_consistent_with(ep)
    require(found == [lexicon], f"{len(found)} word-count mappings fit the context")
    # The query: a count of distinct objects; exactly one choice names it.
    n = count(ep.query)
    require(n in COUNTS and len(set(object_multiset(ep.query))) == n and ep.query.hand is None,
            "the query shows 1..6 distinct objects")
    require(set(ep.choices) <= lexicon.keys(), "choices must be lexicon words")
    true = [c for c in ep.choices if lexicon[c] == n]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
