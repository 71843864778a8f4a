"""An ICY language over the universe's 144 objects, drawn once per dataset.

A language is (grammar, |V|, c_w, symbols) from `LanguageSpec` plus the
dataset's root seed: `language(root_seed, spec)` is a pure, cached function,
so every sampler process rebuilds the same table. Its parts come from
separate streams of the root seed: the held-out pairs from one (the same for
every grammar), CONCAT's words from another (so CONCAT and PERM at one seed
share their words, as the paper transforms one sampled CONCAT grammar), and
the grammar's own parameters from a third.
"""
from __future__ import annotations

import functools
import hashlib
import string
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.universe import ATTRIBUTES, COLORS, SHAPES, TUPLE_ORDER, UNIVERSE, ObjectTuple

from . import grammars

Grammar = Literal["concat", "perm", "proj", "rot", "shufdet", "shuf", "hol"]
VALUES: tuple[str, ...] = tuple(v for a in TUPLE_ORDER for v in ATTRIBUTES[a])
# The paper's ENG words (appendix K): 3-letter English abbreviations.
ENG_WORDS: dict[str, str] = {
    "cube": "cub", "sphere": "sph", "cylinder": "cyl",
    "gray": "gry", "red": "red", "blue": "blu", "green": "grn",
    "brown": "brn", "purple": "prp", "cyan": "cyn", "yellow": "ylw",
    "rubber": "rub", "metal": "met", "glass": "gls",
    "large": "lrg", "small": "sml",
}
ALPHABET = string.ascii_lowercase  # symbol k is written as its k-th letter
# Color-shape pairs shown only in the test split: one per color (the paper's human study held out three).
# With three, a test episode's answer was the only choice of a held-out pair, which a model that remembers
# the pairs training showed, or the held-out colors' words in one language, tells apart (docs/icy.md).
HELD_OUT_PAIRS = len(COLORS)
DEFAULTS = {"synthetic": (4, 4), "eng": (len(ALPHABET), 3)}  # (|V|, c_w): the paper's V = 4, c_len = 4 n_att


class LanguageSpec(BaseModel):
    """ICY's dataset-wide configuration (Draw.config); the paper's defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    grammar: Grammar = "concat"
    symbols: Literal["synthetic", "eng"] = Field(
        "synthetic", description="synthetic: random words over the first |V| letters; eng: 3-letter English "
                                 "abbreviations over a-z")
    vocab_size: int | None = Field(None, ge=2, le=len(ALPHABET), description="|V|; default 4 (synthetic), 26 (eng)")
    word_length: int | None = Field(None, ge=1, le=8, description="c_w, symbols per word; default 4 (synthetic), 3 (eng)")

    @model_validator(mode="after")
    def _room_for_words(self) -> "LanguageSpec":
        if self.symbols == "eng" and (self.V, self.c_w) != DEFAULTS["eng"]:
            raise ValueError("eng words are 3 letters of a-z: leave vocab_size and word_length unset")
        if self.V ** self.c_w < len(VALUES):
            raise ValueError(f"|V|^c_w = {self.V ** self.c_w} words cannot name the {len(VALUES)} attribute values")
        return self

    @property
    def V(self) -> int:
        return self.vocab_size or DEFAULTS[self.symbols][0]

    @property
    def c_w(self) -> int:
        return self.word_length or DEFAULTS[self.symbols][1]

    @property
    def c_len(self) -> int:
        return self.c_w * len(TUPLE_ORDER)


@dataclass(frozen=True)
class Language:
    spec: LanguageSpec
    words: dict[str, str]  # attribute value -> its CONCAT sub-message
    holdout: tuple[tuple[str, str], ...]  # (shape, color) pairs only the test split shows
    messages: dict[ObjectTuple, str]  # the full table, all 144 objects
    parameters: dict  # the grammar's sampled parameters, as written to JSON

    def held_out(self, obj: ObjectTuple) -> bool:
        return (obj[0], obj[1]) in self.holdout


def _rng(root_seed: int, stream: str) -> np.random.Generator:
    code = int.from_bytes(hashlib.sha256(f"icy:{stream}".encode()).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence([root_seed, code]))


def encode(text: str) -> np.ndarray:
    return np.array([ALPHABET.index(c) for c in text])


def decode(symbols) -> str:
    return "".join(ALPHABET[int(k)] for k in symbols)


def draw_holdout(rng: np.random.Generator) -> tuple[tuple[str, str], ...]:
    """One held-out shape per color, each shape held out with as many colors as another (give or take
    one): every held-out shape and color is still seen in other pairs, as red circle and blue triangle
    teach the held-out red triangle, and every choice of a test episode can be a held-out pair."""
    shapes = [SHAPES[k % len(SHAPES)] for k in range(HELD_OUT_PAIRS)]
    return tuple((shapes[k], color) for k, color in zip(rng.permutation(HELD_OUT_PAIRS), COLORS))


def draw_words(rng: np.random.Generator, spec: LanguageSpec) -> dict[str, str]:
    """A bijection from every attribute value to a word, distinct across attributes."""
    if spec.symbols == "eng":
        return dict(ENG_WORDS)
    codes = rng.choice(spec.V ** spec.c_w, size=len(VALUES), replace=False)
    digits = (codes[:, None] // spec.V ** np.arange(spec.c_w)[::-1]) % spec.V
    return {v: decode(d) for v, d in zip(VALUES, digits)}


def _orders(rng: np.random.Generator, count: int) -> list[tuple[int, ...]]:
    return [tuple(int(k) for k in rng.permutation(len(TUPLE_ORDER))) for _ in range(count)]


def draw_parameters(rng: np.random.Generator, spec: LanguageSpec) -> dict:
    """The grammar's own draws, once per language."""
    size = spec.c_len * spec.V
    if spec.grammar == "perm":
        return {"permutation": [int(k) for k in rng.permutation(spec.c_len)]}
    if spec.grammar == "proj":
        p = redraw(lambda: rng.standard_normal((size, size)), grammars.non_singular, "non-singular projection")
        return {"projection": p.tolist()}
    if spec.grammar == "shufdet":
        # One word order per value of the last attribute; two equal orders would make it PERM of words.
        last = ATTRIBUTES[TUPLE_ORDER[-1]]
        orders = redraw(lambda: _orders(rng, len(last)), lambda o: len(set(o)) == len(o), "distinct word orders")
        return {"word_orders": {v: [TUPLE_ORDER[k] for k in o] for v, o in zip(last, orders)}}
    if spec.grammar == "shuf":  # a word order per utterance (object), drawn once for the language
        return {"word_orders": [[TUPLE_ORDER[k] for k in o] for o in _orders(rng, len(UNIVERSE))]}
    if spec.grammar == "hol":  # a random message per object; distinct, so a message names one object
        table = redraw(lambda: rng.integers(spec.V, size=(len(UNIVERSE), spec.c_len)),
                       lambda t: len(np.unique(t, axis=0)) == len(t), "distinct holistic messages")
        return {"messages": [decode(m) for m in table]}
    return {}


