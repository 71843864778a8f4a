"""What a learner who knows the grammar's family can derive from context panels alone.

Each function takes the context as (object, message) pairs and a query
object, and returns the query's message if the context forces it, else None.
Both derivations are sound: they only use facts every language of the family
obeys, so a returned message is the only one consistent with the context.
"""
from __future__ import annotations

from typing import Sequence

from mewl_gen.scenes.universe import ObjectTuple

Context = Sequence[tuple[ObjectTuple, str]]


def words_of(message: str, c_w: int) -> list[str]:
    return [message[k:k + c_w] for k in range(0, len(message), c_w)]


def derive_concat(context: Context, query: ObjectTuple, c_w: int) -> str | None:
    """CONCAT: attribute a's word stands in block a. The query's value v of a is
    learned from any panel whose object has v: every such panel shows block a alike."""
    message = []
    for a, v in enumerate(query):
        seen = {words_of(m, c_w)[a] for o, m in context if o[a] == v}
        if len(seen) != 1:
            return None
        message.append(seen.pop())
    return "".join(message)


def identified_words(context: Context, c_w: int) -> dict[tuple[int, str], str]:
    """Cross-situational: the word of value v (of attribute a) stands in every
    message of an object with v and, words being distinct, in no other. A value
    whose candidates shrink to one word is identified."""
    panels = [(o, frozenset(words_of(m, c_w))) for o, m in context]  # each message split once
    found = {}
    for a, v in {(a, v) for o, _ in context for a, v in enumerate(o)}:
        candidates = set.intersection(*(set(w) for o, w in panels if o[a] == v))
        candidates -= frozenset().union(*(w for o, w in panels if o[a] != v))
        if len(candidates) == 1:
            found[(a, v)] = candidates.pop()
    return found


def derive_shufdet(context: Context, query: ObjectTuple, c_w: int) -> str | None:
    """SHUFDET: words in an order fixed by the last attribute's value. The order
    for the query's last value is read off a panel with that value whose words
    are all identified; then the query's identified words are placed in it."""
    words = identified_words(context, c_w)
    if any((a, v) not in words for a, v in enumerate(query)):
        return None
    for o, m in context:
        if o[-1] == query[-1] and all((a, v) in words for a, v in enumerate(o)):
            blocks = words_of(m, c_w)
            order = [blocks.index(words[(a, v)]) for a, v in enumerate(o)]  # block of each attribute
            placed = [""] * len(query)
            for a, v in enumerate(query):
                placed[order[a]] = words[(a, v)]
            return "".join(placed)
    return None


# The grammars whose episodes must be derivable from the context, and how.
DERIVATIONS = {"concat": derive_concat, "shufdet": derive_shufdet}
