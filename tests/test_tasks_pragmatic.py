"""pragmatic's own rules over 300 seeds, broken episodes the validator rejects,
and the deprived solvers: without the query's hand or without the context."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tasks.mewl.solvers import pragmatic as solver
from scenes import hand as hand_geometry
from scenes.pointing import pointing_hand
from scenes.universe import TUPLE_ORDER, attribute_of
from tasks import catalog
from tasks.validation import InvalidItem
from tasks.mewl.pragmatic import distinguishing_values
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
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"lexicon": lexicon}))


def test_validator_rejects_a_hand_pointing_elsewhere():
    ep = eps()[0]
    scene = ep.query
    other = (scene.hand.target + 1) % 3
    moved = scene.model_copy(update={"hand": scene.hand.model_copy(update={"target": other})})
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"query": moved}))


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
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"context_panels": panels}))


# The hand is needed: the deprived solvers of tasks/mewl/solvers/pragmatic.py on
# the 1,000 episodes every test of the task shares (exact solvers learn nothing from them).
DEPRIVED_N = 1000
Z_999 = 3.29  # two-sided 99.9 % normal quantile


def within_chance(hits: int, n: int, chance: float) -> bool:
    return abs(hits / n - chance) <= Z_999 * math.sqrt(chance * (1 - chance) / n)


def deprived_eps():
    """(the episode as a solver sees it, the episode with its answer key)."""
    return [(ep.model_copy(update={"lexicon": {}}), ep) for ep in episodes("pragmatic", DEPRIVED_N)]


def test_without_the_hand_two_objects_stand_out_by_offered_words():
    for ep in eps():
        values = {ep.lexicon[c] for c in ep.choices}
        out = [(i, vals) for i, vals in enumerate(solver.standing_out(ep.query)) if vals]
        assert len(out) == 2 and all(len(vals) == 1 and vals[0] in values for _, vals in out)
        assert ep.query.hand.target in {i for i, _ in out}


@pytest.mark.parametrize("prior", [True, False])
@pytest.mark.parametrize("tie_break", ["random", "nearest"])
def test_no_hand_solver_is_at_its_analytic_chance(tie_break, prior):
    rng = np.random.default_rng(3)
    hits = sum(solver.no_hand_guess(blind, rng, tie_break, prior) == ep.answer for blind, ep in deprived_eps())
    print(f"no-hand (prior {prior}, {tie_break} ties): {hits / DEPRIVED_N:.3f}")
    assert within_chance(hits, DEPRIVED_N, solver.NO_HAND_CHANCE)


def test_without_the_context_hands_the_answer_stays_a_coin_toss():
    rng = np.random.default_rng(5)
    hits = sum(solver.no_context_hand_guess(blind, rng) == ep.answer for blind, ep in deprived_eps())
    print(f"no context hands: {hits / DEPRIVED_N:.3f}")
    assert within_chance(hits, DEPRIVED_N, solver.NO_CONTEXT_HAND_CHANCE)


def test_query_only_solver_is_at_chance():
    rng = np.random.default_rng(4)
    hits = sum(solver.query_only_guess(blind, rng) == ep.answer for blind, ep in deprived_eps())
    assert within_chance(hits, DEPRIVED_N, solver.QUERY_ONLY_CHANCE)


def test_the_pointed_object_is_not_nearest_the_camera_more_than_any_other():
    scenes = [s for _, ep in deprived_eps() for s in (ep.query, *(p.scene for p in ep.context_panels))]
    hits = sum(solver.pointed_is_nearest(s) for s in scenes)
    assert within_chance(hits, len(scenes), 1 / 3)


def test_every_object_of_a_scene_could_have_been_pointed_at():
    for ep in eps()[:50]:
        for _, scene in _scenes(ep):
            for i in range(len(scene.objects)):
                hand = pointing_hand(scene.model_copy(update={"hand": None}), i)
                assert hand is not None and hand_geometry.points_at(hand, scene.objects)
            assert pointing_hand(scene, scene.hand.target) == scene.hand


def test_validator_rejects_a_query_the_hand_is_not_needed_for():
    """The background's value left out of the choices: only the target stands out by an offered word."""
    ep = eps()[0]
    background = next(i for i, vals in enumerate(solver.standing_out(ep.query)) if vals and i != ep.query.hand.target)
    word = next(w for w, v in ep.lexicon.items() if v in solver.standing_out(ep.query)[background])
    spare = next(w for w in ep.lexicon if w not in ep.choices)
    choices = tuple(spare if c == word else c for c in ep.choices)
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"choices": choices}))
