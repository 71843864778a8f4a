"""pragmatic's own rules over 300 seeds, broken episodes the validator rejects,
and the deprived solvers: without the query's hand, without the context, and
without the query image."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.pointing import pointing_hand
from mewl_gen.scenes.universe import COLORS, TUPLE_ORDER, attribute_of
from mewl_gen.tasks import catalog
from mewl_gen.tasks.audit import Probe
from mewl_gen.tasks.item import Panel
from mewl_gen.tasks.mewl.audit import failures, rates
from mewl_gen.tasks.mewl.item import Episode
from mewl_gen.tasks.mewl.sample.pragmatic import ALL_VALUES, NON_COLORS, distinguishing_values, teaching_scene
from mewl_gen.tasks.mewl.solver import SOLVERS, deprived, pragmatic as solver
from mewl_gen.tasks.mewl.sample.words import pseudo_words
from mewl_gen.tasks.sampling import choices_with_answer, shuffled
from mewl_gen.tasks.validation import InvalidItem
from tests.conftest import EPISODES_PER_TASK, FEW, episodes

N = 300


def eps(n: int = N):
    return episodes("pragmatic", n)


def _scenes(ep):
    return [(p.utterance, p.scene) for p in ep.context_panels] + [(ep.answer, ep.query)]


@pytest.mark.slow
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


@pytest.mark.slow
def test_each_word_taught_once_and_choices_are_taught_words():
    for ep in eps():
        assert sorted(p.utterance for p in ep.context_panels) == sorted(ep.lexicon)
        assert set(ep.choices) < set(ep.lexicon) and len(ep.choices) == 5


@pytest.mark.slow
def test_the_hand_points_at_the_target():
    for ep in eps():
        for _, scene in _scenes(ep):
            assert hand_geometry.points_at(scene.hand, scene.objects)


@pytest.mark.slow
def test_validator_rejects_a_wrong_meaning():
    ep = eps(FEW)[0]
    w = list(ep.lexicon)
    lexicon = dict(ep.lexicon)
    lexicon[w[0]], lexicon[w[1]] = lexicon[w[1]], lexicon[w[0]]
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"lexicon": lexicon}))


@pytest.mark.slow
def test_validator_rejects_a_hand_pointing_elsewhere():
    ep = eps(FEW)[0]
    scene = ep.query
    other = (scene.hand.target + 1) % 3
    moved = scene.model_copy(update={"hand": scene.hand.model_copy(update={"target": other})})
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"query": moved}))


@pytest.mark.slow
def test_validator_rejects_an_ambiguous_panel():
    """A panel whose pointed object stands out by two values."""
    ep = next(e for e in eps(FEW) if attribute_of(e.lexicon[e.context_panels[0].utterance]) != "color")
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


# The hand is needed: the deprived solvers of tasks/mewl/solver/pragmatic.py on
# the episodes every test of the task shares (exact solvers learn nothing from them).
DEPRIVED_N = EPISODES_PER_TASK
Z_999 = 3.29  # two-sided 99.9 % normal quantile


def within_chance(hits: int, n: int, chance: float) -> bool:
    return abs(hits / n - chance) <= Z_999 * math.sqrt(chance * (1 - chance) / n)


def deprived_eps():
    """(the episode as a solver sees it, the episode with its answer key)."""
    return [(ep.model_copy(update={"lexicon": {}}), ep) for ep in episodes("pragmatic", DEPRIVED_N)]


@pytest.mark.slow
def test_without_the_hand_two_objects_stand_out_by_offered_words():
    for ep in eps():
        values = {ep.lexicon[c] for c in ep.choices}
        out = [(i, vals) for i, vals in enumerate(solver.standing_out(ep.query)) if vals]
        assert len(out) == 2 and all(len(vals) == 1 and vals[0] in values for _, vals in out)
        assert ep.query.hand.target in {i for i, _ in out}


@pytest.mark.slow
@pytest.mark.parametrize("prior", [True, False])
@pytest.mark.parametrize("tie_break", ["random", "nearest"])
def test_no_hand_solver_is_at_its_analytic_chance(tie_break, prior):
    rng = np.random.default_rng(3)
    hits = sum(solver.no_hand_guess(blind, rng, tie_break, prior) == ep.answer for blind, ep in deprived_eps())
    print(f"no-hand (prior {prior}, {tie_break} ties): {hits / DEPRIVED_N:.3f}")
    assert within_chance(hits, DEPRIVED_N, solver.NO_HAND_CHANCE)


@pytest.mark.slow
def test_without_the_context_hands_the_answer_stays_a_coin_toss():
    rng = np.random.default_rng(5)
    hits = sum(solver.no_context_hand_guess(blind, rng) == ep.answer for blind, ep in deprived_eps())
    print(f"no context hands: {hits / DEPRIVED_N:.3f}")
    assert within_chance(hits, DEPRIVED_N, solver.NO_CONTEXT_HAND_CHANCE)


@pytest.mark.slow
def test_query_only_solver_is_at_chance():
    rng = np.random.default_rng(4)
    hits = sum(solver.query_only_guess(blind, rng) == ep.answer for blind, ep in deprived_eps())
    assert within_chance(hits, DEPRIVED_N, solver.QUERY_ONLY_CHANCE)


@pytest.mark.slow
def test_the_pointed_object_is_not_nearest_the_camera_more_than_any_other():
    scenes = [s for _, ep in deprived_eps() for s in (ep.query, *(p.scene for p in ep.context_panels))]
    hits = sum(solver.pointed_is_nearest(s) for s in scenes)
    assert within_chance(hits, len(scenes), 1 / 3)


@pytest.mark.slow
def test_every_object_of_a_scene_could_have_been_pointed_at():
    for ep in eps(FEW):
        for _, scene in _scenes(ep):
            for i in range(len(scene.objects)):
                hand = pointing_hand(scene.model_copy(update={"hand": None}), i)
                assert hand is not None and hand_geometry.points_at(hand, scene.objects)
            assert pointing_hand(scene, scene.hand.target) == scene.hand


def test_validator_rejects_a_query_the_hand_is_not_needed_for():
    """The background's value left out of the choices: only the target stands out by an offered word."""
    ep = eps(FEW)[0]
    background = next(i for i, vals in enumerate(solver.standing_out(ep.query)) if vals and i != ep.query.hand.target)
    word = next(w for w, v in ep.lexicon.items() if v in solver.standing_out(ep.query)[background])
    spare = next(w for w in ep.lexicon if w not in ep.choices)
    choices = tuple(spare if c == word else c for c in ep.choices)
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(ep.model_copy(update={"choices": choices}))


