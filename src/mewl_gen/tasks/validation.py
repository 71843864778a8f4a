"""Rules every item's scenes obey, checked on the finished item, and the error a broken rule raises."""
from __future__ import annotations

import math

from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.placement import MIN_GAP
from mewl_gen.scenes.spec import SceneSpec


class InvalidItem(AssertionError):
    """An item breaks a rule of its task (a sampler bug, never a user error)."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidItem(message)


def object_multiset(scene: SceneSpec) -> tuple:
    return tuple(sorted(o.properties for o in scene.objects))


def check_scene_geometry(scene: SceneSpec, where: str) -> None:
    objs = scene.objects
    for i in range(len(objs)):
        for j in range(i + 1, len(objs)):
            gap = math.dist(objs[i].position, objs[j].position) - objs[i].footprint_radius - objs[j].footprint_radius
            require(gap >= MIN_GAP - 1e-9, f"{where}: objects {i} and {j} are {gap:.3f} apart")
    if scene.hand is not None:
        require(scene.hand.target < len(objs), f"{where}: hand points at a missing object")
        require(all(hand_geometry.clear_of(scene.hand, o, MIN_GAP - 1e-9) for o in objs), f"{where}: hand touches an object")
        require(hand_geometry.points_at(scene.hand, objs), f"{where}: the finger does not reach its target first")
