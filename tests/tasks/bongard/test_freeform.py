"""Bongard free-form figures (programs followed up to rotation, scale and order; one key per figure; the
two programs of a problem drawn alike; test figures held out), sampled free-form problems, and the
deprived probes of the audit, each shown to catch a planted leak: the examples-withheld classifier finds
the old construction (a regular figure against one perturbed) and passes the new one."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.scenes.image_truth import geometric_truth
from mewl_gen.tasks.audit import Probe
from mewl_gen.tasks.bongard import arrangements, freeform
from mewl_gen.tasks.bongard.audit import labels, points
from mewl_gen.tasks.bongard.probes import geometry, names_hits, pooled_hits
from tests.chance import assert_at_chance
from tests.tasks.bongard.test_sample import FIGURES, problems


def _moved(points, turn: float, scale: float, shift=(0.3, -0.2), order=None):
    z = [complex(x, y) * scale * complex(np.cos(np.radians(turn)), np.sin(np.radians(turn))) for x, y in points]
    z = [z[k] for k in (order or range(len(z)))]
    return [(w.real + shift[0], w.imag + shift[1]) for w in z]


def test_a_figure_is_followed_up_to_rotation_scale_and_order_but_not_mirroring():
    program = "+30 -90 +0"
    figure = arrangements.trace(arrangements.decode(program))
    assert arrangements.follows(_moved(figure, 77.0, 1.4, order=[3, 0, 4, 1, 2]), program)
    assert not arrangements.follows(arrangements.mirrored(figure), program)
    assert not arrangements.follows(arrangements.trace((30, -30, 0)), program)  # one turn changed by 60
    assert not arrangements.follows(figure[:-1], program)  # an object fewer
    assert arrangements.read(_moved(figure, 200.0, 1.5)) == arrangements.encode(arrangements.canonical((30, -90, 0)))
    assert arrangements.read(arrangements.trace((30, -90, 0), step=1.0)[:2] + [(5.0, 5.0)]) is None


def test_a_figure_has_one_key_however_it_is_drawn():
    turns = (30, -90, 0, 60)
    keys = {arrangements.figure_key(t) for t in (turns, arrangements.reverse(turns), tuple(-t for t in turns))}
    assert len(keys) == 1 and arrangements.figure_key((30, -90, 0, 90)) not in keys
    assert arrangements.canonical(turns) == arrangements.canonical(arrangements.reverse(turns))


@pytest.mark.slow
def test_the_two_programs_of_a_problem_are_drawn_alike():
    """Which program is the concept is a coin: a figure's shape says nothing of its side."""
    rng = np.random.default_rng(7)
    pairs = [freeform.programs(rng, "train") for _ in range(400)]
    span = [[np.ptp(np.array(arrangements.trace(t)), axis=0).prod() for t in pair] for pair in pairs]
    wider = sum(a > b for a, b in span) / sum(a != b for a, b in span)
    assert_at_chance(wider, sum(a != b for a, b in span), 0.5, "the concept's figure the wider one")
    assert all(len(a) == len(b) and arrangements.distinct(a, b) for a, b in pairs)
    assert len({a for a, _ in pairs}) > 300  # many concepts, rarely one twice


def test_test_figures_are_held_out_of_every_other_split():
    rng = np.random.default_rng(3)
    for split, held in (("train", False), ("val", False), ("test", True)):
        for _ in range(40):
            for turns in freeform.programs(rng, split):
                assert arrangements.held_out(turns, freeform.HELD_OUT) == held, (split, turns)


@pytest.mark.slow
def test_freeform_negatives_are_another_program_of_the_same_size():
    for item in problems("bongard-freeform"):
        program = item.concept.args[0]
        pos_test, neg_test = item.tests if item.test_positive[0] else item.tests[::-1]
        figures = [[o.position for o in s.objects] for s in item.positives + (pos_test,)]
        others = [[o.position for o in s.objects] for s in item.negatives + (neg_test,)]
        assert all(arrangements.follows(f, program) for f in figures)
        other = arrangements.read(others[0])
        assert other is not None and other != program and all(arrangements.follows(f, other) for f in others)
        assert {len(f) for f in figures + others} == {len(arrangements.decode(program)) + 2}
        assert {o.size for s in item.scenes().values() for o in s.objects} == {"small"}
    assert len({item.concept for item in problems("bongard-freeform")}) >= FIGURES - 2



# -- the deprived probes catch planted leaks -------------------------------------

def _geometry(item, move=None):
    """Each panel's geometry summaries; `move` changes the points of the negatives (a planted leak)."""
    record = item.model_dump(mode="json")
    side = labels(record)
    out = {}
    for name, spec in item.scenes().items():
        p = points(geometric_truth(spec))
        out[name] = geometry(p if move is None or side[name] else move(p))
    return out, side


@pytest.mark.slow
def test_examples_withheld_finds_the_old_construction_and_passes_the_new():
    """The old freeform negative was a regular figure with one action perturbed; here one object moved off
    the figure by 0.7 steps stands for it: a classifier that never sees the problem's examples finds it."""
    items = problems("bongard-freeform")

    def perturbed(p):
        return [(x + 0.7, y) if k == 1 else (x, y) for k, (x, y) in enumerate(p)]

    new = pooled_hits(*zip(*[_geometry(item) for item in items]))
    old = pooled_hits(*zip(*[_geometry(item, perturbed) for item in items]))
    assert Probe(int(old.sum()), len(old), 0.5).leaks, old.mean()
    assert not Probe(int(new.sum()), len(new), 0.5).leaks, new.mean()


def test_names_only_finds_a_fixed_order_and_passes_a_coin():
    coin = [bool(x) for x in np.random.default_rng(1).integers(2, size=200)]
    fixed = names_hits([("pos_6", "neg_6")] * 200, [True] * 200)
    fair = names_hits([("test_a", "test_b")] * 200, coin)
    assert Probe(int(fixed.sum()), 200, 0.5).leaks and not Probe(int(fair.sum()), 200, 0.5).leaks
