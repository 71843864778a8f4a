"""The universe (CLEVR's, with glass and a pointing hand), scene specs and camera geometry (no bpy)."""
