"""Procedural assets as plain data (numpy arrays and parameter tables), no bpy.

The renderer turns these into Blender meshes and materials once per worker.
"""
from .hand import hand_mesh
from .materials import GROUND, MATERIALS, WORLD, hand_material, object_material, srgb_to_linear
from .shapes import SHAPE_MESHES, Mesh, shape_mesh

__all__ = [
    "MATERIALS", "GROUND", "WORLD", "Mesh", "SHAPE_MESHES",
    "hand_material", "hand_mesh", "object_material", "shape_mesh", "srgb_to_linear",
]
