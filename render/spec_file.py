"""Render one SceneSpec JSON file: what `mewl render-spec` calls."""
from __future__ import annotations

import sys
from pathlib import Path

from pydantic import ValidationError

from scenes.quality import QUALITIES, with_quality
from scenes.spec import SceneSpec

from .worker import Worker


class SpecError(ValueError):
    """A spec file that cannot be read or is not a valid SceneSpec (one line)."""


def load_spec(spec_path: Path) -> SceneSpec:
    try:
        text = Path(spec_path).read_text()
    except OSError as e:
        raise SpecError(f"cannot read spec file {spec_path}: {e.strerror}") from None
    try:
        return SceneSpec.model_validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise SpecError(f"{spec_path} is not a valid SceneSpec: {where}: {first['msg']} ({e.error_count()} error(s))") from None


def render_spec_file(spec_path: Path, out_dir: Path, quality: str | None = None, device: str = "auto") -> int:
    """Render the spec to OUT/<stem>.png and .json; exit code 0, or 1 if an object is too small.

    quality None keeps the spec's own render settings; a profile name replaces them.
    """
    spec = load_spec(Path(spec_path))
    if quality is not None:
        if quality not in QUALITIES:
            raise SpecError(f"unknown quality {quality!r}; expected one of {', '.join(QUALITIES)}")
        spec = with_quality(spec, quality)
    out_dir = Path(out_dir)
    stem = Path(spec_path).stem
    with Worker(device=device, max_scenes=1) as worker:
        res = worker.render(spec, out_dir / f"{stem}.png", out_dir / f"{stem}.json")
    if not res.ok:
        print(f"{spec_path}: objects {res.too_small} show fewer than the minimum pixels "
              f"({res.visible_pixels}); nothing written", file=sys.stderr)
        return 1
    print(f"wrote {out_dir / stem}.png and .json ({res.device}, {res.seconds:.1f} s)", file=sys.stderr)
    return 0
