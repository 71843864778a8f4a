"""Pure tests of the universe, camera maths, placement and visibility estimate."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mewl_gen.scenes import hand as hand_geometry
from mewl_gen.scenes.camera import directions, project
from mewl_gen.scenes.placement import MIN_GAP, PlacementError, in_frame, place_scene
from mewl_gen.scenes.relations import holds, relationships, well_separated
from mewl_gen.scenes.spec import HandSpec, ObjectSpec, SceneSpec
from mewl_gen.scenes.stage import base_camera
from mewl_gen.scenes.universe import UNIVERSE, UNIVERSE_INDEX
from mewl_gen.scenes.visibility import estimate_visible_pixels


def obj(x, y, shape="sphere", size="large", color="red"):
    return ObjectSpec(shape=shape, color=color, material="rubber", size=size, position=(x, y), rotation=0.0)


def scene(objects, hand=None):
    base = place_scene(1, [("sphere", "red", "rubber", "small")])
    return base.model_copy(update={"objects": tuple(objects), "hand": hand, "camera": base_camera()})


def test_universe_has_144_objects_in_mewl_order():
    assert len(UNIVERSE) == 144 == len(UNIVERSE_INDEX)
    assert UNIVERSE[0] == ("cube", "gray", "rubber", "large")


def test_origin_projects_near_image_centre_and_depth_is_positive():
    u, v, depth = project(base_camera(), [(0.0, 0.0, 0.0)])[0]
    assert 100 < u < 220 and 80 < v < 200 and depth > 5


def test_directions_follow_the_camera():
    cam = base_camera()
    d = directions(cam)
    # Moving right on the ground moves right in the image; behind moves up.
    for name, du_sign, dv_sign in (("right", 1, 0), ("behind", 0, -1)):
        a, b = project(cam, [(0, 0, 0), d[name]])
        if du_sign:
            assert np.sign(b[0] - a[0]) == du_sign
        if dv_sign:
            assert np.sign(b[1] - a[1]) == dv_sign
    assert np.allclose(np.add(d["left"], d["right"]), 0)


def test_relations_have_clevr_semantics():
    cam = base_camera()
    r = np.asarray(directions(cam)["right"])[:2]
    a, b = obj(*(2 * r)), obj(0, 0)
    assert holds(cam, a, b, "right") and holds(cam, b, a, "left")
    table = relationships(cam, [b, a])
    assert table["right"][0] == [1] and table["left"][1] == [0]
    assert not well_separated(cam, a, b)  # no front/behind offset at all


@pytest.mark.parametrize("seed", range(40))
def test_placement_keeps_gaps_frame_and_estimated_visibility(seed):
    rng = np.random.default_rng(seed)
    props = [UNIVERSE[i] for i in rng.choice(144, size=1 + seed % 6, replace=False)]
    spec = place_scene(seed, props, pointed=0 if seed % 3 == 0 else None)
    for i, a in enumerate(spec.objects):
        for b in spec.objects[i + 1:]:
            assert math.dist(a.position, b.position) - a.footprint_radius - b.footprint_radius >= MIN_GAP
    assert in_frame(spec)
    assert min(estimate_visible_pixels(spec)) >= 300
    again = place_scene(seed, props, pointed=0 if seed % 3 == 0 else None)
    assert again == spec and again.spec_hash() == spec.spec_hash()


def test_placement_gives_up_after_its_budget():
    with pytest.raises(PlacementError):
        place_scene(0, [("sphere", "red", "rubber", "large")] * 3, accept=lambda s: False, max_attempts=5)


def test_an_object_behind_another_is_estimated_less_visible():
    cam = base_camera()
    toward_cam = np.asarray(cam.location[:2]) / np.linalg.norm(cam.location[:2])
    far, near = obj(0, 0, size="small"), obj(*(1.6 * toward_cam))
    alone = estimate_visible_pixels(scene([far]))[0]
    hidden = estimate_visible_pixels(scene([far, near]))[0]
    assert alone > 300 and hidden < alone / 4


def test_hand_points_at_its_target_and_not_past_an_obstacle():
    target, other = obj(0, 0), obj(0, 2.5)
    hand = HandSpec(position=(-2.0, -hand_geometry.FINGER[0][1]), yaw=0.0, target=0)
    assert hand_geometry.points_at(hand, (target, other))
    blocker = obj(-0.9, 0, size="small")
    assert not hand_geometry.points_at(hand, (target, blocker))
    sideways = hand.model_copy(update={"yaw": math.pi / 2})
    assert not hand_geometry.points_at(sideways, (target, other))


def test_spec_rejects_unknown_fields_and_values():
    with pytest.raises(ValueError):
        ObjectSpec(shape="cone", color="red", material="rubber", size="large", position=(0, 0), rotation=0)
    with pytest.raises(ValueError):
        SceneSpec.model_validate({**scene([obj(0, 0)]).model_dump(), "extra": 1})
