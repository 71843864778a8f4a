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
from mewl_gen.tasks.mewl.explain import words
from mewl_gen.tasks.mewl.item import Episode, info_json, object_names
from mewl_gen.tasks.mewl.solver import names
from tests.conftest import episodes

BASIC = ("shape", "color", "material")


def universe_named(ep: Episode) -> Episode:
    """The episode as the generator before issue 31 named it: "<word> #<the object's universe index>"."""
    panels = tuple(p.model_copy(update={"name": f"{p.utterance} #{UNIVERSE_INDEX[p.scene.objects[0].properties]}"})
                   for p in ep.context_panels)
    return ep.model_copy(update={"context_panels": panels})


@pytest.mark.parametrize("task", BASIC)
@pytest.mark.slow
def test_the_names_only_probe_catches_universe_index_names(task):
    found = probes(task, [universe_named(ep) for ep in episodes(task, 200)], None)
    assert found["names-only"].hits == 200, "the old names decode every word"
    assert found["names-only"].leaks and found["names-only learned"].leaks
    assert leaking(found)[:2] == ["names-only above its floor", "names-only learned above its floor"]


@pytest.mark.slow
def test_the_identity_probe_catches_a_planted_leak():
    """The retry count made to tell the answer's position: a model on the identity fields must find it."""
    planted = [ep.model_copy(update={"retry": ep.answer_index}) for ep in episodes("shape", 200)]
    assert probes("shape", planted, None)["identity learned"].leaks


# The learned probes are fitted on another seed's episodes and scored on these, as the audit fits on
# train and scores val and test: a shortcut must carry over to items the model never saw. Scored by
# two-fold cross-validation within one seed's 700 episodes instead, shape's learned names-only probe
# scattered from 30.7 to 39.6 % over six seeds (0, 1, 10-13), wider than the binomial interval, and seed 0
# crossed it; fitted on seeds 0-1 and scored on 10-13 (2,800 episodes) it read 33.2 %, and two-fold over the
# six seeds pooled (4,200) 33.8-34.2 %: no leak, a fold's chance pattern learned and met again in the other.
@pytest.mark.slow
@pytest.mark.parametrize("task", (*BASIC, "relation"))
def test_names_and_identity_fields_are_at_their_floors(task):
    found = probes(task, list(episodes(task)), list(episodes(task, seed=1)))
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


@pytest.mark.parametrize("task", BASIC)
def test_the_inspector_names_an_object_by_its_word_not_its_key(task):
    """An object's truth name is MEWL's key "<word> #<k>"; the inspector's "words naming it" is the word."""
    for ep in episodes(task, 10):
        for name in ep.scenes():
            for key in filter(None, object_names(ep, name)):
                word = words(key)
                assert key.startswith(f"{word} #") and key.removeprefix(f"{word} #").isdigit() and word in ep.lexicon
    assert (words("red cube"), words("#3"), words("a #b")) == ("red cube", "#3", "a #b")
