"""`mewl icy-metrics LANGUAGE.json`: the paper's compositionality metrics of a written ICY language.

LANGUAGE.json is the language as `tasks.icy.language_json` writes it (a
manifest holding it under "language" is read too, and so is an ICY item.json,
whose root seed and language spec rebuild it); docs/icy.md has the format.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mewl_gen.errors import shown
from mewl_gen.scenes.spec import first_error, read_json
from mewl_gen.scenes.universe import TUPLE_ORDER, UNIVERSE

from ..benchmark import Command, UsageError
from .language import LanguageSpec, language_json
from .metrics import all_metrics


def language_arrays(language: dict) -> tuple[np.ndarray, np.ndarray, int]:
    """(objects as value indices, messages as symbol indices, |V|) of a language's table."""
    attributes = language["attributes"]
    values = {a: sorted({o[a] for o in language["objects"]}) for a in attributes}
    objects = np.array([[values[a].index(o[a]) for a in attributes] for o in language["objects"]])
    vocabulary = language["vocabulary"]
    messages = np.array([[vocabulary.index(c) for c in o["message"]] for o in language["objects"]])
    return objects, messages, len(vocabulary)


def metrics_of(language: dict) -> dict[str, float]:
    return all_metrics(*language_arrays(language))


def read_language(path: Path) -> dict:
    data = read_json(Path(path))[1]  # a regular file of a bounded size, JSON of a bounded depth, or one line
    whole = data
    if isinstance(data, dict) and isinstance(data.get("config"), dict):  # a dataset's manifest
        data = data["config"].get("icy", data)
    data = data.get("language", data) if isinstance(data, dict) else data
    if isinstance(data, dict) and isinstance(data.get("grammar"), str):  # an item's spec: rebuild its language
        root_seed = whole.get("root_seed")
        try:
            data = language_json(int(root_seed), LanguageSpec.model_validate(data))
        except (TypeError, ValueError) as err:
            raise UsageError(f"{shown(path)}: an ICY item whose language cannot be rebuilt ({shown(err, 120)})") from None
    needed = ("attributes", "vocabulary", "objects", "grammar")
    if not isinstance(data, dict) or any(k not in data for k in needed):
        raise UsageError(f"{shown(path)}: not an ICY language (expected the fields {', '.join(needed)})")
    try:
        table = Table.model_validate(data)
    except ValidationError as err:
        raise UsageError(f"{shown(path)}: not an ICY language ({first_error(err)})") from None
    if len(table.objects) < 2:
        raise UsageError(f"{shown(path)}: not an ICY language (fewer than two objects: nothing to compare)")
    return data


class _Object(BaseModel):
    model_config = ConfigDict(extra="allow")
    message: str = Field(max_length=64)

    @property
    def values(self) -> dict:
        return {k: v for k, v in (self.model_extra or {}).items() if isinstance(v, str)}


class Table(BaseModel):
    """A language's table as the metrics read it: at most the universe's objects (the metrics compare every
    pair), each with its message over the vocabulary and a value of each attribute."""
    attributes: list[str] = Field(min_length=1, max_length=len(TUPLE_ORDER))
    vocabulary: str | list[str] = Field(min_length=1, max_length=256)
    objects: list[_Object] = Field(max_length=len(UNIVERSE))
    grammar: dict

    @model_validator(mode="after")
    def _readable(self) -> "Table":
        for k, o in enumerate(self.objects):
            if any(c not in self.vocabulary for c in o.message):
                raise ValueError(f"objects.{k}.message: a symbol outside the vocabulary")
            if set(self.attributes) - set(o.values):
                raise ValueError(f"objects.{k}: no value of {sorted(set(self.attributes) - set(o.values))[0]!r}")
        if len({len(o.message) for o in self.objects}) > 1 or any(not o.message for o in self.objects):
            raise ValueError("objects: messages of one length each, as a grammar of ICY writes them")
        if not isinstance(self.grammar.get("name"), str):
            raise ValueError("grammar.name: a grammar's name")
        return self


def cmd_icy_metrics(args) -> int:
    language = read_language(args.language)
    try:
        scores = metrics_of(language)
    except (ValueError, IndexError, ZeroDivisionError) as err:  # a table of the right form no grammar of ICY wrote
        raise UsageError(f"{shown(args.language)}: the metrics cannot be computed on this language ({shown(err, 120)})") from None
    print(f"grammar {shown(language['grammar']['name'], 60)}: " + "  ".join(f"{k} {v:.3f}" for k, v in scores.items()))
    return 0


def _arguments(parser) -> None:
    parser.add_argument("language", type=Path, metavar="LANGUAGE.json", help="a language as written to the manifest")


METRICS = Command("icy-metrics", "topsim, posdis, bosdis and HCE of an ICY language (docs/icy.md)", _arguments,
                  cmd_icy_metrics)
