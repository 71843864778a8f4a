"""The CLEVR+MEWL universe, scene specs and camera geometry (no bpy)."""
