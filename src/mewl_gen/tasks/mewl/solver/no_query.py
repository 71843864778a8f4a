"""Features of each choice for the learned no-query baselines: the context
(scenes, utterances, hands, and the lexicon they determine) and the choices,
never the query image.

As in features.py they are generous: how the choice's words recur in the
context's utterances and where (panel order), and for pragmatic what the
context shows about each offered word's panel: its value's attribute, the
background's value, and whether another offered panel shows the same pair
(the construction before issue 31 left one such pair, the answer's).
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.universe import ATTRIBUTES, TUPLE_ORDER, attribute_of

from ..item import TASKS, Episode
from .deprived import NO_QUERY
from .features import MISSING, mean, text
from .pragmatic import VALUES, standing_out


def heard(ep: Episode) -> np.ndarray:
    """Per choice: how many panels say each of its tokens (least, most, mean),
    how many of its tokens no panel says, whether a panel says the whole
    choice, and the first panel saying one of its tokens."""
    said = [p.utterance.split() for p in ep.context_panels]
    rows = []
    for c in ep.choices:
        tokens = c.split()
        counts = [sum(t in s for s in said) for t in tokens]
        first = [k for k, s in enumerate(said) if any(t in s for t in tokens)]
        rows.append([min(counts), max(counts), mean(counts), counts.count(0),
                     any(p.utterance == c for p in ep.context_panels), first[0] if first else MISSING])
    return np.hstack([text(ep), np.array(rows, dtype=float)])


def pragmatic(ep: Episode) -> np.ndarray:
    """Per offered word (its value from the lexicon the context determines):
    the value and its attribute, its panel's place, pointed index and
    background value, and how many other offered and taught panels show the
    same pair of standing-out values."""
    panel = {p.utterance: p for p in ep.context_panels}
    shown = {w: frozenset(v for vals in standing_out(p.scene) for v in vals) for w, p in panel.items()}
    order = [p.utterance for p in ep.context_panels]
    rows = []
    for c in ep.choices:
        value = ep.lexicon.get(c)
        background = [v for v in shown[c] if v != value]
        rows.append([
            MISSING if value is None else VALUES.index(value),
            MISSING if value is None else TUPLE_ORDER.index(attribute_of(value)),
            MISSING if value is None else len(ATTRIBUTES[attribute_of(value)]),
            VALUES.index(background[0]) if len(background) == 1 else MISSING,
            TUPLE_ORDER.index(attribute_of(background[0])) if len(background) == 1 else MISSING,
            sum(background[0] == v for v in ep.lexicon.values()) if len(background) == 1 else MISSING,
            order.index(c), panel[c].scene.hand.target,
            sum(d != c and shown[d] == shown[c] for d in ep.choices),
            sum(d != c and shown[d] == shown[c] for d in shown),
        ])
    return np.hstack([heard(ep), np.array(rows, dtype=float)])


FEATURES = {(t, NO_QUERY): heard for t in TASKS} | {("pragmatic", NO_QUERY): pragmatic}