def message_of(obj: ObjectTuple, index: int, spec: LanguageSpec, words: dict[str, str], parameters: dict) -> str:
    """The grammar applied to one object (its index in UNIVERSE)."""
    g = spec.grammar
    if g == "hol":
        return parameters["messages"][index]
    blocks = [encode(words[v]) for v in obj]
    if g in ("shufdet", "shuf"):
        names = parameters["word_orders"][obj[-1] if g == "shufdet" else index]
        return decode(grammars.concat(blocks, [TUPLE_ORDER.index(a) for a in names]))
    m = grammars.concat(blocks)
    if g == "perm":
        m = grammars.permute(m, parameters["permutation"])
    elif g == "proj":
        m = grammars.project(m, np.asarray(parameters["projection"]), spec.V)
    elif g == "rot":
        m = grammars.rotate(m, spec.V)
    return decode(m)


@functools.lru_cache(maxsize=32)
def language(root_seed: int, spec: LanguageSpec) -> Language:
    words = draw_words(_rng(root_seed, f"words:{spec.symbols}:{spec.V}:{spec.c_w}"), spec)
    parameters = draw_parameters(_rng(root_seed, f"grammar:{spec.model_dump_json()}"), spec)
    # PROJ's matrix made an array once, not once an object (message_of takes either: the same float64 values)
    applied = {**parameters, "projection": np.asarray(parameters["projection"])} if "projection" in parameters else parameters
    messages = {o: message_of(o, i, spec, words, applied) for i, o in enumerate(UNIVERSE)}
    return Language(spec, words, draw_holdout(_rng(root_seed, "holdout")), messages, parameters)


def language_json(root_seed: int, spec: LanguageSpec) -> dict:
    """The language in full, for the manifest (docs/icy.md: every field)."""
    lang = language(root_seed, spec)
    return {
        "root_seed": root_seed,
        "spec": spec.model_dump(mode="json"),
        "vocabulary": ALPHABET[:spec.V],
        "word_length": spec.c_w,
        "message_length": spec.c_len,
        "attributes": list(TUPLE_ORDER),
        "words": {a: {v: lang.words[v] for v in ATTRIBUTES[a]} for a in TUPLE_ORDER},
        "grammar": {"name": spec.grammar, **lang.parameters},
        "holdout": [{"shape": s, "color": c} for s, c in lang.holdout],
        "objects": [{**dict(zip(TUPLE_ORDER, o)), "message": lang.messages[o]} for o in UNIVERSE],
    }
