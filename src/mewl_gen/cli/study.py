"""`mewl study OUT --out DIR` builds a browser experiment of a rendered dataset's items (results/study/);
`mewl study score DIR RESULTS...` scores its participants into a human row for `mewl eval`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mewl_gen.errors import UserError
from mewl_gen.results.study import build, human, plan, score, select
from mewl_gen.store.manifest import outside_datasets

from . import options

USAGE = ("mewl study OUT --out DIR [options]          build an experiment of OUT's items\n"
         "       mewl study score DIR RESULTS... [options]  score its participants' data")


def count(name: str, least: int = 0):
    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            n = least - 1
        if n < least:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number of at least {least}, not {value!r}")
        return n

    return parse


def fraction(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        x = -1.0
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, not {value!r}")
    return x


def build_parser() -> options.Parser:
    p = options.Parser(prog="mewl study", description="Build a static jsPsych experiment that measures people on "
                       "a rendered dataset's items; no answer goes into DIR (docs/study.md).")
    p.add_argument("out", help="the dataset folder (made by mewl render)")
    p.add_argument("--out", dest="dir", metavar="DIR", required=True,
                   help="a new folder to write the experiment to (never overwritten)")
    p.add_argument("--key", default=None, metavar="FILE", help="where to keep the answers, outside DIR "
                   "(default DIR.key.json beside DIR)")
    p.add_argument("--task", default="all", help="tasks, benchmarks or all (default all that people can be shown)")
    p.add_argument("--split", default="test", help="the split whose items are scored (default test)")
    p.add_argument("--items", type=count("--items", 1), default=20, help="scored items per task (default 20)")
    p.add_argument("--per-participant", type=count("--per-participant"), default=0, metavar="N",
                   help="of each task's items, how many one participant sees, drawn from their id (default 0: all)")
    p.add_argument("--practice", type=count("--practice"), default=2,
                   help="practice trials with feedback per benchmark (default 2)")
    p.add_argument("--practice-split", default="train", help="where practice items come from (default train)")
    p.add_argument("--catch", type=count("--catch"), default=2, help="catch trials per benchmark (default 2)")
    p.add_argument("--seed", type=count("--seed"), default=0, help="the study's draws: items, names, orders")
    p.add_argument("--texts", default=None, metavar="FOLDER", help="your edited texts: consent.html, "
                   "instructions.html, end.html, declined.html, <benchmark>.html (default: the templates; a built "
                   "study's DIR/texts/ holds them)")
    p.add_argument("--pilot", action="store_true", help="build a pilot whose texts may keep the templates' blanks "
                   "(\"[N] minutes\", \"[ethics board, reference]\"); without it they are refused")
    return p


def score_parser() -> options.Parser:
    p = options.Parser(prog="mewl study score", description="Score a study's participants: exclusions first, then "
                       "human accuracy per task with a bootstrap interval, and predictions for mewl eval.")
    p.add_argument("dir", metavar="DIR", help="the study folder (made by mewl study)")
    p.add_argument("results", nargs="+", metavar="RESULTS", help="participants' data files (the JSON each saves at "
                   "the end, or a host's export of them, one JSON document per line)")
    p.add_argument("--key", default=None, metavar="FILE", help="the study's key (default DIR.key.json)")
    p.add_argument("--to", required=True, metavar="FOLDER", help="a new folder for human.jsonl (predictions), "
                   "human.json (the row mewl eval --human shows) and participants.csv")
    p.add_argument("--min-catch", type=fraction, default=1.0,
                   help="exclude a participant who passes fewer catch trials than this fraction (default 1.0)")
    p.add_argument("--fast-ms", type=count("--fast-ms"), default=300,
                   help="a response faster than this many milliseconds is implausibly fast (default 300)")
    p.add_argument("--max-fast", type=fraction, default=0.25, help="exclude a participant more of whose scored "
                   "responses than this fraction are implausibly fast (default 0.25)")
    p.add_argument("--seed", type=count("--seed"), default=0, help="the bootstrap's draws (default 0)")
    p.add_argument("--resamples", type=count("--resamples", 100), default=2000,
                   help="bootstrap resamples (default 2000)")
    return p


def cmd_build(args) -> int:
    out, dest = Path(args.out), Path(args.dir)
    key = Path(args.key) if args.key else build.key_path(dest)
    build.check_places(out, dest, key)
    build.library()
    o = select.Options(args.split, options.task_list(args.task), args.items, args.per_participant, args.practice,
                       args.practice_split, args.catch, args.seed)
    texts_folder = Path(args.texts) if args.texts else None
    blanks = build.placeholders(build.read_texts(texts_folder, []))  # a bad folder or file: one line, before any item
    if blanks and not args.pilot:
        where = "; ".join(f"{name}: {', '.join(found)}" for name, found in blanks.items())
        raise UserError(f"the study's texts keep the templates' blanks ({where}); fill them in (a --pilot "
                        "build's DIR/texts/ holds every text: copy it, edit it, build again with --texts FOLDER), or "
                        "pass --pilot to build a pilot")
    rng = select.generator(args.seed)
    chosen = select.choose(out, o, rng)
    for line in chosen.lines:
        print(f"mewl study: {line}", file=sys.stderr)
    study = plan.make(chosen.tests, chosen.practice, args.catch, rng)
    names = [b["benchmark"] for b in study.blocks]
    texts = build.read_texts(texts_folder, names)
    data = build.study_data(study, texts, rng.bytes(plan.TOKEN_BYTES).hex(), args.per_participant)
    settings = {**vars(o), "pilot": args.pilot}
    build.build(out, dest, key, study, chosen.stored, data, texts, settings)
    tests = sum(1 for k in study.key.values() if k["kind"] == "test")
    print(f"wrote {'a pilot' if args.pilot else 'a study'} of {tests} item(s) of {len({s.task for s in chosen.tests})} "
          f"task(s), {len(chosen.practice)} practice and {args.catch * len(names)} catch trial(s) to {dest}; open "
          f"{dest / 'index.html'}")
    # The key maps every trial to its answer: its default name (DIR.key.json) is one the project's .gitignore skips.
    print(f"the key (each trial's item and answer) is {key.resolve()}: keep it, and never upload it with DIR")
    return 0


def cmd_score(args) -> int:
    dest = Path(args.dir)
    key = Path(args.key) if args.key else build.key_path(dest)
    outside_datasets(Path(args.to), "--to")  # before any work
    rules = score.Rules(args.min_catch, args.fast_ms, args.max_fast)
    print(rules.line())
    result = score.score(key, [Path(r) for r in args.results], rules, args.seed, args.resamples)
    for line in result.problems:
        print(f"mewl study score: {line}", file=sys.stderr)
    human.write(Path(args.to), result)
    print(human.table(result))
    print(f"wrote {Path(args.to) / 'human.jsonl'} (predictions: each item's most chosen answer) and "
          f"{Path(args.to) / 'human.json'}; show it beside a model's with mewl eval OUT PREDICTIONS --human "
          f"{Path(args.to) / 'human.json'}")
    return 0


def print_help() -> None:
    build_parser().print_help()
    print(f"\nusage: {USAGE}\n\n`mewl study score --help` tells the scoring's options.")


class Help(argparse.Action):
    """`mewl study --help`: both forms (the words after `study` are parsed by their own parsers)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print_help()
        parser.exit()


def cmd_study(args) -> int:
    words = args.words
    if words[:1] == ["score"]:
        return cmd_score(score_parser().parse_args(words[1:]))
    if not words:
        print_help()
        return 0
    return cmd_build(build_parser().parse_args(words))


def register(sub) -> None:
    s = sub.add_parser("study", add_help=False, usage=USAGE,
                       help="a browser experiment of a rendered dataset's items (jsPsych), and its scoring")
    s.add_argument("-h", "--help", action=Help, nargs=0, help="both forms and their options")
    s.add_argument("words", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_study)


__all__ = ["register"]
