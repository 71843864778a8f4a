"""The command reference of the documentation (docs/commands.md), generated from the argument parser
itself: every subcommand's description and its --help, so the documentation cannot drift from the
options the program takes. The documentation site's build calls `markdown()` (docs/hooks.py)."""
from __future__ import annotations

import os


def markdown() -> str:
    from .main import build_parser

    os.environ.setdefault("COLUMNS", "100")  # argparse wraps --help to the terminal: the same width every build
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    parts = ["# Commands", "",
             "Every subcommand of `mewl`, as `mewl <command> --help` prints it. This page is generated from the "
             "program's own argument parser when the site is built.", "",
             "```", parser.format_help().rstrip(), "```", ""]
    for name, command in sub.choices.items():
        parts += [f"## mewl {name}", "", command.description or "", "", "```", command.format_help().rstrip(), "```", ""]
    return "\n".join(parts)
