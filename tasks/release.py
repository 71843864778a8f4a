"""MEWL's info.json for an episode (the fields MEWL's loaders read)."""
from __future__ import annotations

from scenes.spec import Episode, SceneSpec
from scenes.universe import HAND_TUPLE


def _panel_objects(scene: SceneSpec) -> list[list[str]]:
    objs = [list(o.properties) for o in scene.objects]
    if scene.hand is not None:
        objs.append(list(HAND_TUPLE))
    return objs


def _concept(value) -> str | int | list[str]:
    return list(value) if isinstance(value, tuple) else value


def info_json(ep: Episode) -> dict:
    """context_panels[{name, objects, arrow_idx?}], question{objects, choices,
    answer, arrow_idx?}, objects and word-concept, plus provenance."""

    def panel(name: str | None, scene: SceneSpec) -> dict:
        out: dict = {"objects": _panel_objects(scene)}
        if name is not None:
            out = {"name": name, **out}
        if scene.hand is not None:
            out["arrow_idx"] = scene.hand.target
        return out

    seen: list[list[str]] = []
    for scene in [p.scene for p in ep.context_panels] + [ep.query]:
        for o in scene.objects:
            if list(o.properties) not in seen:
                seen.append(list(o.properties))
    return {
        "task": ep.task,
        "split": ep.split,
        "index": ep.index,
        "seed": ep.root_seed,
        "retry": ep.retry,
        "generator": ep.generator,
        "objects": seen,
        "word-concept": {w: _concept(c) for w, c in ep.lexicon.items()},
        "context_panels": [panel(p.name, p.scene) for p in ep.context_panels],
        "question": {**panel(None, ep.query), "choices": list(ep.choices), "answer": ep.answer},
    }
