"""relation's own rules over 300 seeds, and broken episodes the validator rejects."""
from __future__ import annotations

from collections import Counter

import pytest

from scenes.relations import offsets, true_relations, well_separated
from scenes.universe import OPPOSITE, ORTHOGONAL
from tasks import InvalidEpisode, REGISTRY
from tasks.relation import parse
from tests.conftest import episodes

N = 300


def eps():
    return episodes("relation", N)


def _pair(scene, text):
    a, word, b = parse(scene, text)
    return scene.objects[a], word, scene.objects[b]


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


def test_panels_are_not_grouped_by_word():
    grouped = sum(
        all(ep.context_panels[2 * k].utterance.split()[2] == ep.context_panels[2 * k + 1].utterance.split()[2] for k in range(3))
        for ep in eps()
    )
    assert grouped < N * 0.1  # 1/15 by chance


def test_phrases_name_one_object_and_query_objects_are_new():
    for ep in eps():
        for scene in [p.scene for p in ep.context_panels] + [ep.query]:
            assert len({(o.color, o.shape) for o in scene.objects}) == 3
        seen = {o.properties for p in ep.context_panels for o in p.scene.objects}
        assert not seen & {o.properties for o in ep.query.objects}
        for c in ep.choices:
            a, _, b = parse(ep.query, c)
            assert a is not None and b is not None and a != b


def test_exactly_one_choice_true_and_all_query_pairs_well_separated():
    for ep in eps():
        truths = []
        for c in ep.choices:
            a, word, b = _pair(ep.query, c)
            assert well_separated(ep.query.camera, a, b)
            truths.append(offsets(ep.query.camera, a, b)[ep.lexicon[word]] > 0)
        assert truths.count(True) == 1 and ep.choices[truths.index(True)] == ep.answer


def test_every_statement_role_is_the_answer_equally_often_given_the_text():
    """Roles read from text alone: the word said once among the choices, and
    the pair said twice; each role class answers as often as its size says."""
    hits = Counter()
    for ep in eps():
        words = Counter(c.split()[2] for c in ep.choices)
        said_once = [c for c in ep.choices if words[c.split()[2]] == 1]
        hits["once"] += ep.answer in said_once
    assert abs(hits["once"] / N - 0.2) < 0.08


def _break(ep, **update):
    return ep.model_copy(update=update)


def test_validator_rejects_a_swapped_lexicon():
    ep = eps()[0]
    words = list(ep.lexicon)
    lexicon = dict(ep.lexicon)
    lexicon[words[0]], lexicon[words[1]] = lexicon[words[1]], lexicon[words[0]]
    with pytest.raises(InvalidEpisode):
        REGISTRY["relation"].validate(_break(ep, lexicon=lexicon))


def test_validator_rejects_an_ambiguous_context():
    """Give one word's second panel the same orthogonal relation: the word
    could then mean either direction."""
    ep = eps()[0]
    panels = list(ep.context_panels)
    word = panels[0].utterance.split()[2]
    k = next(i for i, p in enumerate(panels) if i > 0 and p.utterance.split()[2] == word)
    panels[k] = panels[0].model_copy(update={"name": panels[0].name + " #9"})
    with pytest.raises(InvalidEpisode):
        REGISTRY["relation"].validate(_break(ep, context_panels=tuple(panels)))


def test_validator_rejects_a_second_true_choice():
    """Replace a distractor by the answer said the other way round with the
    opposite word: true as well."""
    by_meaning = lambda ep, d: [w for w, m in ep.lexicon.items() if m == d]
    ep = next(e for e in eps() if by_meaning(e, OPPOSITE[e.lexicon[e.answer.split()[2]]]))
    a, word, b = parse(ep.query, ep.answer)
    objs = ep.query.objects
    (opposite,) = by_meaning(ep, OPPOSITE[ep.lexicon[word]])
    twin = f"{objs[b].color} {objs[b].shape} {opposite} {objs[a].color} {objs[a].shape}"
    assert twin not in ep.choices
    choices = tuple(twin if i == (ep.answer_index + 1) % 5 else c for i, c in enumerate(ep.choices))
    with pytest.raises(InvalidEpisode):
        REGISTRY["relation"].validate(_break(ep, choices=choices))