# Without the query image: the context (its hands included) and the choices.
@pytest.mark.slow
def test_every_word_has_a_mirrored_partner_and_the_answer_one_offered():
    for ep in eps():
        pairs = [frozenset(v for vals in solver.standing_out(p.scene) for v in vals) for p in ep.context_panels]
        assert all(pairs.count(s) == 2 for s in pairs)
        assert ep.answer in solver.mirrored(ep) and len(solver.mirrored(ep)) == 4


def _candidates(panels) -> list[str]:
    """Offered panels (target value, background value): the targets some other
    panel also shows, the only ones the rules let be the answer."""
    return [t for k, (t, _) in enumerate(panels) if any(t in other for j, other in enumerate(panels) if j != k)]


@pytest.mark.slow
def test_no_context_lets_more_than_two_offered_colors_be_the_answer():
    """The floor without the query image, by enumeration. Without the context's
    hands the query's value must be shown by a second offered panel (else the
    context alone names the answer: the rule behind no-context-hand 1/2), so
    only such a value can be the answer. Target and background differ in one
    attribute, so a panel shows one color at most, and a color that can be the
    answer takes two of the five offered panels: two colors at most. Checked
    here over every context of five offered panels in a universe of three
    colors and one value of each other attribute (every kind of panel occurs).
    Half the answers are colors (the query value is balanced over 16 values,
    8 of them colors), and a solver shown the context picks among at most two
    colors, so it scores at least 1/2 * 1/2: 1/4, which the sampler reaches."""
    values = ("c1", "c2", "c3", "size", "material", "shape")
    kind = {v: "color" if v.startswith("c") else v for v in values}
    most = 0
    for targets in itertools.combinations(values, 5):
        backgrounds = [[b for b in values if kind[b] != kind[t]] for t in targets]
        for chosen in itertools.product(*backgrounds):
            colors = [t for t in _candidates(list(zip(targets, chosen))) if kind[t] == "color"]
            most = max(most, len(colors))
    assert most == 2
    assert solver.NO_QUERY_CHANCE == 1 / 4


