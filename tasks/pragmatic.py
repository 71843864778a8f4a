"""pragmatic: a pointing hand singles out the attribute a word names (TASKS.md).

Six of the sixteen attribute values get words. A panel teaches one word with
three objects: a base object, the target (the base with the word's attribute
set to the word's value) and a background object (the base with one other
attribute changed). The word's value is then the one thing that tells the
pointed-at target from the rest; the query repeats the construction for one
of the six words.
"""
from __future__ import annotations

import numpy as np

from scenes.placement import place_scene
from scenes.spec import Episode, Panel, SceneSpec
from scenes.universe import ATTRIBUTES, TUPLE_ORDER, ObjectTuple, attribute_of

from .episode import Draft, choices_with_answer, enumerate_mappings, redraw, shuffled
from .seeds import draw_seed
from .validation import check_common, object_multiset, require
from .words import pseudo_words

WORDS = 6
ALL_VALUES: tuple[str, ...] = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])


def _other(rng: np.random.Generator, attribute: str, value: str) -> str:
    choices = [v for v in ATTRIBUTES[attribute] if v != value]
    return choices[rng.integers(len(choices))]


def _with(obj: ObjectTuple, attribute: str, value: str) -> ObjectTuple:
    out = list(obj)
    out[TUPLE_ORDER.index(attribute)] = value
    return tuple(out)  # type: ignore[return-value]


def teaching_scene(rng: np.random.Generator, value: str) -> SceneSpec:
    """Base, target (base with `value`) and background (base with one other
    attribute changed), in random order, the hand pointing at the target."""
    attribute = attribute_of(value)
    base = {a: ATTRIBUTES[a][rng.integers(len(ATTRIBUTES[a]))] for a in TUPLE_ORDER}
    base[attribute] = _other(rng, attribute, value)
    base_obj: ObjectTuple = tuple(base[a] for a in TUPLE_ORDER)  # type: ignore[assignment]
    target = _with(base_obj, attribute, value)
    changed = [a for a in TUPLE_ORDER if a != attribute][rng.integers(len(TUPLE_ORDER) - 1)]
    background = _with(base_obj, changed, _other(rng, changed, base[changed]))
    props = shuffled(rng, [base_obj, target, background])
    return place_scene(draw_seed(rng), props, pointed=props.index(target))


def distinguishing_values(scene: SceneSpec) -> set[str]:
    """Values of the pointed object that no other object in the scene has."""
    pointed = scene.objects[scene.hand.target].properties
    others = {v for i, o in enumerate(scene.objects) if i != scene.hand.target for v in o.properties}
    return set(pointed) - others


def sample(rng: np.random.Generator) -> Draft:
    # Six values of any attribute, one word each.
    values = [ALL_VALUES[i] for i in rng.choice(len(ALL_VALUES), size=WORDS, replace=False)]
    words = pseudo_words(rng, WORDS, syllables=2)
    lexicon = dict(zip(words, values))

    # Context: each word taught once, panels in random order.
    context = tuple(Panel(name=w, utterance=w, scene=teaching_scene(rng, lexicon[w])) for w in shuffled(rng, words))

    # Query: the same construction for one word; choices are five of the six words.
    answer = words[rng.integers(WORDS)]
    shown = {object_multiset(p.scene) for p in context}
    query = redraw(lambda: teaching_scene(rng, lexicon[answer]), lambda q: object_multiset(q) not in shown, "query scene")
    others = [w for w in words if w != answer]
    left_out = others[rng.integers(WORDS - 1)]
    choices, answer = choices_with_answer(rng, answer, [w for w in others if w != left_out])
    return Draft(lexicon, context, query, choices, answer)


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == WORDS and len(set(lexicon.values())) == WORDS, "six words for six values")
    require(all(v in ALL_VALUES for v in lexicon.values()), "the lexicon is not about attribute values")
    for p in (*ep.context_panels, ep.query):
        scene, where = (p.scene, f"panel {p.name!r}") if isinstance(p, Panel) else (p, "query")
        require(len(scene.objects) == 3 and scene.hand is not None, f"{where}: three objects and a pointing hand")
    said = [p.utterance for p in ep.context_panels]
    require(sorted(said) == sorted(lexicon) and all(p.name == p.utterance for p in ep.context_panels),
            "each word taught in exactly one panel, named after it")

    # Each panel's pointed object stands out by exactly the word's value; so
    # exactly one word -> value map fits the context.
    singles = {p.utterance: distinguishing_values(p.scene) for p in ep.context_panels}
    for w, vals in singles.items():
        require(vals == {lexicon[w]}, f"{w!r}: the pointed object stands out by {sorted(vals)}")
    fits = enumerate_mappings(list(lexicon), {w: ALL_VALUES for w in lexicon}, lambda m: all(m[w] in singles[w] for w in m))
    require(fits == [lexicon], f"the context allows {len(fits)} meanings")

    # The query: the pointed object stands out by one value, named by exactly one choice.
    stands_out = distinguishing_values(ep.query)
    require(len(stands_out) == 1, f"the query's pointed object stands out by {sorted(stands_out)}")
    require(all(c in lexicon for c in ep.choices), "a choice is not a taught word")
    true = [c for c in ep.choices if lexicon[c] in stands_out]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
