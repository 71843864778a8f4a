"""The `mewl` command (also `python -m mewl_gen`): every subcommand registered, and
every user's mistake turned into one line and exit status 2."""
from __future__ import annotations

import os
import sys
from importlib import metadata

from mewl_gen.errors import OUTPUT_FAULTS, UserError, shown
from mewl_gen.scenes.spec import GENERATOR_VERSION
from mewl_gen.tasks import catalog

from . import (audit, calibrate, evaluate, export, gallery, inspect, options, render, sample, slurm, specs, study, text,
               verify)

LINE = 2000  # characters of an error's line: its untrusted parts are cut shorter where they are quoted


def build_parser() -> options.Parser:
    p = options.Parser(prog="mewl", description="Generate grounded-language benchmarks as rendered 3D scenes.")
    p.add_argument("--version", action="version", version=version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=options.Parser)
    for module in (specs, sample, render, calibrate, inspect, slurm, verify, text, audit, export, gallery, evaluate,
                   study):
        module.register(sub)
    for bench in catalog.BENCHMARKS:  # a benchmark's own commands (tasks.benchmark.Command)
        for command in bench.commands:
            s = sub.add_parser(command.name, help=command.help)
            command.arguments(s)
            s.set_defaults(func=command.run)
    for action in sub._choices_actions:  # every subcommand's --help opens with what it does
        command = sub.choices[action.dest]
        if command.description is None and action.help:
            command.description = f"{action.help[0].upper()}{action.help[1:]}.".replace("%%", "%")
        for argument in command._actions:  # the dataset folder is OUT in every command (`--out OUT` where it is made)
            if argument.dest == "out" and argument.metavar is None:
                argument.metavar = "OUT"
    return p


def version() -> str:
    """This generator's version and the bpy it renders with (read without importing bpy)."""
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
    except UserError as err:  # a user's mistake at any depth (mewl_gen.errors): one line, exit 2
        _complain(f"mewl: error: {shown(err, LINE)}")
        return 2
    except KeyboardInterrupt:
        print("mewl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a pipe of ours (a worker's), not the reader's: a bug
        return 141  # what a shell reports for a program ended by SIGPIPE
    except OSError as err:
        if err.filename is not None or err.errno not in OUTPUT_FAULTS:
            raise
        # A write with no file named: stdout or stderr (a log on a full disk); OUT's own faults name theirs.
        _complain(f"mewl: error: cannot write this command's output: {err.strerror}")
        return 2


def _complain(line: str) -> None:
    """The one line of a user's error on stderr. Where stderr itself cannot be
    written (a log on a full disk), the exit status alone says it: stderr is
    pointed at /dev/null so that Python's exit flush keeps that status."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())


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
