"""Why a ShapeWorld caption agrees or not, from the item's files by its file-only solver: the logical form's
parts and the whole evaluated on the image's ground truth; and its objects' roles (the caption's
referents, every other object a distractor)."""
from __future__ import annotations

from mewl_gen.scenes.universe import TUPLE_ORDER

from ..gallery import DISTRACTOR, TARGET, truth_json
from ..stored import StoredItem
from .item import ShapeWorldItem
from .logic import atoms, referents, say
from .solver import agrees


def why(stored: StoredItem) -> tuple[str, ...]:
    item = stored.item()
    image = truth_json(stored, "image")
    if image is None:
        return ()
    lines = [f"The caption {item.caption!r} reads as the logical form {item.logical_form.kind!r}."]
    parts = atoms(item.logical_form)
    if len(parts) > 1 or parts[0] is not item.logical_form:
        for k, part in enumerate(parts):
            verdict = agrees(part.model_dump(mode="json"), image)
            lines.append(f"Part {k + 1}, {say(part)!r}: {'true' if verdict else 'false'} of the image.")
    whole = agrees(item.logical_form.model_dump(mode="json"), image)
    lines.append(f"The whole, evaluated on the image's objects: {'agrees' if whole else 'disagrees'}.")
    return tuple(lines)


def roles(item: ShapeWorldItem) -> dict[str, dict[int, str]]:
    objects = [dict(zip(TUPLE_ORDER, o.properties)) for o in item.scene.objects]
    about = set(referents(item.logical_form, objects))
    return {"image": {i: TARGET if i in about else DISTRACTOR for i in range(len(objects))}}
