"""Commands about specs: `mewl schema`, `mewl tasks`, `mewl validate` and `mewl render-spec`."""
from __future__ import annotations

import json
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.render import render_scene
from mewl_gen.render.passes import files_of
from mewl_gen.scenes import image_truth
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.store.files import probe_writable
from mewl_gen.tasks import catalog
from mewl_gen.tasks.item import Item

from . import options
from .validate import load_spec, validate_file

IMAGE_SCHEMA = "image"


def schemas() -> dict[str, object]:
    """kind -> a function giving its JSON Schema: every benchmark's release files, and an image's ground truth."""
    found = {s.kind: s.build for b in catalog.BENCHMARKS for s in b.schemas}
    return {**found, IMAGE_SCHEMA: image_truth.schema}


def cmd_schema(args) -> int:
    kinds = schemas()
    if args.kind not in kinds:
        raise UserError(f"unknown --kind {args.kind!r}; expected one of {', '.join(kinds)}")
    print(json.dumps(kinds[args.kind](), indent=2))
    return 0


def cmd_tasks(args) -> int:
    """Every task, one line each, grouped by benchmark."""
    width = max(len(t) for t in catalog.tasks())
    for bench in catalog.BENCHMARKS:
        print(f"{bench.name}: {bench.summary}")
        for t in bench.tasks:
            schemes = "" if len(t.schemes) == 1 else f" [--split-scheme {', '.join(s.name for s in t.schemes[1:])}]"
            print(f"  {t.name:<{width}}  {t.images} image(s)  {t.summary}{schemes}")
    print("TASK may be a task, a benchmark (all of its tasks), all, or a comma list of those.")
    return 0


def cmd_validate(args) -> int:
    print(validate_file(args.path))
    return 0


def choose_scene(spec: Item | SceneSpec, spec_path: Path, panel: str | None) -> tuple[SceneSpec, str]:
    """(scene, file stem): a scene spec as it is, or the named scene of an item."""
    if isinstance(spec, SceneSpec):
        if panel is not None:
            raise UserError(f"--panel picks a scene of an episode; {spec_path} is a single scene spec")
        return spec, spec_path.stem
    scenes = spec.scenes()
    listed = ", ".join(repr(n) for n in scenes)
    if panel is None and len(scenes) == 1:
        return next(iter(scenes.values())), next(iter(scenes))
    if panel is None:
        raise UserError(f"{spec_path} is an episode of {len(scenes)} scenes; render one with --panel NAME, "
                        f"NAME one of {listed}")
    if panel not in scenes:
        raise UserError(f"{spec_path} has no panel {panel!r}; expected one of {listed}")
    return scenes[panel], panel


def cmd_render_spec(args) -> int:
    quality = options.quality(args.quality) if args.quality else None
    device = options.device(args.device)
    passes = options.passes(args.passes)
    out = options.output(args.out)
    scene, stem = choose_scene(load_spec(args.spec), args.spec, args.panel)
    # Never over a dataset's files, nor another file unless --force.
    for name in (f"{stem}.png", f"{stem}.json", *files_of(stem, passes)):
        options.new_file(out / name, "--out", args.force)
    probe_writable(out)
    return render_scene(scene, out, stem, quality=quality, device=device, source=str(args.spec), passes=passes)


def register(sub) -> None:
    s = sub.add_parser("schema", help="print the JSON Schema of a release file (episode.json, info.json) or an image's JSON")
    s.add_argument("--kind", default="episode", help=f"one of {', '.join(schemas())} (default episode)")
    s.set_defaults(func=cmd_schema)

    s = sub.add_parser("tasks", help="list every benchmark's tasks, one line each")
    s.set_defaults(func=cmd_tasks)

    s = sub.add_parser("validate", help="check an episode.json or scene spec against its rules")
    s.add_argument("path", type=Path)
    s.set_defaults(func=cmd_validate)

    s = sub.add_parser("render-spec", help="render one scene spec JSON to a PNG and its ground truth (debugging)")
    s.add_argument("spec", type=Path)
    s.add_argument("--out", required=True, type=Path)
    s.add_argument("--quality", default=None, help="preview, draft, default or paper (default: the spec's own settings)")
    s.add_argument("--device", default="auto")
    s.add_argument("--panel", default=None, metavar="NAME",
                   help="for an episode.json: the context panel to render, or 'question' for the query")
    options.add_passes_argument(s)
    s.add_argument("--force", action="store_true", help="replace an existing <stem>.png and .json (and passes) in --out")
    s.set_defaults(func=cmd_render_spec)
