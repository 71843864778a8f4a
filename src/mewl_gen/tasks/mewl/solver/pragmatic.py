"""pragmatic: a word means what sets the pointed-at object apart.

Besides the independent solver, four deprived solvers, each the best a
solver without one ingredient can do under the task's rules (exact
enumerations): `no_hand_guess` loses the query's hand,
`no_context_hand_guess` the context panels' hands, `query_only_guess` the
context, `no_query_guess` the query image.
"""
from __future__ import annotations

import itertools

import numpy as np

from mewl_gen.scenes.camera import project
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, attribute_of

from ..item import Episode

# Every word is taught once and five of the six are offered: 1/5.
CHANCE = 1 / 5
# Without the query's hand two of the three objects stand out by offered
# taught words, each equally likely to be the pointed one (tasks/mewl/sample/pragmatic.py).
NO_HAND_CHANCE = 1 / 2
# Without the panels' hands the query's two words' panels show the same pair
# of values, either way round.
NO_CONTEXT_HAND_CHANCE = 1 / 2
QUERY_ONLY_CHANCE = 1 / 5
# Without the query image: the answer is one of the offered words whose panel
# shows the same two values as another offered word's panel, and a color in
# half of all episodes; a color can be such a word for at most two of the
# five offered (docs/tasks.md has the proof, the tests its enumeration).
NO_QUERY_CHANCE = 1 / 4
VALUES = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])


def standing_out(scene: SceneSpec) -> list[list[str]]:
    """Per object, the values no other object of the scene has."""
    props = [o.properties for o in scene.objects]
    return [[v for v in p if sum(v in q for q in props) == 1] for p in props]


def _unique_to_pointed(scene: SceneSpec) -> list[str]:
    return standing_out(scene)[scene.hand.target]


def taught_words(ep: Episode) -> dict[str, str]:
    """value -> word, read off the context panels (their hands included)."""
    taught = {}
    for p in ep.context_panels:
        (value,) = _unique_to_pointed(p.scene)
        taught[value] = p.utterance
    return taught


def solve(ep: Episode) -> str:
    return taught_words(ep)[_unique_to_pointed(ep.query)[0]]


def _depth(scene: SceneSpec, i: int) -> float:
    return float(project(scene.camera, [scene.objects[i].center])[0, 2])


def no_hand_guess(ep: Episode, rng: np.random.Generator, tie_break: str = "random", prior: bool = True) -> str:
    """The query without its hand, the context with everything.

    A candidate is an offered word whose value is the one value setting some
    object apart: only such an object can be the pointed one. Under the
    paper's construction with uniform draws (base, target, background with
    one other attribute changed) a candidate whose attribute has k values is
    k/k' times as likely as one whose attribute has k' (the base must avoid
    the target's value, the background's change is one of k' - 1), so with
    `prior` the guess keeps the most likely candidates; it then breaks ties
    at random or by the object nearest the camera.
    """
    taught = taught_words(ep)
    candidates = [
        (len(ATTRIBUTES[attribute_of(vals[0])]) if prior else 1, i, taught[vals[0]])
        for i, vals in enumerate(standing_out(ep.query))
        if len(vals) == 1 and taught.get(vals[0]) in ep.choices
    ]
    if not candidates:
        return ep.choices[rng.integers(len(ep.choices))]
    best = max(k for k, _, _ in candidates)
    tied = [(i, w) for k, i, w in candidates if k == best]
    if tie_break == "nearest":
        return min(tied, key=lambda t: _depth(ep.query, t[0]))[1]
    return tied[rng.integers(len(tied))][1]


def no_context_hand_guess(ep: Episode, rng: np.random.Generator) -> str:
    """The query with its hand, the context panels without theirs.

    Each word means one of the values setting an object of its panel apart;
    over every injective such lexicon under which exactly one choice names
    the pointed value, the guess takes the choice named most often.
    """
    options = {p.utterance: [v[0] for v in standing_out(p.scene) if len(v) == 1] for p in ep.context_panels}
    (pointed,) = _unique_to_pointed(ep.query)
    votes = dict.fromkeys(ep.choices, 0)
    for meanings in itertools.product(*options.values()):
        if len(set(meanings)) < len(meanings):
            continue
        lexicon = dict(zip(options, meanings))
        true = [c for c in ep.choices if lexicon[c] == pointed]
        if len(true) == 1:
            votes[true[0]] += 1
    best = max(votes.values())
    tied = [c for c in ep.choices if votes[c] == best]
    return tied[rng.integers(len(tied))]


def query_only_guess(ep: Episode, rng: np.random.Generator) -> str:
    """The query with its hand and the choices, no context.

    The hand shows which value is named, but without the context every
    injective word -> value map is equally likely, and each of the five
    choices is the pointed value's word under the same number of them: all
    choices tie, so the best guess is any one.
    """
    return ep.choices[rng.integers(len(ep.choices))]


def mirrored(ep: Episode) -> list[str]:
    """The offered words whose panel shows the same two standing-out values
    (read without the hands) as another offered word's panel."""
    shown = {p.utterance: frozenset(v for vals in standing_out(p.scene) for v in vals) for p in ep.context_panels}
    return [c for c in ep.choices if any(d != c and shown[d] == shown[c] for d in ep.choices)]


def no_query_guess(ep: Episode, rng: np.random.Generator) -> str:
    """The context (hands included) and the choices, no query image.

    The query repeats the answer's panel (its value, its partner's as the
    background), and the partner is offered with a panel showing the same
    pair: so the answer is a mirrored offered word. When the context mirrors
    only the answer's pair (the construction before issue 31) this is a coin
    toss between two words; with three mirrored pairs, one broken by the
    word left out of the choices, it is one of four.
    """
    pool = mirrored(ep) or list(ep.choices)
    return pool[rng.integers(len(pool))]


def text_only_guess(ep: Episode, rng) -> str:
    """Nothing in the text ties a word to the query: any taught word."""
    heard = [c for c in ep.choices if c in {p.utterance for p in ep.context_panels}]
    return heard[rng.integers(len(heard))]


def pointed_is_nearest(scene: SceneSpec) -> bool:
    depths = [_depth(scene, i) for i in range(len(scene.objects))]
    return int(np.argmin(depths)) == scene.hand.target


ROLES = ("target", "background", "base")


def nearest_role(scene: SceneSpec) -> str:
    """Which of the paper's three objects is nearest the camera: the pointed
    target, the other object that stands out, or the base (none)."""
    i = min(range(len(scene.objects)), key=lambda k: _depth(scene, k))
    return "target" if i == scene.hand.target else "background" if standing_out(scene)[i] else "base"


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    values = [_unique_to_pointed(p.scene)[0] for p in ep.context_panels]
    scenes = [p.scene for p in ep.context_panels] + [ep.query]
    background = [v for i, vals in enumerate(standing_out(ep.query)) if i != ep.query.hand.target for v in vals]
    return {
        "value": (values, VALUES),
        "query value": (_unique_to_pointed(ep.query), VALUES),
        "query background value": (background, VALUES),
        "pointed index": ([s.hand.target for s in scenes], (0, 1, 2)),
        "object nearest the camera": ([nearest_role(s) for s in scenes], ROLES),
    }
