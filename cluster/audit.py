"""`mewl audit OUT`: does a dataset test what it claims to?

Reads every OUT/<split>/<task>/<i>/episode.json (sampled or rendered; it
never imports tasks/) and runs, per task: the independent oracle (must
answer every episode), the text-only guesser, every deprived exact solver,
the learned deprived baselines, and the balance checks. Prints one table
(cluster/audit_table.py); exits 1 when the oracle misses an episode, a
baseline beats chance or a balance check fails.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from . import options
from .errors import UserError

# Other audits, chosen by a kind before OUT (`mewl audit KIND OUT`): the kind
# and "module:function", a function that takes the dataset folder and returns
# the exit status. The default kind is this module's.
DEFAULT_KIND = "solvers"
OTHER_AUDITS: dict[str, str] = {"legibility": "cluster.legibility:main", "malevic": "cluster.malevic_audit:main",
                                 "shapeworld": "cluster.shapeworld_audit:main", "bongard": "cluster.bongard_audit:main"}


def cmd_audit(args) -> int:
    kind, out = (args.first, Path(args.out)) if args.out else (DEFAULT_KIND, Path(args.first))
    if kind != DEFAULT_KIND:
        if kind not in OTHER_AUDITS:
            raise UserError(f"unknown audit {kind!r}; expected one of {', '.join([DEFAULT_KIND, *OTHER_AUDITS])}")
        module, function = OTHER_AUDITS[kind].split(":")
        return getattr(importlib.import_module(module), function)(out)
    from .audit_table import run  # scikit-learn and scipy load only for an audit

    workers = options.workers(args.workers)
    return run(out, Path(args.train) if args.train else None, args.markdown, workers)


def register(sub) -> None:
    s = sub.add_parser("audit", help="oracle, text-only, deprived and learned baselines and balance of a dataset, as one table")
    s.add_argument("first", metavar="KIND|OUT", help=f"the dataset folder, or the audit's kind before it ({DEFAULT_KIND}, the default)")
    s.add_argument("out", nargs="?", metavar="OUT", help="the dataset folder, after a kind")
    s.add_argument("--train", default=None, metavar="DIR",
                   help="fit the learned baselines on this dataset's episodes (e.g. another seed) instead of cross-validating")
    s.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    s.add_argument("--workers", default=None, help="processes (default: every core)")
    s.set_defaults(func=cmd_audit)

