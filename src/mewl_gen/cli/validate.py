"""`mewl validate`: a spec file checked by pydantic and by its task's rules."""
from __future__ import annotations

from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.scenes.spec import SceneSpec, parse_json
from mewl_gen.store.reader import item_at, loose_file
from mewl_gen.tasks import catalog
from mewl_gen.tasks.item import Item
from mewl_gen.tasks.validation import InvalidItem


def load_spec(path: Path) -> Item | SceneSpec:
    """An item or a SceneSpec from a JSON file (or an item folder), or a one-line SpecError. The item of a
    folder, and an item's own file however it is named, are read through the store's door: the folder is
    the user's, what lies in it is data (a spec file named is the user's, read as named)."""
    if path.is_dir() or path.name in catalog.item_files():
        folder = path if path.is_dir() else path.parent
        record = folder / (catalog.record_file(folder) if path.is_dir() else path.name)
        return catalog.parse_item(*parse_json(loose_file(record), record), record)
    return catalog.read_item(path)


def validate_file(path: Path) -> str:
    item_at(path)  # a published item's files must agree with its record first
    spec = load_spec(path)
    if isinstance(spec, SceneSpec):
        return f"{path}: valid scene spec ({len(spec.objects)} objects, hash {spec.spec_hash()[:12]})"
    try:
        catalog.task(spec.task).validate(spec)
    except InvalidItem as err:
        raise UserError(f"{path}: breaks the {spec.task} rules: {err}") from None
    return (f"{path}: valid {spec.task} {catalog.noun([spec.task])} {spec.index} ({len(spec.scenes())} scene(s), "
            f"answer {spec.solution()!r})")
