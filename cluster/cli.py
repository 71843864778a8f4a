"""The `mewl` command (also `python -m cluster`)."""
from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from pathlib import Path

from . import audit, calibrate, icy_metrics, index, inspect, options, render_cmd, slurm, text, verify
from .errors import UserError


SCHEMA_KINDS = ("episode", "info", "image")


def cmd_schema(args) -> int:
    from scenes import image_truth, spec
    from scenes.mewl_release import InfoJson

    if args.kind not in SCHEMA_KINDS:
        raise UserError(f"unknown --kind {args.kind!r}; expected one of {', '.join(SCHEMA_KINDS)}")
    schemas = {"episode": spec.schema, "info": lambda: InfoJson.model_json_schema(by_alias=True),
               "image": image_truth.schema}
    print(json.dumps(schemas[args.kind](), indent=2))
    return 0


def cmd_sample(args) -> int:
    from .dataset import claim_output
    from .sample import sample_to_disk

    from .planning import Settings

    tasks = options.task_list(args.task)
    n = options.item_count(args.n)
    split, seed = options.split(args.split), options.seed(args.seed)
    settings = Settings(out=args.out, split=split, seed=seed, quality="",
                        scheme=options.split_scheme(args.split_scheme, tasks, split), configs=options.configs(args, tasks)[0])
    workers = options.workers(args.workers)
    claim_output(args.out, settings.manifest("specs"), options.benchmarks(tasks))
    failed = sample_to_disk(settings, tasks, n, workers)
    for reason in failed:
        print(f"failed: {reason}", file=sys.stderr)
    print(f"sampled {len(tasks)} task(s) x {n} items into {args.out / split} ({len(failed)} failed)")
    return 1 if failed else 0


def cmd_tasks(args) -> int:
    """Every task, one line each, grouped by benchmark."""
    from tasks import BENCHMARKS

    width = max(len(t.name) for b in BENCHMARKS.values() for t in b.tasks)
    for bench in BENCHMARKS.values():
        print(f"{bench.name}: {bench.summary}")
        for t in bench.tasks:
            schemes = "" if len(t.schemes) == 1 else f" [--split-scheme {', '.join(s.name for s in t.schemes[1:])}]"
            print(f"  {t.name:<{width}}  {t.images} image(s)  {t.summary}{schemes}")
    print("TASK may be a task, a benchmark (all of its tasks), all, or a comma list of those.")
    return 0


def cmd_validate(args) -> int:
    from .validate import validate_file

    print(validate_file(args.path))
    return 0


def cmd_render_spec(args) -> int:
    from render import DeviceError, SpecError, output_stem, render_spec_file

    from .dataset import probe_writable

    quality = options.quality(args.quality) if args.quality else None
    device = options.device(args.device)
    out = options.output(args.out)
    try:
        stem = output_stem(args.spec, args.panel)
        for suffix in (".png", ".json"):  # never over a dataset's files, nor another file unless --force
            options.new_file(out / f"{stem}{suffix}", "--out", args.force)
        probe_writable(out)
        return render_spec_file(args.spec, out, quality=quality, device=device, panel=args.panel)
    except (SpecError, DeviceError) as err:
        raise UserError(str(err)) from None


def build_parser() -> options.Parser:
    p = options.Parser(prog="mewl", description="Generate MEWL few-shot word-learning benchmarks.")
    p.add_argument("--version", action="version", version=version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=options.Parser)

    s = sub.add_parser("schema", help="print the JSON Schema of episode.json, info.json or an image's JSON")
    s.add_argument("--kind", default="episode", help="episode (the spec, with every scene), info or image")
    s.set_defaults(func=cmd_schema)

    s = sub.add_parser("tasks", help="list every benchmark's tasks, one line each")
    s.set_defaults(func=cmd_tasks)

    s = sub.add_parser("sample", help="sample items' specs (no rendering)")
    options.add_dataset_arguments(s, preset=False)
    s.add_argument("--workers", default=None, help="processes (default: every core)")
    s.set_defaults(func=cmd_sample)

    s = sub.add_parser("validate", help="check an episode.json or scene spec against its rules")
    s.add_argument("path", type=Path)
    s.set_defaults(func=cmd_validate)

    s = sub.add_parser("render-spec", help="render one scene spec JSON to a PNG and its ground truth (debugging)")
    s.add_argument("spec", type=Path)
    s.add_argument("--out", required=True, type=Path)
    s.add_argument("--quality", default=None, help="draft, default or paper (default: the spec's own settings)")
    s.add_argument("--device", default="auto")
    s.add_argument("--panel", default=None, metavar="NAME",
                   help="for an episode.json: the context panel to render, or 'question' for the query")
    s.add_argument("--force", action="store_true", help="replace an existing <stem>.png and .json in --out")
    s.set_defaults(func=cmd_render_spec)

    # Subcommands that live beside their implementation.
    for module in (render_cmd, calibrate, inspect, slurm, verify, text, audit, index, icy_metrics):
        module.register(sub)
    return p


def version() -> str:
    """This generator's version and the bpy it renders with (read without importing bpy)."""
    from scenes.spec import GENERATOR_VERSION

    try:
        bpy = metadata.version("bpy")
    except metadata.PackageNotFoundError:
        bpy = "not installed"
    return f"{GENERATOR_VERSION} (bpy {bpy}, Python {sys.version.split()[0]})"


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        code = args.func(args)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
        return code
    except UserError as err:
        print(f"mewl: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mewl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a pipe of ours (a worker's), not the reader's: a bug
        return 141  # what a shell reports for a program ended by SIGPIPE


def _stdout_closed() -> bool:
    """After `mewl ... | head` the reader is gone: stop writing quietly, with
    stdout pointed at /dev/null so Python's exit flush does not complain. A
    one-byte write tells (a failed print leaves nothing buffered to flush)."""
    try:
        os.write(sys.stdout.fileno(), b"\n")
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return True
    except (OSError, ValueError):  # no file descriptor behind stdout
        pass
    return False


if __name__ == "__main__":
    sys.exit(main())
