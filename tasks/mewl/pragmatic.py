"""pragmatic: a pointing hand singles out the attribute a word names (docs/tasks.md).

Six of the sixteen attribute values get words. Every scene is the paper's
construction: a base object, the target (the base with the word's attribute
set to the word's value) and a background object (the base with one other
attribute changed). The word's value is then the one thing that tells the
pointed-at target from the rest; the query repeats the construction for one
of the six words.

The hand must be needed, so the background stands out just as the target
does, and nothing but the hand tells which of the two is pointed at:
- the background's changed value is the target value's *partner*, drawn so
  that the pair is as likely either way round: colors are exactly half of
  the sixteen values, and a color's partner is uniform among the eight other
  values, any other value's partner uniform among the eight colors;
- in the query the partner is another taught word, offered among the
  choices: without the hand, two offered words name a standing-out object
  (no-hand chance 1/2; the base never stands out, so three objects allow no
  less);
- in the context the two words' panels show each other's value as the
  background: without the context's hands either word could mean either
  value, so the query's hand alone does not tell the answer either (1/2);
- a scene is kept only if a hand could point at any of its objects
  (scenes.pointing), so the layout does not betray the target.
"""
from __future__ import annotations

import numpy as np

from scenes.pointing import place_pointing_scene
from scenes.spec import SceneSpec
from scenes.universe import ATTRIBUTES, COLORS, TUPLE_ORDER, ObjectTuple, attribute_of, object_tuple
from scenes.draws import redraw

from ..item import Panel
from ..sampling import choices_with_answer, enumerate_mappings, random_values, shuffled
from ..seeds import draw_seed
from ..validation import object_multiset, require
from .episode import Draft, Episode, check_common
from .words import pseudo_words

WORDS = 6
ALL_VALUES: tuple[str, ...] = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])
NON_COLORS: tuple[str, ...] = tuple(v for v in ALL_VALUES if v not in COLORS)
assert len(NON_COLORS) == len(COLORS), "the partner rule needs colors to be half of the values"


def _other(rng: np.random.Generator, attribute: str, value: str) -> str:
    choices = [v for v in ATTRIBUTES[attribute] if v != value]
    return choices[rng.integers(len(choices))]


def _with(obj: ObjectTuple, attribute: str, value: str) -> ObjectTuple:
    out = list(obj)
    out[TUPLE_ORDER.index(attribute)] = value
    return tuple(out)  # type: ignore[return-value]


def partner_of(rng: np.random.Generator, value: str) -> str:
    """The background's value: uniform on the other side of colors / non-colors,
    so P(value, partner) = P(partner, value) for uniformly drawn values."""
    pool = NON_COLORS if value in COLORS else COLORS
    return pool[rng.integers(len(pool))]


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


def sample(rng: np.random.Generator) -> Draft:
    # The query's value and its partner, then four more values: each of the
    # sixteen values is taught with probability 6/16 and queried with 1/16.
    asked = ALL_VALUES[rng.integers(len(ALL_VALUES))]
    partner = partner_of(rng, asked)
    rest = [v for v in ALL_VALUES if v not in (asked, partner)]
    values = shuffled(rng, [asked, partner, *(rest[i] for i in rng.choice(len(rest), WORDS - 2, replace=False))])
    words = pseudo_words(rng, WORDS, syllables=2)
    lexicon = dict(zip(words, values))
    word_for = {v: w for w, v in lexicon.items()}

    # Context: each word taught once, panels in random order. The asked value
    # and its partner are each other's background, so without the panels'
    # hands their two panels look alike and either word could mean either.
    mutual = {asked: partner, partner: asked}
    context = tuple(
        Panel(name=w, utterance=w, scene=teaching_scene(rng, lexicon[w], mutual.get(lexicon[w]) or partner_of(rng, lexicon[w])))
        for w in shuffled(rng, words)
    )

    # Query: the same construction, the background showing the partner's word;
    # choices are the answer, the partner's word and three of the other four.
    answer = word_for[asked]
    shown = {object_multiset(p.scene) for p in context}
    query = redraw(lambda: teaching_scene(rng, asked, partner), lambda q: object_multiset(q) not in shown, "query scene")
    others = [w for w in words if w not in (answer, word_for[partner])]
    kept = [others[i] for i in sorted(rng.choice(len(others), len(others) - 1, replace=False))]
    choices, answer = choices_with_answer(rng, answer, [word_for[partner], *kept])
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
