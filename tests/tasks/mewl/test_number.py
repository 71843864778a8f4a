"""number: the rules of docs/tasks.md over many seeds, and broken episodes rejected."""
from __future__ import annotations

import pytest

from mewl_gen.tasks.mewl.sample import number as task
from mewl_gen.tasks.validation import InvalidItem
from tests.conftest import FEW, episodes

N = 300


def count(scene) -> int:
    return len(scene.objects)


@pytest.mark.slow
def test_each_count_once_with_distinct_objects():
    for ep in episodes("number", N):
        assert sorted(count(p.scene) for p in ep.context_panels) == [1, 2, 3, 4, 5, 6]
        for p in ep.context_panels:
            assert p.name == p.utterance and ep.lexicon[p.utterance] == count(p.scene)
            assert len({o.properties for o in p.scene.objects}) == count(p.scene)


@pytest.mark.slow
def test_query_shows_new_objects_and_choices_are_five_lexicon_words():
    for ep in episodes("number", N):
        n = count(ep.query)
        assert ep.lexicon[ep.answer] == n
        assert len({o.properties for o in ep.query.objects}) == n
        same = next(p for p in ep.context_panels if count(p.scene) == n)
        assert sorted(o.properties for o in same.scene.objects) != sorted(o.properties for o in ep.query.objects)
        assert len(set(ep.choices)) == 5 and set(ep.choices) < set(ep.lexicon)


@pytest.mark.slow
def test_panels_are_shuffled():
    firsts = [count(ep.context_panels[0].scene) for ep in episodes("number", N)]
    assert set(firsts) == {1, 2, 3, 4, 5, 6}
    assert sum(a < b for ep in episodes("number", N)
               for a, b in zip([count(p.scene) for p in ep.context_panels][:-1],
                               [count(p.scene) for p in ep.context_panels][1:])) < 0.6 * 5 * N


def test_validator_rejects_swapped_words_and_wrong_answers():
    ep = episodes("number", FEW)[0]
    task.validate(ep)
    a, b, *rest = ep.context_panels
    swapped = (a.model_copy(update={"name": b.name, "utterance": b.utterance}),
               b.model_copy(update={"name": a.name, "utterance": a.utterance}), *rest)
    with pytest.raises(InvalidItem, match="mappings"):
        task.validate(ep.model_copy(update={"context_panels": swapped}))
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"context_panels": (a, a, *rest)}))
    one_less = ep.query.model_copy(update={"objects": ep.query.objects[1:]}) if count(ep.query) > 1 else None
    if one_less is not None:
        with pytest.raises(InvalidItem):
            task.validate(ep.model_copy(update={"query": one_less}))
    wrong = next(c for c in ep.choices if c != ep.answer)
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"answer": wrong}))


def test_mappings_follow_the_counts_alone():
    ep = episodes("number", FEW)[2]
    assert task.mappings_consistent_with(ep) == [ep.lexicon]
