"""composite: the rules of docs/tasks.md over many seeds, and broken episodes rejected."""
from __future__ import annotations

import itertools

import pytest

from mewl_gen.scenes.universe import ATTRIBUTES, attribute_of
from mewl_gen.tasks.mewl.sample import composite as task
from mewl_gen.tasks.validation import InvalidItem
from tests.conftest import FEW, episodes

N = 300


def syntax(ep) -> tuple[str, str]:
    first, second = ep.context_panels[0].utterance.split()
    return attribute_of(ep.lexicon[first]), attribute_of(ep.lexicon[second])


@pytest.mark.slow
def test_every_phrase_names_its_object_in_the_episode_syntax():
    for ep in episodes("composite", N):
        type_a, type_b = syntax(ep)
        assert type_a != type_b and "size" not in (type_a, type_b)
        for p in ep.context_panels:
            a, b = p.utterance.split()
            assert (attribute_of(ep.lexicon[a]), attribute_of(ep.lexicon[b])) == (type_a, type_b)
            assert {ep.lexicon[a], ep.lexicon[b]} <= set(p.scene.objects[0].properties)


@pytest.mark.slow
def test_context_is_the_grid_minus_a_transversal_and_the_query_is_unseen():
    for ep in episodes("composite", N):
        pairs = [tuple(p.utterance.split()) for p in ep.context_panels]
        said = [w for pair in pairs for w in pair]
        assert len(set(pairs)) == 6 and all(said.count(w) == 2 for w in ep.lexicon)
        firsts, seconds = sorted({a for a, _ in pairs}), sorted({b for _, b in pairs})
        unseen = [(a, b) for a in firsts for b in seconds if (a, b) not in pairs]
        assert len({a for a, _ in unseen}) == len({b for _, b in unseen}) == 3
        assert tuple(ep.answer.split()) in unseen
        # All three unseen phrases are offered, so text alone is at 1/3.
        assert {" ".join(u) for u in unseen} <= set(ep.choices)


@pytest.mark.slow
def test_a_words_objects_share_its_value_and_nothing_else():
    for ep in episodes("composite", N):
        for word, value in ep.lexicon.items():
            objs = [p.scene.objects[0].properties for p in ep.context_panels if word in p.utterance.split()]
            assert set(objs[0]) & set(objs[1]) == {value}


@pytest.mark.slow
def test_syntax_and_named_values_cover_their_support():
    eps = episodes("composite", N)
    assert {syntax(ep) for ep in eps} == set(itertools.permutations(("shape", "color", "material"), 2))
    named = {v for ep in eps for v in ep.lexicon.values()}
    assert named == {v for t in ("shape", "color", "material") for v in ATTRIBUTES[t]}


def test_contrasting_values_never_repeat_along_a_row_or_column():
    import numpy as np

    rng = np.random.default_rng(0)
    cells = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    for _ in range(50):
        sizes = task.contrasting_values(rng, cells, ("large", "small"))
        for i, j in itertools.combinations(range(6), 2):
            if cells[i][0] == cells[j][0] or cells[i][1] == cells[j][1]:
                assert sizes[i] != sizes[j]


def with_panel(ep, k, **changes):
    panels = list(ep.context_panels)
    panels[k] = panels[k].model_copy(update=changes)
    return ep.model_copy(update={"context_panels": tuple(panels)})


def test_validator_rejects_a_word_whose_objects_share_a_second_value():
    ep = episodes("composite", FEW)[0]
    task.validate(ep)
    # Give panel 0's object the size of the other object its first word names.
    word = ep.context_panels[0].utterance.split()[0]
    k = next(i for i, p in enumerate(ep.context_panels) if i and word in p.utterance.split())
    other = ep.context_panels[k].scene.objects[0]
    scene = ep.context_panels[0].scene
    obj = scene.objects[0].model_copy(update={"size": other.size})
    broken = with_panel(ep, 0, scene=scene.model_copy(update={"objects": (obj,)}))
    with pytest.raises(InvalidItem, match="2 word-value mappings"):
        task.validate(broken)


def test_validator_rejects_broken_syntax_and_wrong_answers():
    ep = episodes("composite", FEW)[1]
    a, b = ep.context_panels[0].utterance.split()
    with pytest.raises(InvalidItem, match="syntax"):
        task.validate(with_panel(ep, 0, name=f"{b} {a}", utterance=f"{b} {a}"))
    wrong = next(c for c in ep.choices if c != ep.answer)
    with pytest.raises(InvalidItem):
        task.validate(ep.model_copy(update={"answer": wrong}))
