"""shape, color, material: naming one attribute's values (docs/tasks.md).

Three values of the attribute get three words; each value is shown in two
panels of one object each, and the two objects share that value and nothing
else, so a single meaning survives for every word.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, ObjectTuple, object_tuple

from ...item import Panel
from ...sampling import choices_with_answer, random_values, shuffled
from ...seeds import draw_seed
from ...validation import require
from ..item import Draft, Episode, check_common, numbered
from .words import pseudo_words

VALUES_PER_EPISODE = 3


def _contrasting_pair(rng: np.random.Generator, attribute: str, value: str) -> list[ObjectTuple]:
    """Two objects with `value` that differ in every other attribute."""
    pair: list[dict[str, str]] = [{attribute: value}, {attribute: value}]
    for other in TUPLE_ORDER:
        if other != attribute:
            a, b = rng.choice(len(ATTRIBUTES[other]), size=2, replace=False)
            pair[0][other], pair[1][other] = ATTRIBUTES[other][a], ATTRIBUTES[other][b]
    return [object_tuple(p) for p in pair]


def _random_object(rng: np.random.Generator, attribute: str, value: str) -> ObjectTuple:
    values = random_values(rng)
    values[attribute] = value
    return object_tuple(values)


def _others(obj: ObjectTuple, attribute: str) -> tuple[str, ...]:
    """The object less `attribute`: what a word's objects show besides its value."""
    return tuple(v for a, v in zip(TUPLE_ORDER, obj) if a != attribute)


def sample(rng: np.random.Generator, attribute: str) -> Draft:
    # Choose the concepts and bind words.
    pick = rng.choice(len(ATTRIBUTES[attribute]), size=VALUES_PER_EPISODE, replace=False)
    values = [ATTRIBUTES[attribute][i] for i in sorted(pick)]
    words = pseudo_words(rng, VALUES_PER_EPISODE, syllables=2)
    lexicon = dict(zip(words, values))

    # Context: each value in exactly two panels, by a contrasting pair, in a uniformly random order
    # that nothing shown depends on; a panel is named by its word and its position (numbered()).
    shown = [(w, obj) for w, v in lexicon.items() for obj in _contrasting_pair(rng, attribute, v)]
    panels = tuple(
        Panel(name=numbered(w, k), utterance=w, scene=place_scene(draw_seed(rng), [obj]))
        for k, (w, obj) in enumerate(shuffled(rng, shown))
    )

    # Query: one object with one of the values, its other attributes matching no context object's. Only
    # the answer's objects could be copies; redrawing against theirs alone would tell a solver blind to
    # `attribute` that a word whose object matches the query elsewhere is not the answer.
    answer = words[rng.integers(VALUES_PER_EPISODE)]
    seen = {_others(obj, attribute) for _, obj in shown}
    query_obj = redraw(lambda: _random_object(rng, attribute, lexicon[answer]),
                       lambda o: _others(o, attribute) not in seen, "query object")
    query = place_scene(draw_seed(rng), [query_obj])

    fresh = pseudo_words(rng, 2, syllables=2, exclude=words)
    choices, answer = choices_with_answer(rng, answer, [w for w in words if w != answer] + fresh)
    return Draft(lexicon, panels, query, choices, answer)


def meanings_consistent_with(ep: Episode) -> dict[str, set[str]]:
    """For each uttered word, every attribute value (of any attribute) that all
    objects shown with it share: the meanings the context leaves open."""
    shared: dict[str, set[str]] = {}
    for p in ep.context_panels:
        values = set(p.scene.objects[0].properties)
        shared[p.utterance] = shared.get(p.utterance, values) & values
    return shared


def validate(ep: Episode, attribute: str) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == 3 and len(set(lexicon.values())) == 3, "three words for three values")
    require(all(v in ATTRIBUTES[attribute] for v in lexicon.values()), f"lexicon is not about {attribute}")
    for k, p in enumerate(ep.context_panels):
        require(len(p.scene.objects) == 1 and p.scene.hand is None, f"panel {p.name!r} must show one object")
        require(p.utterance in lexicon, f"panel {p.name!r} utters an unknown word")
        require(p.name == numbered(p.utterance, k), f"panel name {p.name!r} is not its word and position {k}")
    counts = [p.utterance for p in ep.context_panels]
    require(all(counts.count(w) == 2 for w in lexicon), "each value must appear in exactly two panels")
    # Identifiability: the shared values of each word's objects are exactly its own.
    for word, values in meanings_consistent_with(ep).items():
        require(values == {lexicon[word]}, f"{word!r} could mean any of {sorted(values)}")
    # The query: one new object; exactly one choice names one of its values.
    require(len(ep.query.objects) == 1, "the query shows one object")
    query = ep.query.objects[0].properties
    # Stronger than "no copy": no context object matches the query outside `attribute` (sample's query).
    require(all(_others(query, attribute) != _others(p.scene.objects[0].properties, attribute)
                for p in ep.context_panels), "query matches a context object on every other attribute")
    true = [c for c in ep.choices if c in lexicon and lexicon[c] in query]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
    require(not set(ep.choices) - set(lexicon) & {p.utterance for p in ep.context_panels}, "fresh word in context")
