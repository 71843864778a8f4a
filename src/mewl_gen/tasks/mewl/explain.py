"""Why an episode's answer is its answer, from its episode.json: the panels that utter each choice's words
with the meaning the lexicon gives them, and what the query shows; and its objects' roles (the pointed
object, and in a scene with a hand the other objects that stand out by a value of their own, which the
task builds to be taken for it: distractors)."""
from __future__ import annotations

from mewl_gen.scenes.universe import describe

from ..gallery import DISTRACTOR, marked_roles
from ..stored import StoredItem
from .item import Episode
from .roles import _standing_out


def _meaning(concept) -> str:
    return describe(concept) if isinstance(concept, tuple) else str(concept)


def why(stored: StoredItem) -> tuple[str, ...]:
    ep = stored.item()
    lines = []
    for word in dict.fromkeys(w for choice in ep.choices for w in choice.split() if w in ep.lexicon):
        panels = [p.name for p in ep.context_panels if word in p.utterance.split()]
        heard = f"uttered in panel(s) {', '.join(repr(p) for p in panels)}" if panels else "uttered in no panel"
        lines.append(f"{word!r} means {_meaning(ep.lexicon[word])}: {heard}.")
    shown = ", ".join(describe(o.properties) for o in ep.query.objects)
    pointed = f"; the hand points at #{ep.query.hand.target}" if ep.query.hand is not None else ""
    lines.append(f"The query shows {shown}{pointed}.")
    lines.append(f"Of the choices {', '.join(repr(c) for c in ep.choices)}, {ep.answer!r} is the one whose meaning "
                 "the query shows.")
    return tuple(lines)


def words(name: str) -> str:
    """MEWL keys an object of the shape, colour and material tasks "<word> #<k>" (item.object_names): the
    word names it, k only tells the keys apart."""
    word, mark, k = name.rpartition(" #")
    return word if mark and k.isdigit() else name


def roles(ep: Episode) -> dict[str, dict[int, str]]:
    found = marked_roles(ep)
    for name, scene in ep.scenes().items():
        if scene.hand is not None:
            found[name].update({i: DISTRACTOR for i in _standing_out(scene)[1]})
    return found
