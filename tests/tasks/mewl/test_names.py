"""Panel names and identity fields tell nothing (issue 31): a panel is named "<word> #<k>" with k its
position in a uniformly shuffled context, and the audit's names-only and identity probes, which stay at
their floors on sampled episodes, flag the universe-index names of the generator before, and a planted
identity leak."""
from __future__ import annotations

import itertools

import pytest

from mewl_gen.scenes.universe import UNIVERSE_INDEX
from mewl_gen.tasks.audit import BALANCE_P, leaking, uniform_p
from mewl_gen.tasks.mewl.audit import probes
from mewl_gen.tasks.mewl.item import Episode, info_json
from mewl_gen.tasks.mewl.solver import names
from tests.conftest import episodes

BASIC = ("shape", "color", "material")


def universe_named(ep: Episode) -> Episode:
    """The episode as the generator before issue 31 named it: "<word> #<the object's universe index>"."""
    panels = tuple(p.model_copy(update={"name": f"{p.utterance} #{UNIVERSE_INDEX[p.scene.objects[0].properties]}"})
                   for p in ep.context_panels)
    return ep.model_copy(update={"context_panels": panels})


@pytest.mark.parametrize("task", BASIC)
def test_the_names_only_probe_catches_universe_index_names(task):
    found = probes(task, [universe_named(ep) for ep in episodes(task, 200)], None)
    assert found["names-only"].hits == 200, "the old names decode every word"
    assert found["names-only"].leaks and found["names-only learned"].leaks
    assert leaking(found)[:2] == ["names-only above its floor", "names-only learned above its floor"]


def test_the_identity_probe_catches_a_planted_leak():
    """The retry count made to tell the answer's position: a model on the identity fields must find it."""
    planted = [ep.model_copy(update={"retry": ep.answer_index}) for ep in episodes("shape", 200)]
    assert probes("shape", planted, None)["identity learned"].leaks


# shape's learned names-only probe reads about 3 points over its floor: 36.4 % over 2,800 episodes (seeds 0-3, 700
# each) with 0.2.0's words and 36.7 % with 0.3.0's, where seed 0 crosses the 99.9 % band (39.6 %). A known leak to
# find and remove, not yet understood: kept visible here rather than hidden by another seed.
SHAPE_NAMES_LEAK = pytest.mark.xfail(reason="shape's learned names-only probe is about 3 points over 1/3 (open)",
                                     strict=False)


@pytest.mark.slow
@pytest.mark.parametrize("task", [pytest.param(t, marks=SHAPE_NAMES_LEAK) if t == "shape" else t
                                  for t in (*BASIC, "relation")])
def test_names_and_identity_fields_are_at_their_floors(task):
    found = probes(task, list(episodes(task)), None)
    assert set(found) == ({"names-only", "names-only learned"} if task in names.FALLBACK else set()) | {"identity learned"}
    assert not leaking(found), {name: p.cell() for name, p in found.items()}


@pytest.mark.slow
@pytest.mark.parametrize("task", BASIC)
def test_a_words_panels_sit_at_uniform_positions_and_the_query_key_is_the_next_number(task):
    """The answer's two panels over the 15 pairs of positions, uniformly: the order (and with it every
    '#k') is drawn apart from what the panels show."""
    pairs = list(itertools.combinations(range(6), 2))
    seen = []
    for ep in episodes(task):
        assert [p.name for p in ep.context_panels] == [f"{p.utterance} #{k}" for k, p in enumerate(ep.context_panels)]
        seen.append(tuple(k for k, p in enumerate(ep.context_panels) if p.utterance == ep.answer))
        assert f"{ep.answer} #6" in info_json(ep)["objects"]
    assert uniform_p(seen, tuple(pairs)) > BALANCE_P
