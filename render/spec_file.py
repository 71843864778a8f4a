"""Render one scene of a spec file: what `mewl render-spec` calls.

The file holds a SceneSpec, or an item (a MEWL episode, ...) whose scene is
named: a panel's name or 'question' for an episode; an item of one scene
needs no name.
"""
from __future__ import annotations

import sys
from pathlib import Path

from scenes.quality import QUALITIES, with_quality
from scenes.spec import Item, SceneSpec, SpecError
from tasks import read_item

from .worker import Worker

def choose_scene(spec: Item | SceneSpec, spec_path: Path, panel: str | None) -> tuple[SceneSpec, str]:
    """(scene, file stem): a scene spec as it is, or the named scene of an item."""
    if isinstance(spec, SceneSpec):
        if panel is not None:
            raise SpecError(f"--panel picks a scene of an episode; {spec_path} is a single scene spec")
        return spec, spec_path.stem
    scenes = spec.scenes()
    listed = ", ".join(repr(n) for n in scenes)
    if panel is None and len(scenes) == 1:
        return next(iter(scenes.values())), next(iter(scenes))
    if panel is None:
        raise SpecError(f"{spec_path} is an episode of {len(scenes)} scenes; render one with --panel NAME, "
                        f"NAME one of {listed}")
    if panel not in scenes:
        raise SpecError(f"{spec_path} has no panel {panel!r}; expected one of {listed}")
    return scenes[panel], panel


def output_stem(spec_path: Path, panel: str | None = None) -> str:
    """The stem of the files render_spec_file writes (<stem>.png and .json)."""
    return choose_scene(read_item(Path(spec_path)), Path(spec_path), panel)[1]


def render_spec_file(spec_path: Path, out_dir: Path, quality: str | None = None, device: str = "auto",
                     panel: str | None = None) -> int:
    """Render the scene to OUT/<stem>.png and .json; exit code 0, or 1 if an object is too small.

    The stem is the spec file's, or the panel's name for a scene of an episode.
    quality None keeps the spec's own render settings; a profile name replaces them.
    """
    spec_path = Path(spec_path)
    spec, stem = choose_scene(read_item(spec_path), spec_path, panel)
    if quality is not None:
        if quality not in QUALITIES:
            raise SpecError(f"unknown quality {quality!r}; expected one of {', '.join(QUALITIES)}")
        spec = with_quality(spec, quality)
    out_dir = Path(out_dir)
    with Worker(device=device, max_scenes=1) as worker:
        res = worker.render(spec, out_dir / f"{stem}.png", out_dir / f"{stem}.json")
    if not res.ok:
        print(f"{spec_path}: objects {res.too_small} show fewer than the minimum pixels "
              f"({res.visible_pixels}); nothing written", file=sys.stderr)
        return 1
    print(f"wrote {out_dir / stem}.png and .json ({res.device}, {res.seconds:.1f} s)", file=sys.stderr)
    return 0
