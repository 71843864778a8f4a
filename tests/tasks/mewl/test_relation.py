"""relation's own rules over 300 seeds, the proof that no solver without the
context beats 1/4, and broken episodes the validator rejects."""
from __future__ import annotations

import functools
import itertools

import pytest

from mewl_gen.scenes.relations import offsets, true_relations, well_separated
from mewl_gen.scenes.universe import DIRECTIONS, OPPOSITE, ORTHOGONAL
from mewl_gen.tasks import catalog
from mewl_gen.tasks.mewl.sample.relation import balanced_choices, layouts, lexicons, lone_truth, parse
from mewl_gen.tasks.mewl.solver.relation import (
    CHANCE,
    NO_QUERY_CHANCE,
    QUERY_ONLY_CHANCE,
    no_query_guess,
    query_only_guess,
    text_only_guess,
)
from mewl_gen.tasks.validation import InvalidItem
from tests.chance import accuracy, assert_at_chance
from tests.conftest import FEW, episodes

N = 300
WORDS = ["w0", "w1", "w2"]


def eps(n: int = N):
    return episodes("relation", n)


def _pair(scene, text):
    a, word, b = parse(scene, text)
    return scene.objects[a], word, scene.objects[b]


@pytest.mark.slow
def test_each_word_twice_with_opposite_orthogonal_relations():
    for ep in eps():
        by_word: dict[str, list[set[str]]] = {}
        for p in ep.context_panels:
            a, word, b = _pair(p.scene, p.utterance)
            assert well_separated(p.scene.camera, a, b)
            by_word.setdefault(word, []).append(true_relations(p.scene.camera, a, b))
        assert sorted(by_word) == sorted(ep.lexicon)
        for word, (r1, r2) in by_word.items():
            rel = ep.lexicon[word]
            assert rel in r1 and rel in r2
            (o1,) = r1 & set(ORTHOGONAL[rel])
            (o2,) = r2 & set(ORTHOGONAL[rel])
            assert o2 == OPPOSITE[o1], f"episode {ep.index}: {word} panels agree on {o1}"


@pytest.mark.slow
def test_panels_are_not_grouped_by_word():
    grouped = sum(
        all(ep.context_panels[2 * k].utterance.split()[2] == ep.context_panels[2 * k + 1].utterance.split()[2] for k in range(3))
        for ep in eps()
    )
    assert grouped < N * 0.1  # 1/15 by chance


@pytest.mark.slow
def test_phrases_name_one_object_and_query_objects_are_new():
    for ep in eps():
        for scene in [p.scene for p in ep.context_panels] + [ep.query]:
            assert len({(o.color, o.shape) for o in scene.objects}) == 3
        seen = {o.properties for p in ep.context_panels for o in p.scene.objects}
        assert not seen & {o.properties for o in ep.query.objects}
        for c in ep.choices:
            a, _, b = parse(ep.query, c)
            assert a is not None and b is not None and a != b


@pytest.mark.slow
def test_exactly_one_choice_true_and_all_query_pairs_well_separated():
    for ep in eps():
        truths = []
        for c in ep.choices:
            a, word, b = _pair(ep.query, c)
            assert well_separated(ep.query.camera, a, b)
            truths.append(offsets(ep.query.camera, a, b)[ep.lexicon[word]] > 0)
        assert truths.count(True) == 1 and ep.choices[truths.index(True)] == ep.answer


@pytest.mark.slow
def test_every_pair_of_objects_in_every_scene_is_well_separated():
    """MEWL's rule: no pair is a near-tie, so its captioner orders every pair."""
    for ep in eps():
        for scene in [p.scene for p in ep.context_panels] + [ep.query]:
            for a, b in itertools.combinations(scene.objects, 2):
                assert well_separated(scene.camera, a, b), f"episode {ep.index}"


def _layouts():
    """Three objects ranked 0 < 1 < 2 left to right, in each order front to
    back: every layout up to renaming the objects."""
    for fb in itertools.permutations(range(3)):
        yield fb, {
            (a, b, d): (d == "right") == (a > b) if d in ("left", "right") else (d == "behind") == (fb[a] > fb[b])
            for a, b in itertools.permutations(range(3), 2) for d in DIRECTIONS
        }


@functools.cache
def _live_sets() -> dict:
    """Per layout, every set of five statements (words 0-2) with the number
    of lexicons under which each statement is the only true one."""
    pool = [(a, w, b) for a, b in itertools.permutations(range(3), 2) for w in WORDS]
    out = {}
    for fb, truth in _layouts():
        out[fb] = []
        for said in itertools.combinations(pool, 5):
            alone = {}
            for m in lexicons(WORDS):
                k = lone_truth(truth, said, m)
                if k is not None:
                    alone.setdefault(k, []).append(m)
            out[fb].append(alone)
    return out


