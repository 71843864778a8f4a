"""bootstrap's own rules over 300 seeds, solvers without the words at chance,
and broken episodes the validator rejects."""
from __future__ import annotations

import itertools
from collections import Counter

import pytest

from mewl_gen.scenes.relations import offsets, well_separated
from mewl_gen.scenes.universe import OPPOSITE
from mewl_gen.tasks import catalog
from mewl_gen.tasks.mewl.sample.bootstrap import consistent_lexicons
from mewl_gen.tasks.mewl.solver.bootstrap import (
    CHANCE,
    NO_LANGUAGE_CHANCE,
    QUERY_ONLY_CHANCE,
    no_language_guess,
    query_only_guess,
    text_only_guess,
)
from mewl_gen.tasks.validation import InvalidItem
from tests.chance import accuracy, assert_at_chance
from tests.conftest import FEW, episodes

N = 300


def eps(n: int = N):
    return episodes("bootstrap", n)


def _objects(scene):
    return {o.properties: o for o in scene.objects}


@pytest.mark.slow
def test_panels_show_their_pair_and_one_unnamed_distractor():
    for ep in eps():
        named = set(ep.lexicon.values())
        for p in ep.context_panels:
            wa, rel, wb = p.utterance.split()
            objs = _objects(p.scene)
            assert len(objs) == 3 and {ep.lexicon[wa], ep.lexicon[wb]} <= set(objs)
            assert len(set(objs) - named) == 1
            a, b = objs[ep.lexicon[wa]], objs[ep.lexicon[wb]]
            assert well_separated(p.scene.camera, a, b) and offsets(p.scene.camera, a, b)[rel] > 0


@pytest.mark.slow
def test_distinct_pairs_every_word_and_some_word_said_once():
    for ep in eps():
        pairs = [frozenset(p.utterance.split()[::2]) for p in ep.context_panels]
        assert len(set(pairs)) == 6 and set().union(*pairs) == set(ep.lexicon)
        said = Counter(w for pair in pairs for w in pair)
        assert 1 in said.values(), "relations would carry no information"


@pytest.mark.slow
def test_relation_words_are_needed():
    """The relations pin the assignment: with every relation word replaced by
    its opposite, the true assignment no longer fits, and identity alone
    (no relations) leaves some word open."""
    for ep in eps(FEW):
        assert consistent_lexicons(ep.context_panels, ep.lexicon.keys()) == [ep.lexicon]
        flipped = []
        for p in ep.context_panels:
            wa, rel, wb = p.utterance.split()
            flipped.append(p.model_copy(update={"utterance": f"{wa} {OPPOSITE[rel]} {wb}"}))
        assert ep.lexicon not in consistent_lexicons(flipped, ep.lexicon.keys(), limit=10)
        unrelated = {}
        for p in ep.context_panels:
            shown = {o.properties for o in p.scene.objects}
            for w in p.utterance.split()[::2]:
                unrelated[w] = unrelated.get(w, shown) & shown
        assert any(len(c) > 1 for c in unrelated.values())


@pytest.mark.slow
def test_choices_name_a_cycle_of_unsaid_pairs_one_of_them_shown():
    """Five pairs through five words, none said in context; the answer's pair
    is the query's, and every other choice names a word not shown."""
    for ep in eps():
        said = {frozenset(p.utterance.split()[::2]) for p in ep.context_panels}
        pairs = [frozenset(c.split()[::2]) for c in ep.choices]
        assert len(set(pairs)) == 5 and not said & set(pairs)
        assert set(Counter(w for pair in pairs for w in pair).values()) == {2}
        shown = {w for w, o in ep.lexicon.items() if o in _objects(ep.query)}
        assert frozenset(ep.answer.split()[::2]) == shown
        assert all(not pair <= shown for pair in pairs if pair != shown)


@pytest.mark.slow
def test_every_pair_of_objects_in_every_scene_is_well_separated():
    """MEWL's rule: no pair is a near-tie, so its captioner orders every pair."""
    for ep in eps():
        for scene in [p.scene for p in ep.context_panels] + [ep.query]:
            for a, b in itertools.combinations(scene.objects, 2):
                assert well_separated(scene.camera, a, b), f"episode {ep.index}"


@pytest.mark.slow
def test_without_the_words_a_solver_is_at_chance():
    """Over the episodes every test of the task shares: query-only (any two query objects
    may be the named ones), no-language (context scenes tell the named pair,
    not its words) and text-only are at 1/5: under "these two words name the
    pair", each choice is the only true statement in one word order."""
    eps1 = episodes("bootstrap")
    for name, guess, chance in [
        ("query-only", query_only_guess, QUERY_ONLY_CHANCE),
        ("no-language", no_language_guess, NO_LANGUAGE_CHANCE),
        ("text-only", text_only_guess, CHANCE),
    ]:
        assert_at_chance(accuracy(guess, eps1), len(eps1), chance, f"bootstrap {name}")


@pytest.mark.slow
def test_exactly_one_choice_true():
    for ep in eps():
        objs = _objects(ep.query)
        truths = []
        for c in ep.choices:
            wa, rel, wb = c.split()
            a, b = objs.get(ep.lexicon[wa]), objs.get(ep.lexicon[wb])
            truths.append(a is not None and b is not None and offsets(ep.query.camera, a, b)[rel] > 0)
        assert truths.count(True) == 1 and ep.choices[truths.index(True)] == ep.answer


@pytest.mark.slow
def test_validator_rejects_a_swapped_lexicon():
    ep = eps(FEW)[0]
    w = list(ep.lexicon)
    lexicon = dict(ep.lexicon)
    lexicon[w[0]], lexicon[w[1]] = lexicon[w[1]], lexicon[w[0]]
    with pytest.raises(InvalidItem):
        catalog.task("bootstrap").validate(ep.model_copy(update={"lexicon": lexicon}))


def test_validator_rejects_a_false_context_statement():
    ep = eps(FEW)[0]
    panels = list(ep.context_panels)
    wa, rel, wb = panels[0].utterance.split()
    flipped = f"{wa} {OPPOSITE[rel]} {wb}"
    panels[0] = panels[0].model_copy(update={"name": flipped, "utterance": flipped})
    with pytest.raises(InvalidItem):
        catalog.task("bootstrap").validate(ep.model_copy(update={"context_panels": tuple(panels)}))


def test_validator_rejects_a_second_true_choice():
    ep = eps(FEW)[0]
    wa, rel, wb = ep.answer.split()
    twin = f"{wb} {OPPOSITE[rel]} {wa}"
    choices = tuple(twin if i == (ep.answer_index + 1) % 5 else c for i, c in enumerate(ep.choices))
    if twin in ep.choices:
        pytest.skip("twin already present")
    with pytest.raises(InvalidItem):
        catalog.task("bootstrap").validate(ep.model_copy(update={"choices": choices}))
