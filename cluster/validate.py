"""`mewl validate`: a spec file checked by pydantic and by its task's rules."""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from scenes.spec import Episode, SceneSpec
from tasks import REGISTRY, InvalidEpisode

from .errors import UserError


def _first_error(err: ValidationError) -> str:
    e = err.errors()[0]
    where = ".".join(str(x) for x in e["loc"]) or "top level"
    return f"{where}: {e['msg']}"


def load_spec(path: Path) -> Episode | SceneSpec:
    """An Episode or a SceneSpec from a JSON file, or a one-line UserError."""
    if path.is_dir():
        path = path / "episode.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UserError(f"{path}: not a JSON file ({err})") from None
    model = Episode if isinstance(data, dict) and "context_panels" in data else SceneSpec
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise UserError(f"{path}: invalid {model.__name__}: {_first_error(err)}") from None


def validate_file(path: Path) -> str:
    from .verify import refuse_damaged

    refuse_damaged(path)  # a published episode's files must agree with its record first
    spec = load_spec(path)
    if isinstance(spec, SceneSpec):
        return f"{path}: valid scene spec ({len(spec.objects)} objects, hash {spec.spec_hash()[:12]})"
    try:
        REGISTRY[spec.task].validate(spec)
    except InvalidEpisode as err:
        raise UserError(f"{path}: breaks the {spec.task} rules: {err}") from None
    return f"{path}: valid {spec.task} episode {spec.index} (answer {spec.answer!r})"
