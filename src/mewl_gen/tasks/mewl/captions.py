"""The captions of MEWL's unimodal baselines (the paper's appendix B), from specs.

Three kinds, as the paper's oracle captioner writes them:
- object captions for shape, color, material, object, composite and number:
  "A small cyan metal cylinder and a large red glass cube."
- the pointing sentence for pragmatic, the hand listed as a fourth object:
  "A ... and a small yellow rubber arrow. And a finger is pointing to the ...".
- spatial captions for relation and bootstrap, three objects ordered front to
  back and left to right: "The B is in front of the C and behind the A. The
  ... is on the left of the ... and on the right of the ...".

The spatial order follows MEWL's captioner: object j counts as `rel` of object
i only when their ground offset along `rel` exceeds CLEVR's 0.2 (the default
`eps` of CLEVR's relationship table). Where that leaves the order undecided
MEWL's captioner writes "None"; here the caption always follows the exact
order, and `mewl_order` tells whether MEWL's rule agrees.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mewl_gen.scenes.camera import directions
from mewl_gen.scenes.relations import related
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import HAND_TUPLE, ObjectTuple, describe

PROMPT = "Please name the target object according to the above context."


class CaptionError(ValueError):
    """A scene the paper's spatial caption cannot describe."""


def scene_tuples(scene: SceneSpec) -> list[ObjectTuple]:
    """MEWL's object list: the universe objects, then the hand as `arrow`."""
    return [o.properties for o in scene.objects] + ([HAND_TUPLE] if scene.hand is not None else [])


def object_caption(objects: Sequence[ObjectTuple]) -> str:
    return f"A {' and a '.join(describe(o) for o in objects)}."


def pragmatic_caption(objects: Sequence[ObjectTuple], pointed: int) -> str:
    return f"{object_caption(objects)} And a finger is pointing to the {describe(objects[pointed])}."


def _order(scene: SceneSpec, rel: str) -> list[str]:
    """Descriptions ordered so that each later one lies in direction rel of the earlier ones.
    The exact order, so a caption is always true; where relation and bootstrap
    scenes keep every pair more than 0.4 apart it is also the order MEWL's
    0.2 rule finds (mewl_order)."""
    along = np.array([o.position for o in scene.objects], dtype=float) @ np.asarray(directions(scene.camera)[rel][:2])
    return [describe(scene.objects[i].properties) for i in np.argsort(along)]


def mewl_order(scene: SceneSpec, rel: str) -> list[str] | None:
    """The order MEWL's captioner finds with CLEVR's 0.2 rule, or None where it
    is undecided (MEWL's captioner then writes "None" into the caption)."""
    counts = related(scene)[rel].sum(axis=1)  # how many objects lie in direction rel from each
    if sorted(counts.tolist()) != list(range(len(scene.objects))):
        return None
    return [describe(scene.objects[i].properties) for i in np.argsort(-counts)]


def spatial_caption(scene: SceneSpec) -> str:
    if len(scene.objects) != 3:
        raise CaptionError(f"a spatial caption needs 3 objects, got {len(scene.objects)}")
    front, middle, back = _order(scene, "behind")
    left, centre, right = _order(scene, "right")
    return (f"The {middle} is in front of the {back} and behind the {front}. "
            f"The {centre} is on the left of the {right} and on the right of the {left}.")


def caption(task: str, scene: SceneSpec) -> str:
    """The caption MEWL's captioner writes for a scene of this task."""
    if task in ("relation", "bootstrap"):
        return spatial_caption(scene)
    if scene.hand is not None:
        return pragmatic_caption(scene_tuples(scene), scene.hand.target)
    return object_caption(scene_tuples(scene))
