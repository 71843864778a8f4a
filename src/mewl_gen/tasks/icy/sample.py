"""ICY's samplers (validate.py checks what they draw).

icy-naming: one object per image, of the objects its split shows (item.shown_in), named by its message in
the dataset's language.

icy-episodes: MEWL-style few-shot naming in an ICY language.

Six context panels each show one object and utter its message; the query
shows an object whose color-shape pair no panel shows. The five choices name
the query and four objects of its material and size in four other colors;
two shapes come twice and one once among them (in test each is its color's
held-out shape), the query a uniform one of the five. Each choice's color is shown by exactly one panel
(with another shape), a sixth panel shows none of their colors, and no panel
shows a choice's color-shape pair: counting words in the context favours no
choice. The panels also show the query's material, size and every choice's
shape. For CONCAT and SHUFDET the context forces every choice's message,
the answer's as each distractor's (so knowing the rule tells no choice
apart), and the validator derives them (derive.py); for the other grammars
a learner needs the grammar's hidden parameters, and for HOL no context can
give the answer at all (each message is random).

Splits as icy-naming: in "test" the query and every choice are held-out pairs;
elsewhere no scene and no choice is one. Context panels never show a held-out pair.
"""
from __future__ import annotations

import itertools

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.universe import COLORS, SHAPES, UNIVERSE, ObjectTuple

from ..benchmark import Draw
from ..item import Panel
from ..sampling import choices_with_answer
from ..seeds import draw_seed
from .derive import DERIVATIONS
from .item import N_PANELS, TAKEN, TEST_SPLIT, IcyEpisode, Naming, shown_in
from .language import Language, LanguageSpec, language


def sample_naming(rng: np.random.Generator, d: Draw) -> Naming:
    spec = d.config or LanguageSpec()
    lang = language(d.root_seed, spec)
    pool = shown_in(d.split, lang)
    obj = pool[int(rng.integers(len(pool)))]
    return Naming(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, language=spec,
                  message=lang.messages[obj], held_out=lang.held_out(obj), scene=place_scene(draw_seed(rng), [obj]))


# How many of the five choices take each of three shapes, the single shape and the order drawn uniformly. A
# view of the choices' messages without the context groups them by their shape word but cannot say which
# group is which shape, while the query shows the answer's: the answer lies in each group as often as the
# group's size says only if the sizes never depend on the query's shape. In test each choice is its color's
# held-out pair and the cylinder is held out with two colors (cube and sphere with three), so no shape may
# come more than twice; train draws the same, so the splits differ in nothing such a view reads. With each
# distractor's shape its own, the answer's group ran larger for a cube than for a cylinder (docs/icy.md).
CHOICE_SHAPES = (2, 2, 1)


def draw_shapes(rng: np.random.Generator) -> list[str]:
    """The five choices' shapes, CHOICE_SHAPES in a random order of random shapes."""
    shapes = [s for s, k in zip(rng.permutation(SHAPES), CHOICE_SHAPES) for _ in range(k)]
    return [str(shapes[i]) for i in rng.permutation(len(shapes))]


def draw_choices(rng: np.random.Generator, lang: Language, split: str) -> list[ObjectTuple]:
    """The query, then four objects of its material and size: five shapes (draw_shapes; the query's the
    first, so a uniform one of the five), then five colors drawn uniformly among the assignments that keep
    the rules (in test each choice is its color's held-out pair, elsewhere none is; `fair`; a context can
    be laid out). Only the colors and the look are redrawn, never the shapes: a rejection of the shapes
    would weigh each shape's group size by how easily the language's holdout lays it out."""
    shapes = draw_shapes(rng)
    allowed = [[c for c in COLORS if lang.held_out((s, c)) == (split == TEST_SPLIT)] for s in shapes]
    assignments = [cs for cs in itertools.permutations(COLORS, len(shapes))
                   if all(c in ok for c, ok in zip(cs, allowed))]

    def draw() -> list[ObjectTuple]:
        colors = assignments[rng.integers(len(assignments))]
        looks = [o[2:] for o in UNIVERSE if o[:2] == (shapes[0], colors[0])]
        look = looks[rng.integers(len(looks))]
        return [(shape, color, *look) for shape, color in zip(shapes, colors)]

    return redraw(draw, lambda c: fair(c, lang, split) and bool(layouts(lang, c)), "five fair choices")


def fair(choices: list[ObjectTuple], lang: Language, split: str) -> bool:
    """Five colors and five messages, the shapes as CHOICE_SHAPES; in test every choice names a held-out
    pair, elsewhere none does."""
    shapes = [o[0] for o in choices]
    return (len({o[1] for o in choices}) == len({lang.messages[o] for o in choices}) == 5
            and sorted(map(shapes.count, set(shapes))) == sorted(CHOICE_SHAPES)
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
    CONCAT and SHUFDET every choice's message is forced, the answer's
    (choices[0]) as each distractor's: a rule that derived the answer's
    alone would tell a solver who knows it which choice the context derives."""
    query, said = choices[0], [lang.messages[o] for o in context]
    if len(set(context)) < N_PANELS or len(set(said)) < N_PANELS or set(said) & set(TAKEN):
        return False
    if any([o[0] for o in context].count(s) != N_PANELS // len(SHAPES) for s in SHAPES):
        return False
    if not {query[2], query[3], *(c[0] for c in choices)} <= {v for o in context for v in o}:
        return False
    derive = DERIVATIONS.get(lang.spec.grammar)
    shown = list(zip(context, said))
    return derive is None or all(derive(shown, c, lang.spec.c_w) == lang.messages[c] for c in choices)


def sample_episode(rng: np.random.Generator, d: Draw) -> IcyEpisode:
    spec = d.config or LanguageSpec()
    lang = language(d.root_seed, spec)
    objects = draw_choices(rng, lang, d.split)
    query = objects[0]
    context = redraw(lambda: draw_context(rng, lang, objects), lambda c: teaches(c, lang, objects),
                     "context that teaches every choice's words")
    choices, answer = choices_with_answer(rng, lang.messages[query], [lang.messages[o] for o in objects[1:]])
    panels = tuple(Panel(name=lang.messages[o], utterance=lang.messages[o], scene=place_scene(draw_seed(rng), [o]))
                   for o in context)
    return IcyEpisode(split=d.split, index=d.index, root_seed=d.root_seed, retry=d.retry, language=spec,
                      context_panels=panels, query=place_scene(draw_seed(rng), [query]), choices=choices,
                      answer=answer, held_out=lang.held_out(query))
