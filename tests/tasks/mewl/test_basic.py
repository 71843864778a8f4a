"""shape, color, material: the query copies no context object, and that rule tells a solver blind to the
named attribute nothing. Were the query redrawn only against copies, a heard word whose context object
matches the query on every other attribute could not be the answer (the query would be that object), and
the rule alone would read above 1/3; the sampler redraws the query while any context object matches it
so, which leaves every heard word open."""
from __future__ import annotations

import pytest

from mewl_gen.scenes.universe import TUPLE_ORDER
from mewl_gen.tasks.mewl.item import Episode
from mewl_gen.tasks.mewl.sample.basic import validate
from mewl_gen.tasks.mewl.views import BASIC
from mewl_gen.tasks.validation import InvalidItem
from tests.conftest import EPISODES_PER_TASK, FEW, episodes


def others(properties: tuple[str, ...], attribute: str) -> tuple[str, ...]:
    return tuple(v for a, v in zip(TUPLE_ORDER, properties) if a != attribute)


def copy_rule(ep: Episode) -> list[str]:
    """The heard words the copy rule leaves open without the named attribute: those with no context
    object that, given the query's value, would be the query."""
    query = others(ep.query.objects[0].properties, ep.task)
    return [w for w in ep.lexicon if not any(
        p.utterance == w and others(p.scene.objects[0].properties, ep.task) == query for p in ep.context_panels)]


def copy_rule_hits(eps) -> float:
    """The copy rule's expected hits: it guesses uniformly among the words it leaves open."""
    return sum((ep.answer in open_) / len(open_) for ep in eps for open_ in [copy_rule(ep)])


def planted(ep: Episode) -> Episode:
    """The episode with its query moved onto a context object of another word, its value kept: what a
    redraw against copies alone lets through."""
    other = next(p.scene.objects[0] for p in ep.context_panels if p.utterance != ep.answer)
    moved = ep.query.objects[0].model_copy(update={a: getattr(other, a) for a in TUPLE_ORDER if a != ep.task})
    return ep.model_copy(update={"query": ep.query.model_copy(update={"objects": (moved,)})})


@pytest.mark.parametrize("task", BASIC)
def test_the_copy_rule_leaves_every_heard_word_open(task):
    for ep in episodes(task, FEW):
        assert copy_rule(ep) == list(ep.lexicon), ep.index


@pytest.mark.parametrize("task", BASIC)
def test_a_query_matching_another_words_object_is_read_by_the_rule_and_rejected(task):
    eps = [planted(ep) for ep in episodes(task, FEW)]
    assert all(len(copy_rule(ep)) < 3 for ep in eps)  # the planted word at least is excluded
    assert copy_rule_hits(eps) > len(eps) / 3  # the answer is excluded too only where its object shares that
    for ep in eps:
        with pytest.raises(InvalidItem, match="context"):  # a copy where the answer's object shares that too
            validate(ep, task)


# Every episode leaves the three words open, so the rule's hits are exactly a third, not within noise.
@pytest.mark.slow
@pytest.mark.parametrize("task", BASIC)
def test_the_copy_rule_is_at_chance(task):
    eps = episodes(task, EPISODES_PER_TASK)
    assert copy_rule_hits(eps) == pytest.approx(len(eps) / 3)
