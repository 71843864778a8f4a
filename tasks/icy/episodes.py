"""icy-episodes: MEWL-style few-shot naming in an ICY language.

Six context panels each show one object and utter its message; the query
shows an object whose color-shape pair no panel shows; the five choices are
its message and the messages of four objects that differ from it in one
attribute. The context shows the query's color (with other shapes), its
shape (with other colors), and its material and size. For CONCAT and
SHUFDET the context forces the answer, and the validator derives it (derive.py);
for the other grammars a learner needs the grammar's hidden parameters, and
for HOL no context can give the answer at all (each message is random).

Splits as icy-naming: in "test" the query is a held-out pair; elsewhere no
scene and no choice is one. Context panels never show a held-out pair.
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from scenes.draws import redraw
from scenes.placement import place_scene
from scenes.spec import RESERVED_NAMES, Panel, SceneSpec, field_error
from scenes.universe import UNIVERSE, ObjectTuple, describe

from ..episode import choices_with_answer
from ..registry import Draw
from ..seeds import draw_seed
from ..validation import check_scene_geometry, require
from .derive import DERIVATIONS
from .item import IcyItem
from .language import Language, LanguageSpec, language
from .naming import TEST_SPLIT, shown_in

QUESTION = "question"
N_PANELS = 6


class IcyEpisode(IcyItem):
    task: Literal["icy-episodes"] = "icy-episodes"
    context_panels: tuple[Panel, ...] = Field(min_length=N_PANELS, max_length=N_PANELS,
                                              description="one object each; name and utterance are its message")
    query: SceneSpec
    choices: tuple[str, ...] = Field(min_length=5, max_length=5)
    answer: str

    @model_validator(mode="after")
    def _files_and_answer(self) -> "IcyEpisode":
        names = [p.name for p in self.context_panels]
        for k, name in enumerate(names):
            if name in (*RESERVED_NAMES, QUESTION) or name in names[:k]:
                raise field_error(f"context_panels.{k}.name", f"{name!r} names another file")
        if self.answer not in self.choices:
            raise field_error("answer", f"{self.answer!r} is not one of the choices")
        return self

    def scenes(self) -> dict[str, SceneSpec]:
        return {**{p.name: p.scene for p in self.context_panels}, QUESTION: self.query}

    def with_scenes(self, scenes: dict[str, SceneSpec]) -> "IcyEpisode":
        panels = tuple(p.model_copy(update={"scene": scenes[p.name]}) for p in self.context_panels)
        return self.model_copy(update={"context_panels": panels, "query": scenes[QUESTION]})

    def label_image(self, name: str, truth: dict) -> dict:
        truth["objects"][0]["name"] = None if name == QUESTION else name  # a panel's name is its message
        return truth

    def index_entry(self) -> dict:
        return {"task": self.task, "split": self.split, "index": self.index,
                "query": describe(self.query.objects[0].properties), "choices": list(self.choices),
                "answer": self.answer, "held_out": self.held_out}


def _pair(o: ObjectTuple) -> tuple[str, str]:
    return (o[0], o[1])


def neighbours(query: ObjectTuple) -> list[ObjectTuple]:
    """Objects that differ from the query in exactly one attribute."""
    return [o for o in UNIVERSE if sum(a != b for a, b in zip(o, query)) == 1]


def draw_context(rng: np.random.Generator, lang: Language, query: ObjectTuple) -> list[ObjectTuple]:
    """Two panels with the query's color, two with its shape, two free; never its pair nor a held-out one."""
    pool = [o for o in shown_in("train", lang) if _pair(o) != _pair(query)]
    groups = [[o for o in pool if o[1] == query[1]], [o for o in pool if o[0] == query[0]], pool]
    picked = [g[i] for g in groups for i in rng.choice(len(g), size=2, replace=False)]
    return [picked[i] for i in rng.permutation(len(picked))]


def teaches(context: list[ObjectTuple], lang: Language, query: ObjectTuple) -> bool:
    """Distinct objects with distinct messages (a panel's name), showing the
    query's material and size; for CONCAT and SHUFDET the answer is forced."""
    said = [lang.messages[o] for o in context]
    if len(set(context)) < N_PANELS or len(set(said)) < N_PANELS:
        return False
    if not {query[2], query[3]} <= {v for o in context for v in o[2:]}:
        return False
    derive = DERIVATIONS.get(lang.spec.grammar)
    return derive is None or derive(list(zip(context, said)), query, lang.spec.c_w) == lang.messages[query]


def distractor_pool(lang: Language, query: ObjectTuple, context, split: str) -> list[ObjectTuple]:
    return [o for o in neighbours(query) if o not in context and lang.messages[o] != lang.messages[query]
            and (split == TEST_SPLIT or not lang.held_out(o))]


def sample(rng: np.random.Generator, d: Draw) -> IcyEpisode:
    spec = d.config or LanguageSpec()
    lang = language(d.root_seed, spec)
    queries = shown_in(d.split, lang)
    query = queries[int(rng.integers(len(queries)))]
    context = redraw(lambda: draw_context(rng, lang, query), lambda c: teaches(c, lang, query),
                     "context that teaches the query's words")
    pool = distractor_pool(lang, query, context, d.split)
    others = redraw(lambda: [pool[i] for i in rng.choice(len(pool), size=4, replace=False)],
                    lambda os: len({lang.messages[o] for o in os}) == 4, "four distinct distractors")
    choices, answer = choices_with_answer(rng, lang.messages[query], [lang.messages[o] for o in others])
    panels = tuple(Panel(name=lang.messages[o], utterance=lang.messages[o], scene=place_scene(draw_seed(rng), [o]))
                   for o in context)
    return IcyEpisode(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, language=spec,
                      context_panels=panels, query=place_scene(draw_seed(rng), [query]), choices=choices,
                      answer=answer, held_out=lang.held_out(query))


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
        require(not lang.held_out(o) and _pair(o) != _pair(query), f"panel {p.name!r} shows a held-out pair")
    require(ep.answer == lang.messages[query], f"the answer is not the message of {describe(query)}")
    require(ep.held_out == lang.held_out(query) == (ep.split == TEST_SPLIT), f"query's pair in the wrong split {ep.split!r}")
    require(teaches(context, lang, query), "the context does not teach the query's words")
    pool = {lang.messages[o] for o in distractor_pool(lang, query, context, ep.split)}
    require(len(set(ep.choices)) == 5 and set(ep.choices) - {ep.answer} <= pool,
            "every distractor names an unseen object one attribute from the query")
