"""Procedural assets as plain data (numpy arrays and parameter tables), no bpy.

The renderer turns these into Blender meshes and materials once per worker.
"""
from .materials import MATERIALS, GROUND, WORLD, hand_material, object_material, srgb_to_linear
from .shapes import Mesh, SHAPE_MESHES, shape_mesh
from .hand import hand_mesh

__all__ = [
    "MATERIALS", "GROUND", "WORLD", "Mesh", "SHAPE_MESHES",
    "hand_material", "hand_mesh", "object_material", "shape_mesh", "srgb_to_linear",
]
