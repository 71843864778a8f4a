"""The samplers' rules replayed on an episode's released fields, for the audit's rule-aware column: which
choices each rule admits as the answer, never reading an image, the lexicon or the query."""
from __future__ import annotations

import functools

from .sample import relation


def _uttered(said: list[str], choices: tuple[str, ...], answer: str) -> bool:
    """shape, color, material: the answer is one of the three words the context utters; the two other
    choices are fresh words, never uttered (basic.sample)."""
    return answer in said


def _unheard_phrase(said: list[str], choices: tuple[str, ...], answer: str) -> bool:
    """composite: the answer is an unseen cell of the grid, a phrase never uttered whose first word is
    one the context says first and whose second one it says second (composite.sample)."""
    words = answer.split()
    return (answer not in said and len(words) == 2 and words[0] in {u.split()[0] for u in said}
            and words[1] in {u.split()[-1] for u in said})


@functools.lru_cache(maxsize=4096)
def balanced_answers(choices: tuple[str, ...]) -> frozenset[str]:
    """relation: the statements the sampler could have made the answer of these five, with neither the
    query's layout nor the lexicon known: under some mixed layout of the three named objects (the 24 of
    relation.layouts) and some map of the three words to directions, the five are a balanced cycle set
    (relation.balanced_choices: four live statements given the layout and given the lexicon, the
    answer's lexicons times layouts 2) whose lone true statement it is."""
    tokens = [c.split() for c in choices]
    phrases = sorted({" ".join(t[:2]) for t in tokens} | {" ".join(t[3:]) for t in tokens})
    if len(phrases) != relation.OBJECTS_PER_PANEL or any(len(t) != 5 for t in tokens):
        return frozenset()
    said = [(phrases.index(" ".join(t[:2])), t[2], phrases.index(" ".join(t[3:]))) for t in tokens]
    maps = relation.lexicons(sorted({t[2] for t in tokens}))
    table = [[relation.lone_truth(layout, said, m) for m in maps] for layout in relation.layouts()]
    kept = set()
    for row in table:
        for j, answer in enumerate(row):
            column = [r[j] for r in table]
            if (answer is not None and len(set(row) - {None}) == 4 and len(set(column) - {None}) == 4
                    and row.count(answer) * column.count(answer) == 2):
                kept.add(choices[answer])
    return frozenset(kept)


def _balanced(said: list[str], choices: tuple[str, ...], answer: str) -> bool:
    return answer in balanced_answers(choices)


# The rules that read an answer without an image, per task; a task not listed has none (object,
# number, pragmatic, bootstrap: every choice is an uttered word, or words of an unheard subset or pair,
# alike).
ANSWER_RULES = {"shape": _uttered, "color": _uttered, "material": _uttered, "composite": _unheard_phrase,
                "relation": _balanced}


def admits(ep: dict, answer: str) -> bool:
    """The samplers' rules on an episode's released fields (the utterances and the choices, never an
    image, the lexicon or the query) with `answer` as its answer: ANSWER_RULES. Every other rule admits
    every choice: the answer's slot is a coin drawn last, coined words are redrawn alike whichever
    becomes the answer, and the redraws of the query (basic, number, pragmatic), the context (object,
    bootstrap) and the contrasting values (composite) read what the images show, not which choice is
    true; identifiability holds for any slot."""
    rule = ANSWER_RULES.get(ep["task"])
    said = [p["utterance"] for p in ep["context_panels"]]
    return answer in ep["choices"] and (rule is None or rule(said, tuple(ep["choices"]), answer))
