"""pragmatic: a word means what sets the pointed-at object apart."""
from __future__ import annotations

from scenes.spec import Episode, SceneSpec
from scenes.universe import ATTRIBUTES, TUPLE_ORDER

# Every word is taught once and five of the six are offered: 1/5.
CHANCE = 1 / 5
VALUES = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])


def _unique_to_pointed(scene: SceneSpec) -> list[str]:
    target = scene.objects[scene.hand.target]
    return [
        v for v in target.properties
        if sum(v in o.properties for o in scene.objects) == 1
    ]


def solve(ep: Episode) -> str:
    taught = {}
    for p in ep.context_panels:
        (value,) = _unique_to_pointed(p.scene)
        taught[value] = p.utterance
    (value,) = _unique_to_pointed(ep.query)
    return taught[value]


def text_only_guess(ep: Episode, rng) -> str:
    """Nothing in the text ties a word to the query: any taught word."""
    heard = [c for c in ep.choices if c in {p.utterance for p in ep.context_panels}]
    return heard[rng.integers(len(heard))]


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    values = [_unique_to_pointed(p.scene)[0] for p in ep.context_panels]
    return {
        "value": (values, VALUES),
        "query value": (_unique_to_pointed(ep.query), VALUES),
        "pointed index": ([p.scene.hand.target for p in ep.context_panels] + [ep.query.hand.target], (0, 1, 2)),
    }
