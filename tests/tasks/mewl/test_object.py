"""object: the rules of docs/tasks.md over many seeds, and broken episodes rejected."""
from __future__ import annotations

import pytest

from mewl_gen.scenes.placement import place_scene
from mewl_gen.tasks.item import Panel
from mewl_gen.tasks.mewl.sample import object as task
from mewl_gen.tasks.validation import InvalidItem
from tests.conftest import FEW, episodes

N = 300


def words(utterance: str) -> frozenset[str]:
    return frozenset(utterance.split(" and "))


def objects(scene) -> frozenset:
    return frozenset(o.properties for o in scene.objects)


@pytest.mark.slow
def test_panels_show_three_objects_named_by_their_words():
    for ep in episodes("object", N):
        assert len(set(ep.lexicon.values())) == 6
        for p in ep.context_panels:
            assert len(p.scene.objects) == 3 and p.name == p.utterance
            assert {ep.lexicon[w] for w in words(p.utterance)} == objects(p.scene)
        context = {words(p.utterance) for p in ep.context_panels}
        assert len(context) == 6 and set().union(*context) == set(ep.lexicon)


@pytest.mark.slow
def test_query_and_distractors_are_unseen_subsets():
    for ep in episodes("object", N):
        context = {words(p.utterance) for p in ep.context_panels}
        choices = [words(c) for c in ep.choices]
        assert len(set(choices)) == 5 and not set(choices) & context
        named = {ep.lexicon[w] for w in words(ep.answer)}
        assert named == objects(ep.query)


@pytest.mark.slow
def test_word_order_follows_neither_lexicon_nor_layout():
    in_lexicon_order = in_scene_order = total = 0
    for ep in episodes("object", N):
        rank = {w: k for k, w in enumerate(ep.lexicon)}
        for p in ep.context_panels:
            said = p.utterance.split(" and ")
            in_lexicon_order += said == sorted(said, key=rank.get)
            in_scene_order += [ep.lexicon[w] for w in said] == [o.properties for o in p.scene.objects]
            total += 1
    # 1 in 6 orders by chance; 1800 panels.
    assert 0.12 < in_lexicon_order / total < 0.22
    assert 0.12 < in_scene_order / total < 0.22


VALID = [(0, 1, 2), (0, 3, 4), (1, 3, 5), (2, 4, 5), (0, 1, 5), (1, 2, 3)]
# Objects 0 and 1 are always shown together: two bijections fit.
TIED = [(0, 1, 2), (0, 1, 3), (0, 1, 4), (0, 1, 5), (2, 3, 4), (3, 4, 5)]


def test_identifying_needs_distinct_membership():
    assert task.identifying(VALID)
    assert not task.identifying(TIED)
    # object 5 never shown.
    assert not task.identifying([(0, 1, 2), (0, 3, 4), (1, 3, 4), (2, 3, 4), (0, 1, 3), (1, 2, 4)])


def rebuilt(ep, context):
    """The episode's lexicon with this context, and unseen subsets as query and choices."""
    lexicon = list(ep.lexicon.items())

    def said(s):
        return " and ".join(lexicon[i][0] for i in s)

    def scene(seed, s):
        return place_scene(seed, [lexicon[i][1] for i in s])

    panels = tuple(Panel(name=said(s), utterance=said(s), scene=scene(k, s)) for k, s in enumerate(context))
    unseen = [s for s in task.SUBSETS if s not in context][:5]
    return ep.model_copy(update={
        "context_panels": panels, "query": scene(99, unseen[0]),
        "choices": tuple(said(s) for s in unseen), "answer": said(unseen[0]),
    })


def test_validator_rejects_a_context_that_leaves_two_words_ambiguous():
    ep = episodes("object", FEW)[0]
    task.validate(rebuilt(ep, VALID))
    with pytest.raises(InvalidItem, match="2 word-object bijections"):
        task.validate(rebuilt(ep, TIED))


def test_validator_rejects_swapped_utterances_duplicates_and_wrong_answers():
    ep = episodes("object", FEW)[1]
    a, b, *rest = ep.context_panels
    swapped = (a.model_copy(update={"name": b.name, "utterance": b.utterance}),
               b.model_copy(update={"name": a.name, "utterance": a.utterance}), *rest)
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"context_panels": swapped}))
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"context_panels": (a, a, *rest)}))
    wrong = next(c for c in ep.choices if c != ep.answer)
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"answer": wrong}))
