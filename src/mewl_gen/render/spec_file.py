"""Render one scene spec to `<stem>.png` and its ground truth `<stem>.json`: what `mewl render-spec` calls
once it has the scene (a scene spec file, or one scene of an item's file)."""
from __future__ import annotations

import sys
from pathlib import Path

from mewl_gen.scenes.quality import QUALITIES, with_quality
from mewl_gen.scenes.spec import SceneSpec, SpecError

from .passes import file_name
from .worker import Worker


def render_scene(spec: SceneSpec, out_dir: Path, stem: str, quality: str | None = None, device: str = "auto",
                 source: str = "", passes: tuple[str, ...] = ()) -> int:
    """Render the scene to OUT/<stem>.png and .json, and the passes asked for beside them (render.passes);
    exit code 0, or 1 if an object is too small.

    quality None keeps the spec's own render settings; a profile name replaces them.
    """
    if quality is not None:
        if quality not in QUALITIES:
            raise SpecError(f"unknown quality {quality!r}; expected one of {', '.join(QUALITIES)}")
        spec = with_quality(spec, quality)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)  # the renderer writes only into folders that are there
    with Worker(device=device, max_scenes=1) as worker:
        res = worker.render(spec, out_dir / f"{stem}.png", out_dir / f"{stem}.json", passes=passes)
    if not res.ok:
        print(f"{source or stem}: objects {res.too_small} show fewer than the minimum pixels "
              f"({res.visible_pixels}); nothing written", file=sys.stderr)
        return 1
    extra = "".join(f", {file_name(stem, kind)}" for kind in passes)
    print(f"wrote {out_dir / stem}.png and .json{extra} ({res.device}, {res.seconds:.1f} s)", file=sys.stderr)
    return 0
