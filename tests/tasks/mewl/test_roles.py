"""MEWL's marker scan (tasks.mewl.roles): each role is the object its construction placed, the scan flags a
marker planted on sampled episodes (their scenes edited here, not by the sampler: the test holds whatever the
samplers become), and the samplers' own episodes pass."""
from __future__ import annotations

from typing import Callable

import pytest

from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLORS, TUPLE_ORDER
from mewl_gen.tasks.audit.markers import object_statistics
from mewl_gen.tasks.mewl.item import TASKS, Episode
from mewl_gen.tasks.mewl.roles import ROLES, roles, scanned
from mewl_gen.tasks.mewl.sample.relation import parse
from tests.conftest import FEW, episodes

NAMES = {"shape": {"answer's panels"}, "color": {"answer's panels"}, "material": {"answer's panels"},
         "composite": {"answer's panels"}, "number": {"answer's panel"},
         "relation": {"answer's objects", "a panel's stated"}, "bootstrap": {"query's named", "a panel's named"},
         "pragmatic": {"query's pointed", "a panel's pointed"}, "object": set()}


def restyled(scene: SceneSpec, change: Callable[[int], dict[str, str]]) -> SceneSpec:
    """The scene with object k's attributes updated by change(k)."""
    return scene.model_copy(update={"objects": tuple(o.model_copy(update=change(k)) for k, o in enumerate(scene.objects))})


def panels_restyled(ep: Episode, which: Callable[[str], bool], change: dict[str, str]) -> Episode:
    """Every object of the panels whose utterance is `which` given `change`."""
    panels = tuple(p.model_copy(update={"scene": restyled(p.scene, lambda k: change)}) if which(p.utterance) else p
                   for p in ep.context_panels)
    return ep.model_copy(update={"context_panels": panels})


def pointed_alone_in_its_color(ep: Episode) -> Episode:
    """The query's pointed object the only one of its color (the issue's example)."""
    q = ep.query
    spare = next(c for c in COLORS if all(o.color != c for o in q.objects))
    return ep.model_copy(update={"query": restyled(q, lambda k: {"color": spare} if k == q.hand.target else {})})


def answer_large(ep: Episode) -> Episode:
    """The answer's two objects large, the query's third small (a phrase names color and shape only)."""
    a, _, b = parse(ep.query, ep.answer)
    return ep.model_copy(update={"query": restyled(ep.query, lambda k: {"size": "large" if k in (a, b) else "small"})})


def distractor_small(ep: Episode) -> Episode:
    named = {tuple(o) for o in ep.lexicon.values()}
    return ep.model_copy(update={"query": restyled(ep.query, lambda k: {} if ep.query.objects[k].properties in named
                                                   else {"size": "small"})})


PLANTED = {  # task: (the plant, the statistic it marks)
    "pragmatic": (pointed_alone_in_its_color, "query's pointed: color unique"),
    "relation": (answer_large, "answer's objects: size"),
    "bootstrap": (distractor_small, "query's named: size"),
    "color": (lambda ep: panels_restyled(ep, lambda u: u == ep.answer, {"size": "large"}), "answer's panels: size"),
    "composite": (lambda ep: panels_restyled(ep, lambda u: bool(set(u.split()) & set(ep.answer.split())),
                                             {"size": "large"}), "answer's panels: size"),
    "number": (lambda ep: panels_restyled(ep, lambda u: u == ep.answer, {"material": "metal"}),
               "answer's panel: material"),
}


def scan_of(eps) -> object:
    pairs: dict[str, list] = {}
    for ep in eps:
        for name, pair in roles(ep).items():
            pairs.setdefault(name, []).append(pair)
    return scanned(pairs)


@pytest.mark.parametrize("task", TASKS)
def test_every_episode_shows_its_tasks_roles(task):
    assert set(ROLES) == set(TASKS) - {"object"}
    for ep in episodes(task, FEW):
        assert set(roles(ep)) == NAMES[task]


def test_pragmatics_role_is_the_pointed_object_and_its_pool_the_background():
    for ep in episodes("pragmatic", FEW):
        rows = object_statistics([{a: getattr(o, a) for a in TUPLE_ORDER} for o in ep.query.objects], TUPLE_ORDER)
        role, pool = roles(ep)["query's pointed"]
        assert role == rows[ep.query.hand.target]
        assert pool != role and pool in rows and sum(pool[f"{a} unique"] for a in TUPLE_ORDER) == 1


@pytest.mark.slow
@pytest.mark.parametrize("task", PLANTED)
def test_the_scan_flags_a_planted_marker(task):
    plant, statistic = PLANTED[task]
    found = scan_of(plant(ep) for ep in episodes(task))
    print(task, found.cell(), found.flagged[:3])
    assert statistic in found.flagged


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_the_samplers_roles_pass(task):
    found = scan_of(episodes(task))
    print(task, found.cell())
    assert not found.flagged
    assert found.n == ((len(episodes(task)),) * 2 if NAMES[task] else (0, 0))
