"""composite: two-word phrases under an episode syntax (docs/tasks.md).

The syntax is an ordered pair of attribute types (A, B): "wA wB" names an
object's A value, then its B value. Three values of each type make a 3x3 grid
of pairs; the context shows the six pairs off one random transversal, so every
word is seen twice and the query asks for one of the three unseen pairs.
The other attributes vary so that a word's two objects share its value only.
"""
from __future__ import annotations

import itertools

import numpy as np

from mewl_gen.scenes.draws import OutOfDraws
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, ObjectTuple, attribute_of

from ...item import Panel
from ...sampling import choices_with_answer, enumerate_mappings, shuffled
from ...seeds import draw_seed
from ...validation import require
from ..item import Draft, Episode, check_common
from .words import pseudo_words

NAMED_TYPES = ("shape", "color", "material")
VALUES_PER_TYPE = 3
SEEN_DISTRACTORS = 2
BATCH, MAX_BATCHES = 256, 8

Cell = tuple[int, int]  # (index of the A value, index of the B value)


def contrasting_values(rng: np.random.Generator, cells: list[Cell], values: tuple[str, ...]) -> list[str]:
    """One value per cell, uniform over the assignments in which cells that
    share a row or a column (a word) never share the value."""
    clash = np.array([(i, j) for i, j in itertools.combinations(range(len(cells)), 2)
                      if cells[i][0] == cells[j][0] or cells[i][1] == cells[j][1]]).T
    for _ in range(MAX_BATCHES):
        draws = rng.integers(len(values), size=(BATCH, len(cells)))
        ok = np.flatnonzero((draws[:, clash[0]] != draws[:, clash[1]]).all(axis=1))
        if ok.size:
            return [values[k] for k in draws[ok[0]]]
    raise OutOfDraws(f"no contrasting {len(values)}-valued assignment in {BATCH * MAX_BATCHES} draws")


def phrase(a_word: str, b_word: str) -> str:
    return f"{a_word} {b_word}"


def sample(rng: np.random.Generator) -> Draft:
    # The syntax, the values and the six words.
    type_a, type_b = (NAMED_TYPES[i] for i in rng.choice(len(NAMED_TYPES), size=2, replace=False))
    free = [t for t in TUPLE_ORDER if t not in (type_a, type_b)]
    a_values, b_values = ([ATTRIBUTES[t][i] for i in sorted(rng.choice(len(ATTRIBUTES[t]), VALUES_PER_TYPE, replace=False))]
                          for t in (type_a, type_b))
    words = pseudo_words(rng, 2 * VALUES_PER_TYPE, syllables=3)
    a_words, b_words = words[:VALUES_PER_TYPE], words[VALUES_PER_TYPE:]
    lexicon = dict(zip(words, a_values + b_values))

    # Context: the grid minus a random transversal, each word twice.
    unseen_b = rng.permutation(VALUES_PER_TYPE)
    unseen = [(i, int(unseen_b[i])) for i in range(VALUES_PER_TYPE)]
    cells = shuffled(rng, [c for c in itertools.product(range(VALUES_PER_TYPE), repeat=2) if c not in unseen])
    others = {t: contrasting_values(rng, cells, ATTRIBUTES[t]) for t in free}

    def obj(cell: Cell, other: dict[str, str]) -> ObjectTuple:
        values = {type_a: a_values[cell[0]], type_b: b_values[cell[1]], **other}
        return tuple(values[t] for t in TUPLE_ORDER)  # type: ignore[return-value]

    panels = []
    for k, cell in enumerate(cells):
        said = phrase(a_words[cell[0]], b_words[cell[1]])
        scene = place_scene(draw_seed(rng), [obj(cell, {t: others[t][k] for t in free})])
        panels.append(Panel(name=said, utterance=said, scene=scene))

    # Query: an unseen combination, other attributes free.
    query_cell = unseen[rng.integers(VALUES_PER_TYPE)]
    query = place_scene(draw_seed(rng), [obj(query_cell, {t: ATTRIBUTES[t][rng.integers(len(ATTRIBUTES[t]))] for t in free})])

    # Choices: all three unseen phrases (text cannot rank them) and two seen ones.
    seen_picks = [cells[i] for i in rng.choice(len(cells), size=SEEN_DISTRACTORS, replace=False)]
    distractors = [phrase(a_words[i], b_words[j]) for i, j in [c for c in unseen if c != query_cell] + seen_picks]
    choices, answer = choices_with_answer(rng, phrase(a_words[query_cell[0]], b_words[query_cell[1]]), distractors)
    return Draft(lexicon, tuple(panels), query, choices, answer)


