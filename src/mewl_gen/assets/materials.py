"""Material parameter tables (Principled BSDF inputs), colours from the universe.

Colours in the universe are sRGB; the renderer works in linear light.
"""
from __future__ import annotations

import numpy as np

from mewl_gen.scenes.universe import COLOR_RGB, HAND_RGB

# Principled BSDF inputs per material; "Base Color" is filled in per colour.
MATERIALS: dict[str, dict[str, float]] = {
    # matte, with the faint sheen of CLEVR's rubber
    "rubber": {"Metallic": 0.0, "Roughness": 0.75, "Specular IOR Level": 0.3},
    # polished metal: mirror-like, sharp enough to show the sky's gradient and the floor
    "metal": {"Metallic": 1.0, "Roughness": 0.12},
    # clear glass tinted by its colour (the tint is lifted, see LIFT)
    "glass": {"Metallic": 0.0, "Roughness": 0.02, "IOR": 1.5, "Transmission Weight": 1.0},
}
# Metal and glass take their linear colour to this power (hue order kept, dark
# colours lifted). Real metals reflect 50-95 % of light: CLEVR's gray, 9 % in
# linear light, made a black mirror, and every metal looked dark. Glass tints
# light twice (in and out), so its colour is lifted further to stay see-through,
# yet stays saturated enough that red, brown and gray glass differ (a mix with
# white, as before, washed them all out to the same pale pink-gray).
LIFT = {"glass": 0.35, "metal": 0.5}

GROUND = {"Base Color": (0.42, 0.42, 0.42, 1.0), "Roughness": 0.9, "Specular IOR Level": 0.2}
# World light, a sky brighter overhead than at the horizon: what metal and glass
# reflect where they do not see the ground, so metal shows a gradient, not a flat
# tone that reads as rubber. Its mean is close to the former uniform 0.22-0.4.
WORLD = {"horizon": (0.15, 0.15, 0.15), "zenith": (0.7, 0.7, 0.7), "strength": 1.0}


def srgb_to_linear(rgb255) -> tuple[float, float, float]:
    c = np.asarray(rgb255, dtype=float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return tuple(float(x) for x in lin)


def object_material(material: str, color: str) -> dict:
    """Principled BSDF inputs for one (material, colour) pair."""
    rgb = srgb_to_linear(COLOR_RGB[color])
    if material in LIFT:
        rgb = tuple(c ** LIFT[material] for c in rgb)
    return {**MATERIALS[material], "Base Color": (*rgb, 1.0)}


def hand_material() -> dict:
    return {**MATERIALS["rubber"], "Base Color": (*srgb_to_linear(HAND_RGB), 1.0)}
