"""`mewl validate`: a spec file checked by pydantic and by its task's rules."""
from __future__ import annotations

from pathlib import Path

from scenes.spec import Episode, Item, SceneSpec, SpecError
from tasks import REGISTRY, InvalidEpisode, read_item

from .errors import UserError


def load_spec(path: Path) -> Item | SceneSpec:
    """An item or a SceneSpec from a JSON file (or an item folder), or a one-line UserError."""
    try:
        return read_item(path)
    except SpecError as err:
        raise UserError(str(err)) from None


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
    if isinstance(spec, Episode):
        return f"{path}: valid {spec.task} episode {spec.index} (answer {spec.answer!r})"
    return f"{path}: valid {spec.task} item {spec.index} ({len(spec.scenes())} scene(s))"
