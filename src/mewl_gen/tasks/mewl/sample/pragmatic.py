"""pragmatic: a pointing hand singles out the attribute a word names (docs/tasks.md).

Six of the sixteen attribute values get words. Every scene is the paper's
construction: a base object, the target (the base with the word's attribute
set to the word's value) and a background object (the base with one other
attribute changed). The word's value is then the one thing that tells the
pointed-at target from the rest; the query repeats the construction for one
of the six words.

The hand must be needed, so the background stands out just as the target
does, and nothing but the hand tells which of the two is pointed at:
- the six taught values are three colors and three other values, each drawn
  uniformly (so every value is taught with probability 6/16), matched into
  three (color, other) pairs; a word's background shows its pair's other
  value, the word's *partner*;
- in the query the partner is another taught word, offered among the
  choices: without the hand, two offered words name a standing-out object
  (no-hand chance 1/2; the base never stands out, so three objects allow no
  less);
- in the context each pair's two panels show each other's value as the
  background: without the context's hands either word could mean either
  value, so the query's hand alone does not tell the answer either (1/2);
- every word has such a mirrored partner, not only the answer (issue 31:
  one mirrored pair pointed a solver without the query image to two words).
  The word left out of the choices breaks one pair; the answer is drawn
  uniformly from the four words of the two whole pairs, so without the query
  image it is one of four. A color can be the answer only through a pair of
  offered panels that both show it, so at most two offered colors can be,
  and half the answers are colors: 1/4 is the floor (docs/tasks.md);
- a scene is kept only if a hand could point at any of its objects
  (scenes.pointing), so the layout does not betray the target.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.pointing import place_pointing_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ATTRIBUTES, COLORS, TUPLE_ORDER, ObjectTuple, attribute_of, object_tuple

from ...item import Panel
from ...sampling import choices_with_answer, enumerate_mappings, random_values, shuffled
from ...seeds import draw_seed
from ...validation import object_multiset, require
from ..item import Draft, Episode, check_common
from .words import pseudo_words

WORDS = 6
ALL_VALUES: tuple[str, ...] = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])
NON_COLORS: tuple[str, ...] = tuple(v for v in ALL_VALUES if v not in COLORS)
assert len(NON_COLORS) == len(COLORS), "three colors and three other values are taught: each 6/16 only if colors are half"


def _other(rng: np.random.Generator, attribute: str, value: str) -> str:
    choices = [v for v in ATTRIBUTES[attribute] if v != value]
    return choices[rng.integers(len(choices))]


def _with(obj: ObjectTuple, attribute: str, value: str) -> ObjectTuple:
    out = list(obj)
    out[TUPLE_ORDER.index(attribute)] = value
    return tuple(out)  # type: ignore[return-value]


def teaching_scene(rng: np.random.Generator, value: str, partner: str) -> SceneSpec:
    """Base, target (base with `value`) and background (base with `partner`),
    in random order, the hand pointing at the target."""
    attribute, changed = attribute_of(value), attribute_of(partner)
    base = random_values(rng)
    base[attribute] = _other(rng, attribute, value)
    base[changed] = _other(rng, changed, partner)
    base_obj = object_tuple(base)
    target = _with(base_obj, attribute, value)
    background = _with(base_obj, changed, partner)
    props = shuffled(rng, [base_obj, target, background])
    return place_pointing_scene(draw_seed(rng), props, pointed=props.index(target))


def distinguishing_values(scene: SceneSpec) -> set[str]:
    """Values of the pointed object that no other object in the scene has."""
    pointed = scene.objects[scene.hand.target].properties
    others = {v for i, o in enumerate(scene.objects) if i != scene.hand.target for v in o.properties}
    return set(pointed) - others


def standing_out(scene: SceneSpec) -> list[str]:
    """The values that set one object apart, one per object that has one."""
    props = [o.properties for o in scene.objects]
    return [v for p in props for v in p if sum(v in q for q in props) == 1]


def mirrored_pairs(rng: np.random.Generator) -> dict[str, str]:
    """Three colors and three other values, each drawn uniformly, matched at
    random: value -> its partner, both ways round."""
    colors = [COLORS[i] for i in rng.choice(len(COLORS), 3, replace=False)]
    others = [NON_COLORS[i] for i in rng.choice(len(NON_COLORS), 3, replace=False)]
    return {a: b for c, o in zip(colors, others) for a, b in ((c, o), (o, c))}


def sample(rng: np.random.Generator) -> Draft:
    partner = mirrored_pairs(rng)
    words = pseudo_words(rng, WORDS, syllables=2)
    lexicon = dict(zip(words, shuffled(rng, list(partner))))
    word_for = {v: w for w, v in lexicon.items()}

    # Context: each word taught once, panels in random order, each with its
    # partner's value as the background: every pair's two panels look alike
    # without their hands, and either word could mean either value.
    context = tuple(
        Panel(name=w, utterance=w, scene=teaching_scene(rng, lexicon[w], partner[lexicon[w]]))
        for w in shuffled(rng, words)
    )

    # Choices: every word but one; the answer is one of the four words whose
    # partner is offered, its partner's value the query's background.
    left_out = words[rng.integers(WORDS)]
    whole = [w for w in words if left_out not in (w, word_for[partner[lexicon[w]]])]
    answer = whole[rng.integers(len(whole))]
    asked = lexicon[answer]
    shown = {object_multiset(p.scene) for p in context}
    query = redraw(lambda: teaching_scene(rng, asked, partner[asked]), lambda q: object_multiset(q) not in shown, "query scene")
    choices, answer = choices_with_answer(rng, answer, [w for w in words if w not in (answer, left_out)])
    return Draft(lexicon, context, query, choices, answer)


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == WORDS and len(set(lexicon.values())) == WORDS, "six words for six values")
    require(all(v in ALL_VALUES for v in lexicon.values()), "the lexicon is not about attribute values")
    for p in (*ep.context_panels, ep.query):
        scene, where = (p.scene, f"panel {p.name!r}") if isinstance(p, Panel) else (p, "query")
        require(len(scene.objects) == 3 and scene.hand is not None, f"{where}: three objects and a pointing hand")
        require(len(standing_out(scene)) == 2, f"{where}: not exactly two objects stand out, by one value each")
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

    # The query: the pointed object stands out by one value, named by exactly
    # one choice; without the hand, the other standing-out object's value is
    # an offered word too.
    stands_out = distinguishing_values(ep.query)
    require(len(stands_out) == 1, f"the query's pointed object stands out by {sorted(stands_out)}")
    require(all(c in lexicon for c in ep.choices), "a choice is not a taught word")
    true = [c for c in ep.choices if lexicon[c] in stands_out]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
    offered = {lexicon[c] for c in ep.choices}
    pair = set(standing_out(ep.query))
    require(pair <= offered, "without the hand only one object stands out by an offered word")
    # Without the context's hands, two panels show the query's pair alike.
    alike = [p.utterance for p in ep.context_panels if set(standing_out(p.scene)) == pair]
    require(sorted(alike) == sorted(w for w in lexicon if lexicon[w] in pair),
            f"the panels of the query's two words do not show the same pair: {alike}")
    # Every word's panel has such a twin, so the context does not single out
    # the answer's pair (a solver without the query image is at 1/4).
    pairs = [frozenset(standing_out(p.scene)) for p in ep.context_panels]
    require(all(pairs.count(s) == 2 for s in pairs), "the context's panels are not three mirrored pairs")