@pytest.mark.slow
def test_no_query_solver_is_at_its_floor():
    rng = np.random.default_rng(6)
    hits = sum(solver.no_query_guess(deprived.view(ep, deprived.NO_QUERY), rng) == ep.answer for _, ep in deprived_eps())
    print(f"no-query: {hits / DEPRIVED_N:.3f}")
    assert within_chance(hits, DEPRIVED_N, solver.NO_QUERY_CHANCE)


def _old_construction(rng: np.random.Generator, index: int) -> Episode:
    """An episode as the sampler drew them before issue 31: only the answer
    and its partner mirror each other; every other word's background is a
    random value across the color / other divide."""
    def partner_of(value):
        pool = NON_COLORS if value in COLORS else COLORS
        return pool[rng.integers(len(pool))]

    asked = ALL_VALUES[rng.integers(len(ALL_VALUES))]
    partner = partner_of(asked)
    rest = [v for v in ALL_VALUES if v not in (asked, partner)]
    values = [asked, partner, *(rest[i] for i in rng.choice(len(rest), 4, replace=False))]
    words = pseudo_words(rng, 6, syllables=2)
    lexicon = dict(zip(words, shuffled(rng, values)))
    word_for = {v: w for w, v in lexicon.items()}
    mutual = {asked: partner, partner: asked}
    context = tuple(Panel(name=w, utterance=w, scene=teaching_scene(rng, lexicon[w], mutual.get(lexicon[w]) or partner_of(lexicon[w])))
                    for w in shuffled(rng, words))
    others = [w for w in words if w not in (word_for[asked], word_for[partner])]
    kept = [others[i] for i in sorted(rng.choice(4, 3, replace=False))]
    choices, answer = choices_with_answer(rng, word_for[asked], [word_for[partner], *kept])
    return Episode(task="pragmatic", split="train", index=index, root_seed=0, retry=0, lexicon=lexicon,
                   context_panels=context, query=teaching_scene(rng, asked, partner), choices=choices, answer=answer)


def _no_query_probe(episodes) -> Probe:
    rng = np.random.default_rng(8)
    no_query = SOLVERS["pragmatic"].deprived[deprived.NO_QUERY]
    hits = sum(no_query.guess(deprived.view(ep, deprived.NO_QUERY), rng) == ep.answer for ep in episodes)
    return Probe(hits, len(episodes), no_query.floor)


# Old-construction episodes: enough that the audit's no-query solver, drawing its own guesses, leaves the 99.9 %
# band of its floor as the probe here does, with no learned fit (the readings at 100 and 150 are in the commit
# that set this).
OLD_EPISODES = 150


@pytest.mark.slow
def test_the_no_query_probe_flags_the_old_construction_and_passes_the_new():
    rng = np.random.default_rng(31)
    old = [_old_construction(rng, i) for i in range(OLD_EPISODES)]
    assert _no_query_probe(old).leaks, _no_query_probe(old).cell()
    assert "no-query above chance" in failures(rates("pragmatic", old, None))  # the audit's row says so too
    with pytest.raises(InvalidItem):
        catalog.task("pragmatic").validate(old[0])
    assert not _no_query_probe([ep for _, ep in deprived_eps()]).leaks
