"""Rules every episode obeys, checked on the finished Episode."""
from __future__ import annotations

import math

from scenes import hand as hand_geometry
from scenes.placement import MIN_GAP
from scenes.spec import Episode, SceneSpec

from .episode import InvalidEpisode


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidEpisode(message)


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


def check_common(ep: Episode) -> None:
    names = [p.name for p in ep.context_panels]
    require(len(names) == 6, f"an episode has 6 context panels, not {len(names)}")
    require(len(set(names)) == 6, f"panel names are not unique: {names}")
    require(len(set(ep.choices)) == 5, f"choices are not distinct: {ep.choices}")
    require(ep.choices.count(ep.answer) == 1, "the answer is not exactly one of the choices")
    for p in ep.context_panels:
        check_scene_geometry(p.scene, f"panel {p.name!r}")
    check_scene_geometry(ep.query, "query")
    query = object_multiset(ep.query)
    require(all(object_multiset(p.scene) != query for p in ep.context_panels), "the query copies a context scene")
