"""ICY's validators: every message recomputed from the language; for CONCAT and SHUFDET an episode's answer
derived from its context."""
from __future__ import annotations

import itertools
from typing import Sequence

from mewl_gen.scenes.universe import UNIVERSE, ObjectTuple, describe

from ..validation import check_scene_geometry, require
from .item import IMAGE, TEST_SPLIT, IcyEpisode, Naming
from .language import Language, language
from .sample import fair, teaches


def validate_naming(item: Naming) -> None:
    """Every label recomputed from the language and the scene."""
    lang = language(item.root_seed, item.language)
    require(item.scene.hand is None and len(item.scene.objects) == 1, "an icy-naming image shows one object")
    check_scene_geometry(item.scene, IMAGE)
    require(item.message == lang.messages[item.object], f"{describe(item.object)} is not named {item.message!r}")
    require(item.held_out == lang.held_out(item.object), "held_out disagrees with the language's holdout")
    require(item.held_out == (item.split == TEST_SPLIT), f"a {'held-out' if item.held_out else 'seen'} pair in split {item.split!r}")


def _pair(o: ObjectTuple) -> tuple[str, str]:
    return (o[0], o[1])


def readings(choices: Sequence[str], answer: str, lang: Language, query: ObjectTuple) -> list[list[ObjectTuple]]:
    """The object lists the choices can name, the query (named by `answer`) first, each distractor
    of the query's material and size in another color (more than one only
    where PROJ gives two objects one message)."""
    named = [[o for o in UNIVERSE if lang.messages[o] == c and o[2:] == query[2:] and o[1] != query[1]]
             for c in choices if c != answer]
    return [[query, *combo] for combo in itertools.product(*named)]


def shown_fairly(context: list[ObjectTuple], lang: Language, objects: list[ObjectTuple], split: str) -> bool:
    """The rules of draw_choices and draw_context, on the finished episode."""
    colors = [o[1] for o in context]
    return (fair(objects, lang, split) and not any(map(lang.held_out, context))
            and not {_pair(o) for o in context} & {_pair(o) for o in objects}
            and all(colors.count(c[1]) == 1 for c in objects) and teaches(context, lang, objects))


def validate_episode(ep: IcyEpisode) -> None:
    """Every message recomputed from the language; for CONCAT and SHUFDET the answer derived from the context."""
    lang = language(ep.root_seed, ep.language)
    for name, scene in ep.scenes().items():
        require(scene.hand is None and len(scene.objects) == 1, f"{name!r} must show one object")
        check_scene_geometry(scene, name)
    context = [p.scene.objects[0].properties for p in ep.context_panels]
    query = ep.query.objects[0].properties
    for p, o in zip(ep.context_panels, context):
        require(p.name == p.utterance == lang.messages[o], f"panel {p.name!r} does not utter {describe(o)}'s message")
    require(ep.answer == lang.messages[query], f"the answer is not the message of {describe(query)}")
    require(ep.held_out == lang.held_out(query) == (ep.split == TEST_SPLIT), f"query's pair in the wrong split {ep.split!r}")
    require(any(shown_fairly(context, lang, objects, ep.split) for objects in readings(ep.choices, ep.answer, lang, query)),
            "choices and context break the rules: five colors, each shown once, no choice's or held-out pair "
            "shown, the query's words taught")
