"""A few fixed scenes that show glass, metal, rubber and the hand: what renders are measured on
(`make bench`, and `mewl calibrate`'s measurement of workers per device)."""
from __future__ import annotations

from .placement import place_scene
from .spec import SceneSpec

# (seed, objects, index pointed at by the hand): every scene has glass, metal and rubber.
SCENES = (
    (1, (("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "large"), ("cylinder", "green", "rubber", "small"),
         ("cube", "yellow", "rubber", "small"), ("sphere", "purple", "metal", "small")), 2),
    (3, (("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "large"), ("cylinder", "green", "rubber", "small"),
         ("cube", "yellow", "rubber", "small")), 3),
    (11, (("cylinder", "cyan", "glass", "large"), ("sphere", "gray", "rubber", "large"), ("cylinder", "brown", "metal", "small"),
          ("cube", "purple", "glass", "small")), 1),
)


def bench_specs() -> list[SceneSpec]:
    return [place_scene(seed, props, pointed=pointed) for seed, props, pointed in SCENES]
