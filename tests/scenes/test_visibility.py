"""The visibility estimate is cheaper than it was and gives the same numbers: counts, verdicts and
outline areas equal the pinned implementation's (visibility_reference.py) float for float, on
hundreds of scenes with and without a hand, the hand hidden or not."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.scenes import visibility
from mewl_gen.scenes.placement import aim_hand, place_scene
from mewl_gen.scenes.universe import UNIVERSE

from . import visibility_reference as reference

HANDS = 5  # aimed at each layout, visible or not


def _scenes(seed: int):
    """A layout of 2 to 5 objects (at times on a wider image), then hands aimed at its objects."""
    rng = np.random.default_rng([seed, 77])
    props = [UNIVERSE[k] for k in rng.choice(len(UNIVERSE), size=int(rng.integers(2, 6)), replace=False)]
    base = place_scene(seed, props, image_size=(480, 320) if seed % 4 == 0 else None, accept=lambda s: True)
    yield base
    for k in range(HANDS):
        hand = aim_hand(rng, base.objects, k % len(base.objects))
        if hand is not None:
            yield base.model_copy(update={"hand": hand})


@pytest.mark.parametrize("first", range(0, 64, 16))
@pytest.mark.slow
def test_the_estimate_equals_the_pinned_one_on_every_scene(first):
    need = visibility.MIN_VISIBLE_PIXELS * visibility.ESTIMATE_MARGIN
    verdicts = []
    for seed in range(first, first + 16):
        for spec in _scenes(seed):
            verdict = visibility.visible_enough(spec)  # first, as samplers ask: the layout is new
            assert verdict == reference.visible_enough(spec)
            # A hand tried on its layout, the spec not copied, gets the same verdict.
            assert visibility.visible_enough_with(spec.model_copy(update={"hand": None}), spec.hand) == verdict
            assert visibility.estimate_visible_pixels(spec, stop_below=need) == \
                reference.estimate_visible_pixels(spec, stop_below=need)
            assert visibility.estimate_visible_pixels(spec) == reference.estimate_visible_pixels(spec)
            assert visibility.projected_areas(spec) == reference.projected_areas(spec)
            verdicts.append(verdict)
    assert len(verdicts) >= 16 * 4 and 0 < sum(verdicts) < len(verdicts)  # both verdicts were reached


def test_a_hand_hidden_behind_an_object_fails_and_one_in_the_open_passes():
    spec = place_scene(3, [("cube", "red", "rubber", "large"), ("sphere", "blue", "metal", "small")], pointed=1)
    assert visibility.visible_enough(spec)
    counts = visibility.estimate_visible_pixels(spec)
    assert min(counts) >= 300 and counts == reference.estimate_visible_pixels(spec)
    # The same hand under the large cube: hidden, by the verdict and by the counts alike.
    cube = spec.objects[0]
    buried = spec.hand.model_copy(update={"position": cube.position})
    hidden = spec.model_copy(update={"hand": buried})
    assert not visibility.visible_enough(hidden)
    assert visibility.estimate_visible_pixels(hidden)[-1] < 300
