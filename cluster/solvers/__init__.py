"""Independent solvers and text-only guessers, one module per task.

A solver sees an episode whose lexicon has been emptied: only the context
panels (scenes and utterances), the query scene and the choices. They ship
with the package (not under tests/) so that `mewl audit` can run them on any
dataset; they never import tasks/.
"""
from __future__ import annotations

import importlib
from types import ModuleType

BASIC = ("shape", "color", "material")


def solver_module(task: str) -> ModuleType:
    return importlib.import_module(f"cluster.solvers.{'basic' if task in BASIC else task}")
