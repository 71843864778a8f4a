"""MEWL's validators, one per task: each recomputes its task's labels from the episode alone and raises
InvalidItem where one is wrong. Each is written beside its sampler (sample/<rule>.py), where the paper's rule
reads as one; what every episode keeps is `item.check_common`."""
from __future__ import annotations

from functools import partial
from typing import Callable

from .item import Episode
from .sample import basic, bootstrap, composite, number, object as object_task, pragmatic, relation

VALIDATORS: dict[str, Callable[[Episode], None]] = {
    **{attribute: partial(basic.validate, attribute=attribute) for attribute in ("shape", "color", "material")},
    "object": object_task.validate,
    "composite": composite.validate,
    "relation": relation.validate,
    "bootstrap": bootstrap.validate,
    "number": number.validate,
    "pragmatic": pragmatic.validate,
}
