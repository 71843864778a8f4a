"""pragmatic's own rules over 300 seeds, and broken episodes the validator rejects."""
from __future__ import annotations

import pytest

from scenes import hand as hand_geometry
from scenes.universe import TUPLE_ORDER, attribute_of
from tasks import InvalidEpisode, REGISTRY
from tasks.pragmatic import distinguishing_values
from tests.conftest import episodes

N = 300


def eps():
    return episodes("pragmatic", N)


def _scenes(ep):
    return [(p.utterance, p.scene) for p in ep.context_panels] + [(ep.answer, ep.query)]


def test_base_target_background_construction():
    for ep in eps():
        for word, scene in _scenes(ep):
            value = ep.lexicon[word]
            attr = TUPLE_ORDER.index(attribute_of(value))
            objs = [o.properties for o in scene.objects]
            target = objs[scene.hand.target]
            others = [o for i, o in enumerate(objs) if i != scene.hand.target]
            assert target[attr] == value and all(o[attr] != value for o in others)
            # one of the others is the base (differs from the target only in attr),
            # the other differs from the base in exactly one other attribute
            diffs = [sum(x != y for x, y in zip(o, target)) for o in others]
            base = others[diffs.index(1)]
            background = others[1 - diffs.index(1)]
            changed = [k for k in range(4) if base[k] != background[k]]
            assert len(changed) == 1 and changed[0] != attr
            assert distinguishing_values(scene) == {value}


def test_each_word_taught_once_and_choices_are_taught_words():
    for ep in eps():
        assert sorted(p.utterance for p in ep.context_panels) == sorted(ep.lexicon)
        assert set(ep.choices) < set(ep.lexicon) and len(ep.choices) == 5


def test_the_hand_points_at_the_target():
    for ep in eps():
        for _, scene in _scenes(ep):
            assert hand_geometry.points_at(scene.hand, scene.objects)


def test_validator_rejects_a_wrong_meaning():
    ep = eps()[0]
    w = list(ep.lexicon)
    lexicon = dict(ep.lexicon)
    lexicon[w[0]], lexicon[w[1]] = lexicon[w[1]], lexicon[w[0]]
    with pytest.raises(InvalidEpisode):
        REGISTRY["pragmatic"].validate(ep.model_copy(update={"lexicon": lexicon}))


def test_validator_rejects_a_hand_pointing_elsewhere():
    ep = eps()[0]
    scene = ep.query
    other = (scene.hand.target + 1) % 3
    moved = scene.model_copy(update={"hand": scene.hand.model_copy(update={"target": other})})
    with pytest.raises(InvalidEpisode):
        REGISTRY["pragmatic"].validate(ep.model_copy(update={"query": moved}))


def test_validator_rejects_an_ambiguous_panel():
    """A panel whose pointed object stands out by two values."""
    ep = next(e for e in eps() if attribute_of(e.lexicon[e.context_panels[0].utterance]) != "color")
    p = ep.context_panels[0]
    t = p.scene.hand.target
    objs = list(p.scene.objects)
    target = objs[t]
    # recolour every other object: the target now stands out by colour too
    new_color = "gray" if target.color != "gray" else "red"
    objs = [o if i == t else o.model_copy(update={"color": new_color}) for i, o in enumerate(objs)]
    panels = (p.model_copy(update={"scene": p.scene.model_copy(update={"objects": tuple(objs)})}), *ep.context_panels[1:])
    with pytest.raises(InvalidEpisode):
        REGISTRY["pragmatic"].validate(ep.model_copy(update={"context_panels": panels}))