@pytest.mark.slow
def test_no_five_statements_about_three_objects_leave_five_candidates():
    """The floor any design meets: at most four statements can be the only
    true one under some lexicon, so the query alone always rules one out (and
    two when the two axes order the objects alike, a layout the query avoids)."""
    for fb, sets in _live_sets().items():
        most = max(len(alone) for alone in sets)
        assert most == (2 if fb in ((0, 1, 2), (2, 1, 0)) else 4), fb


def test_given_the_lexicon_too_at_most_four_statements_are_live():
    """The same floor with the roles swapped: knowing the lexicon but not the
    query's layout (any of the 24 mixed ones), four at most."""
    pool = [(a, w, b) for a, b in itertools.permutations(range(3), 2) for w in WORDS]
    lays = layouts()
    for meaning in lexicons(WORDS)[::6]:  # one per unused direction; renaming words does the rest
        for said in itertools.combinations(pool, 5):
            assert len({lone_truth(t, said, meaning) for t in lays} - {None}) <= 4


def test_the_two_balanced_choice_sets_make_each_live_statement_equally_likely():
    """For every layout and lexicon exactly two cycle sets are kept (one is
    drawn). Given a layout and a set, the lexicons that keep it make each of
    its four live statements the answer once; given a lexicon and a set, so
    do the layouts: the answer is 1/4 likely for each, without the context
    and without the query image alike."""
    by_layout, by_lexicon = {}, {}
    for g, truth in enumerate(layouts()):
        for lexicon in lexicons(WORDS):
            kept = balanced_choices(truth, lexicon)
            assert len(kept) == 2
            for said, answer in kept:
                by_layout.setdefault((g, tuple(said)), []).append(answer)
                by_lexicon.setdefault((tuple(sorted(lexicon.items())), tuple(said)), []).append(answer)
    for answers in [*by_layout.values(), *by_lexicon.values()]:
        assert sorted(answers) == sorted(set(answers)) and len(answers) == 4


@pytest.mark.slow
def test_without_the_context_or_the_query_image_a_solver_is_at_chance():
    """Query-only (scene and choices, every lexicon weighed), no-query
    (context and choices, every layout weighed) and text-only over the
    the episodes every test of the task shares, against the floor of 1/4 proven above."""
    eps1 = episodes("relation")
    assert_at_chance(accuracy(query_only_guess, eps1), len(eps1), QUERY_ONLY_CHANCE, "relation query-only")
    assert_at_chance(accuracy(no_query_guess, eps1), len(eps1), NO_QUERY_CHANCE, "relation no-query")
    assert_at_chance(accuracy(text_only_guess, eps1), len(eps1), CHANCE, "relation text-only")


def _break(ep, **update):
    return ep.model_copy(update=update)


@pytest.mark.slow
def test_validator_rejects_a_swapped_lexicon():
    ep = eps(FEW)[0]
    words = list(ep.lexicon)
    lexicon = dict(ep.lexicon)
    lexicon[words[0]], lexicon[words[1]] = lexicon[words[1]], lexicon[words[0]]
    with pytest.raises(InvalidItem):
        catalog.task("relation").validate(_break(ep, lexicon=lexicon))


def test_validator_rejects_an_ambiguous_context():
    """Give one word's second panel the same orthogonal relation: the word
    could then mean either direction."""
    ep = eps(FEW)[0]
    panels = list(ep.context_panels)
    word = panels[0].utterance.split()[2]
    k = next(i for i, p in enumerate(panels) if i > 0 and p.utterance.split()[2] == word)
    panels[k] = panels[0].model_copy(update={"name": panels[0].name + " #9"})
    with pytest.raises(InvalidItem):
        catalog.task("relation").validate(_break(ep, context_panels=tuple(panels)))


def test_validator_rejects_a_second_true_choice():
    """Replace a distractor by the answer said the other way round with the
    opposite word: true as well."""
    by_meaning = lambda ep, d: [w for w, m in ep.lexicon.items() if m == d]
    ep = next(e for e in eps(FEW) if by_meaning(e, OPPOSITE[e.lexicon[e.answer.split()[2]]]))
    a, word, b = parse(ep.query, ep.answer)
    objs = ep.query.objects
    (opposite,) = by_meaning(ep, OPPOSITE[ep.lexicon[word]])
    twin = f"{objs[b].color} {objs[b].shape} {opposite} {objs[a].color} {objs[a].shape}"
    assert twin not in ep.choices
    choices = tuple(twin if i == (ep.answer_index + 1) % 5 else c for i, c in enumerate(ep.choices))
    with pytest.raises(InvalidItem):
        catalog.task("relation").validate(_break(ep, choices=choices))
