"""`mewl icy-metrics LANGUAGE.json`: the paper's compositionality metrics of a written ICY language.

LANGUAGE.json is the language as `tasks.icy.language_json` writes it (a
manifest holding it under "language" is read too, and so is an ICY item.json,
whose root seed and language spec rebuild it); docs/icy.md has the format.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

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
    try:
        data = json.loads(Path(path).read_text())
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UsageError(f"{path}: not a JSON file ({err})") from None
    if isinstance(data, dict) and isinstance(data.get("config"), dict):  # a dataset's manifest
        data = data["config"].get("icy", data)
    data = data.get("language", data) if isinstance(data, dict) else data
    if isinstance(data, dict) and isinstance(data.get("grammar"), str):  # an item's spec: rebuild its language
        root_seed = json.loads(Path(path).read_text()).get("root_seed")
        try:
            data = language_json(int(root_seed), LanguageSpec.model_validate(data))
        except (TypeError, ValueError) as err:
            raise UsageError(f"{path}: an ICY item whose language cannot be rebuilt ({err})") from None
    needed = ("attributes", "vocabulary", "objects", "grammar")
    if not isinstance(data, dict) or any(k not in data for k in needed):
        raise UsageError(f"{path}: not an ICY language (expected the fields {', '.join(needed)})")
    return data


def cmd_icy_metrics(args) -> int:
    language = read_language(args.language)
    scores = metrics_of(language)
    print(f"grammar {language['grammar']['name']}: " + "  ".join(f"{k} {v:.3f}" for k, v in scores.items()))
    return 0


def _arguments(parser) -> None:
    parser.add_argument("language", type=Path, metavar="LANGUAGE.json", help="a language as written to the manifest")


METRICS = Command("icy-metrics", "topsim, posdis, bosdis and HCE of an ICY language (docs/icy.md)", _arguments,
                  cmd_icy_metrics)
