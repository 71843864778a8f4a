"""The `mewl` command."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from . import audit, inspect, options, render_cmd, slurm
from .errors import UserError


def cmd_schema(args) -> int:
    from scenes.spec import schema

    print(json.dumps(schema(), indent=2))
    return 0


def cmd_sample(args) -> int:
    from .dataset import claim_output
    from .sample import sample_to_disk

    tasks = options.task_list(args.task)
    n = options.positive_int("--n", args.n)
    split, seed = options.split(args.split), options.seed(args.seed)
    workers = options.workers(args.workers)
    claim_output(args.out, {"seed": seed, "kind": "specs"})
    failed = sample_to_disk(args.out, tasks, n, split, seed, workers)
    for reason in failed:
        print(f"failed: {reason}", file=sys.stderr)
    print(f"sampled {len(tasks)} task(s) x {n} episodes into {args.out / split} ({len(failed)} failed)")
    return 1 if failed else 0


def cmd_validate(args) -> int:
    from .validate import validate_file

    print(validate_file(args.path))
    return 0


def cmd_render_spec(args) -> int:
    from render import DeviceError, SpecError, render_spec_file

    quality = options.quality(args.quality) if args.quality else None
    device = options.device(args.device)
    try:
        return render_spec_file(args.spec, args.out, quality=quality, device=device)
    except (SpecError, DeviceError) as err:
        raise UserError(str(err)) from None


def build_parser() -> options.Parser:
    p = options.Parser(prog="mewl", description="Generate MEWL few-shot word-learning benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=options.Parser)

    s = sub.add_parser("schema", help="print the JSON Schema of episodes and scene specs")
    s.set_defaults(func=cmd_schema)

    s = sub.add_parser("sample", help="sample episode specs (no rendering)")
    s.add_argument("--task", required=True, help="a task name, a comma list, or all")
    s.add_argument("--n", required=True, help="episodes per task")
    s.add_argument("--out", required=True, type=Path)
    s.add_argument("--split", default="train")
    s.add_argument("--seed", default="0")
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
    s.set_defaults(func=cmd_render_spec)

    # Subcommands that live beside their implementation.
    for module in (render_cmd, inspect, slurm, audit):
        module.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UserError as err:
        print(f"mewl: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mewl: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
