"""icy-episodes: MEWL-style few-shot naming in an ICY language.

Six context panels each show one object and utter its message; the query
shows an object whose color-shape pair no panel shows. The five choices name
the query and four objects of its material and size in four other colors,
each of a random shape (in test: of its color's held-out shape). Each choice's color is shown by exactly one panel
(with another shape), a sixth panel shows none of their colors, and no panel
shows a choice's color-shape pair: counting words in the context favours no
choice. The panels also show the query's material, size and every choice's
shape. For CONCAT and SHUFDET the context forces the answer, and the
validator derives it (derive.py); for the other grammars a learner needs the
grammar's hidden parameters, and for HOL no context can give the answer at
all (each message is random).

Splits as icy-naming: in "test" the query and every choice are held-out pairs;
elsewhere no scene and no choice is one. Context panels never show a held-out pair.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLORS, SHAPES, UNIVERSE, ObjectTuple, describe

from ..benchmark import Draw
from ..item import QUESTION, Panel, PanelsAndQuery, check_panels_and_answer
from ..sampling import choices_with_answer
from ..seeds import draw_seed
from ..validation import check_scene_geometry, require
from .derive import DERIVATIONS
from .item import IcyItem
from .language import Language, LanguageSpec, language
from .naming import TEST_SPLIT, shown_in

N_PANELS = 6
# A panel's file stem is its message, which must not be another file's (c_w = 1 allows "item"), nor
# one of the files of MEWL's layout that an episode folder of this shape reads like (info, episode).
TAKEN = ("info", QUESTION, "episode", Path(IcyItem.RECORD_FILE).stem)


class IcyEpisode(PanelsAndQuery, IcyItem):
    task: Literal["icy-episodes"] = "icy-episodes"
    context_panels: tuple[Panel, ...] = Field(min_length=N_PANELS, max_length=N_PANELS,
                                              description="one object each; name and utterance are its message")
    query: SceneSpec
    choices: tuple[str, ...] = Field(min_length=5, max_length=5)
    answer: str

    @model_validator(mode="after")
    def _files_and_answer(self) -> "IcyEpisode":
        check_panels_and_answer(self, TAKEN)
        return self

    def label_image(self, name: str, truth: dict) -> dict:
        truth["objects"][0]["name"] = None if name == QUESTION else name  # a panel's name is its message
        return truth

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index,
                "query": describe(self.query.objects[0].properties), "choices": list(self.choices),
                "answer": self.answer, "held_out": self.held_out}


def _pair(o: ObjectTuple) -> tuple[str, str]:
    return (o[0], o[1])


def draw_choices(rng: np.random.Generator, query: ObjectTuple, lang: Language, split: str) -> list[ObjectTuple]:
    """The query and four objects of its material and size, each of another color: five objects alike
    but for their color-shape pairs. In test each distractor is its color's held-out pair, as the query
    is, so that no choice is told apart by a pair training showed; elsewhere its shape is random."""
    colors = [c for c in COLORS if c != query[1]]
    held = dict((color, shape) for shape, color in lang.holdout)
    return [query, *((held[colors[k]] if split == TEST_SPLIT else SHAPES[rng.integers(len(SHAPES))], colors[k],
                      query[2], query[3]) for k in rng.choice(len(colors), size=4, replace=False))]


def fair(choices: list[ObjectTuple], lang: Language, split: str) -> bool:
    """Five colors and five messages; in test every choice names a held-out pair, elsewhere none does."""
    return (len({o[1] for o in choices}) == len({lang.messages[o] for o in choices}) == 5
            and all(lang.held_out(o) == (split == TEST_SPLIT) for o in choices))


def layouts(lang: Language, choices: list[ObjectTuple]) -> list[tuple[list[str], tuple[str, ...]]]:
    """Every (colors, shapes) of the six context panels that keeps the rules: a panel per choice, of its
    color but another shape, and a sixth of none of their colors (each choice's color shown once, no
    choice's pair at all, so counting words in the context tells the answer from no distractor); no
    held-out pair; every shape shown by as many panels as another."""
    taken = {c[1] for c in choices}
    per_shape = N_PANELS // len(SHAPES)

    def shapes_for(color: str, not_shape: str | None) -> list[str]:
        return [s for s in SHAPES if s != not_shape and (s, color) not in lang.holdout]

    found = []
    for sixth in (c for c in COLORS if c not in taken):
        colors = [c[1] for c in choices] + [sixth]
        options = [shapes_for(c[1], c[0]) for c in choices] + [shapes_for(sixth, None)]
        found += [(colors, shapes) for shapes in itertools.product(*options)
                  if all(shapes.count(s) == per_shape for s in SHAPES)]
    return found


def draw_context(rng: np.random.Generator, lang: Language, choices: list[ObjectTuple]) -> list[ObjectTuple]:
    """The six panels: a layout drawn uniformly among those that keep the rules (enumerated, not
    rejected: the rules leave few), then each panel's material and size; in random order."""
    found = layouts(lang, choices)
    colors, shapes = found[rng.integers(len(found))]
    pool = shown_in("train", lang)
    picked = []
    for color, shape in zip(colors, shapes):
        group = [o for o in pool if o[0] == shape and o[1] == color]
        picked.append(group[rng.integers(len(group))])
    return [picked[i] for i in rng.permutation(len(picked))]


def teaches(context: list[ObjectTuple], lang: Language, choices: list[ObjectTuple]) -> bool:
    """Distinct objects with distinct messages (a panel's name), showing the
    query's material and size and every shape equally often (so every
    choice's shape, and none more than another: panels never show a held-out
    pair, which in test would otherwise favour the answer's shape); for
    CONCAT and SHUFDET the answer (choices[0]'s message) is forced."""
    query, said = choices[0], [lang.messages[o] for o in context]
    if len(set(context)) < N_PANELS or len(set(said)) < N_PANELS or set(said) & set(TAKEN):
        return False
    if any([o[0] for o in context].count(s) != N_PANELS // len(SHAPES) for s in SHAPES):
        return False
    if not {query[2], query[3], *(c[0] for c in choices)} <= {v for o in context for v in o}:
        return False
    derive = DERIVATIONS.get(lang.spec.grammar)
    return derive is None or derive(list(zip(context, said)), query, lang.spec.c_w) == lang.messages[query]


def sample(rng: np.random.Generator, d: Draw) -> IcyEpisode:
    spec = d.config or LanguageSpec()
    lang = language(d.root_seed, spec)
    queries = shown_in(d.split, lang)
    query = queries[int(rng.integers(len(queries)))]
    objects = redraw(lambda: draw_choices(rng, query, lang, d.split),
                     lambda c: fair(c, lang, d.split) and bool(layouts(lang, c)), "five fair choices")
    context = redraw(lambda: draw_context(rng, lang, objects), lambda c: teaches(c, lang, objects),
                     "context that teaches the query's words")
    choices, answer = choices_with_answer(rng, lang.messages[query], [lang.messages[o] for o in objects[1:]])
    panels = tuple(Panel(name=lang.messages[o], utterance=lang.messages[o], scene=place_scene(draw_seed(rng), [o]))
                   for o in context)
    return IcyEpisode(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, language=spec,
                      context_panels=panels, query=place_scene(draw_seed(rng), [query]), choices=choices,
                      answer=answer, held_out=lang.held_out(query))


def readings(ep: IcyEpisode, lang: Language, query: ObjectTuple) -> list[list[ObjectTuple]]:
    """The object lists the choices can name, the query first, each distractor
    of the query's material and size in another color (more than one only
    where PROJ gives two objects one message)."""
    named = [[o for o in UNIVERSE if lang.messages[o] == c and o[2:] == query[2:] and o[1] != query[1]]
             for c in ep.choices if c != ep.answer]
    return [[query, *combo] for combo in itertools.product(*named)]


def shown_fairly(context: list[ObjectTuple], lang: Language, objects: list[ObjectTuple], split: str) -> bool:
    """The rules of draw_choices and draw_context, on the finished episode."""
    colors = [o[1] for o in context]
    return (fair(objects, lang, split) and not any(map(lang.held_out, context))
            and not {_pair(o) for o in context} & {_pair(o) for o in objects}
            and all(colors.count(c[1]) == 1 for c in objects) and teaches(context, lang, objects))


def validate(ep: IcyEpisode) -> None:
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
    require(any(shown_fairly(context, lang, objects, ep.split) for objects in readings(ep, lang, query)),
            "choices and context break the rules: five colors, each shown once, no choice's or held-out pair "
            "shown, the query's words taught")
