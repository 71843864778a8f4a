"""Material parameter tables (Principled BSDF inputs), colours from the universe.

Colours in the universe are sRGB; the renderer works in linear light.
"""
from __future__ import annotations

import numpy as np

from scenes.universe import COLOR_RGB, HAND_RGB

# Principled BSDF inputs per material; "Base Color" is filled in per colour.
MATERIALS: dict[str, dict[str, float]] = {
    # matte, with the faint sheen of CLEVR's rubber
    "rubber": {"Metallic": 0.0, "Roughness": 0.75, "Specular IOR Level": 0.3},
    # polished metal: mirror-like with slightly blurred reflections
    "metal": {"Metallic": 1.0, "Roughness": 0.18},
    # clear glass tinted by its colour (the tint is lightened, see object_material)
    "glass": {"Metallic": 0.0, "Roughness": 0.02, "IOR": 1.5, "Transmission Weight": 1.0},
}
# Glass takes this mix of its colour and white, so dark colours stay see-through.
GLASS_TINT = 0.55

GROUND = {"Base Color": (0.42, 0.42, 0.42, 1.0), "Roughness": 0.9, "Specular IOR Level": 0.2}
# Uniform world light: what metal reflects where it does not see the ground.
WORLD = {"color": (0.22, 0.22, 0.22), "strength": 1.0}


def srgb_to_linear(rgb255) -> tuple[float, float, float]:
    c = np.asarray(rgb255, dtype=float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return tuple(float(x) for x in lin)


def object_material(material: str, color: str) -> dict:
    """Principled BSDF inputs for one (material, colour) pair."""
    rgb = srgb_to_linear(COLOR_RGB[color])
    if material == "glass":
        rgb = tuple(GLASS_TINT * c + (1 - GLASS_TINT) for c in rgb)
    return {**MATERIALS[material], "Base Color": (*rgb, 1.0)}


def hand_material() -> dict:
    return {**MATERIALS["rubber"], "Base Color": (*srgb_to_linear(HAND_RGB), 1.0)}