def mappings_consistent_with(ep: Episode, limit: int = 2) -> list[dict[str, str]]:
    """Word->value mappings (any of the 16 values, any position) under which
    every panel's object carries the values of the words it utters. A word's
    domain: the values shared by all objects shown with it."""
    shown = [(p.utterance.split(), set(p.scene.objects[0].properties)) for p in ep.context_panels]
    domains: dict[str, set[str]] = {}
    for words, values in shown:
        for w in words:
            domains[w] = domains.get(w, values) & values
    words = sorted(domains)

    def consistent(mapping: dict[str, str]) -> bool:
        return all(mapping[w] in values for ws, values in shown for w in ws if w in mapping)

    return enumerate_mappings(words, {w: sorted(d) for w, d in domains.items()}, consistent, limit=limit)


def syntax_of(ep: Episode) -> tuple[str, str]:
    """The attribute types named by the first and the second word, which
    must be the same in every phrase of the context."""
    positions = [{attribute_of(ep.lexicon[w]) for w in ws} for ws in zip(*(p.utterance.split() for p in ep.context_panels))]
    require(len(positions) == 2 and all(len(t) == 1 for t in positions), f"phrases break one syntax: {positions}")
    (type_a,), (type_b,) = positions
    require(type_a != type_b and {type_a, type_b} <= set(NAMED_TYPES), f"syntax ({type_a}, {type_b})")
    return type_a, type_b


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == 6 and len(set(lexicon.values())) == 6, "six words for six values")
    for p in ep.context_panels:
        require(len(p.scene.objects) == 1 and p.scene.hand is None, f"panel {p.name!r} must show one object")
        require(p.name == p.utterance, f"panel name {p.name!r} is not its utterance")
        require(len(p.utterance.split()) == 2 and set(p.utterance.split()) <= lexicon.keys(),
                f"panel {p.name!r} must utter two known words")
    type_a, type_b = syntax_of(ep)
    words = {t: [w for w, v in lexicon.items() if attribute_of(v) == t] for t in (type_a, type_b)}
    require(all(len(ws) == VALUES_PER_TYPE for ws in words.values()), "three values of each named type")
    pairs = [tuple(p.utterance.split()) for p in ep.context_panels]
    require(len(set(pairs)) == 6, "context pairs repeat")
    said = [w for pair in pairs for w in pair]
    require(all(said.count(w) >= 2 for w in lexicon), "every word appears at least twice")
    # Identifiability: a single mapping over all values fits, the lexicon's.
    found = mappings_consistent_with(ep)
    require(found == [lexicon], f"{len(found)} word-value mappings fit the context: {found}")
    # The query: one object of an unseen pair; choices are phrases, one true.
    require(len(ep.query.objects) == 1, "the query shows one object")
    query = ep.query.objects[0].properties
    grid = {(a, b) for a in words[type_a] for b in words[type_b]}
    answer_pair = tuple(ep.answer.split())
    require(answer_pair in grid and answer_pair not in pairs, f"the answer {ep.answer!r} is not an unseen pair")
    phrases = [tuple(c.split()) for c in ep.choices]
    require(all(c in grid for c in phrases), f"a choice is not a phrase of the syntax: {ep.choices}")
    true = [c for c, ws in zip(ep.choices, phrases) if all(lexicon[w] in query for w in ws)]
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
