"""Asking SLURM: its commands run with a bound, their `key=value` lines read,
and the sizes and times they print turned into numbers (no bpy, no OUT)."""
from __future__ import annotations

import re
import subprocess

from mewl_gen.errors import UserError

UNLIMITED = ("UNLIMITED", "INFINITE", "NONE", "")
_UNITS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


class Unreachable(UserError):
    """A SLURM command is missing, timed out or failed: one line saying which and why."""


def ask(*argv: str, timeout: float = 60) -> str:
    """stdout of a SLURM command; Unreachable where it cannot answer."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise Unreachable(f"{argv[0]} failed: {err}") from None
    if done.returncode != 0:
        lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise Unreachable(f"{argv[0]}: {lines[-1] if lines else f'exit code {done.returncode}'}")
    return done.stdout


def fields(line: str) -> dict[str, str]:
    """One line of `scontrol -o show ...`: every key=value (a value runs to the next space)."""
    return dict(re.findall(r"(\w+)=(\S*)", line))


def job_records(job_id: str) -> list[dict[str, str]]:
    """`scontrol -o show job ID`: one record per job, array task or pending
    range of array tasks; empty when SLURM no longer knows the job."""
    try:
        text = ask("scontrol", "-o", "show", "job", job_id, timeout=30)
    except Unreachable as err:
        if "Invalid job id" in str(err):
            return []
        raise
    return [fields(line) for line in text.splitlines() if line.strip()]


def megabytes(value: str) -> int | None:
    """'8G' -> 8192, '8000' -> 8000 (sbatch's unit is M), 'UNLIMITED' -> None."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", value.strip().upper())
    if match is None:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2) or "M"])


def seconds(value: str) -> int | None:
    """A SLURM time ('M', 'M:S', 'H:M:S', 'D-H', 'D-H:M', 'D-H:M:S') in seconds; None when unlimited."""
    if value.strip().upper() in UNLIMITED:
        return None
    days, _, clock = value.strip().rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    if days:  # D-H, D-H:M, D-H:M:S
        h, m, s = (parts + [0, 0])[:3]
    else:  # M, M:S, H:M:S
        h, m, s = ([0] + parts if len(parts) == 2 else [0, parts[0], 0] if len(parts) == 1 else parts)
    return ((int(days or 0) * 24 + h) * 60 + m) * 60 + s


def array_indices(spec: str) -> list[int]:
    """'0-3,7%2' (scontrol's ArrayTaskId of a pending range) -> [0, 1, 2, 3, 7]."""
    found: list[int] = []
    for part in spec.split("%")[0].split(","):
        first, _, last = part.partition("-")
        if first.isdigit():
            found += range(int(first), int(last or first) + 1)
    return found


def gpus(gres: str) -> int:
    """GPUs in a node's Gres ('gpu:a100:4(S:0-1),gpu:2', '(null)')."""
    total = 0
    for item in re.sub(r"\([^)]*\)", "", gres).split(","):
        parts = item.strip().split(":")
        if parts[0] == "gpu":
            total += int(parts[-1]) if len(parts) > 1 and parts[-1].isdigit() else 1
    return total
