"""What the partitions of a submission allow, read from SLURM before submitting
(`scontrol show partition`, `sinfo`), and a request fitted to them or refused.

SLURM accepts a job no node can run while EnforcePartLimits is at its default
and leaves it PENDING for ever (PartitionConfig, PartitionTimeLimit); here such
a request is one line naming the limit and the value to use, and a default
(CPUs, memory) the user did not give is lowered to what a node has.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mewl_gen.errors import UserError

from ..hardware import MEM_PARENT_MB, MEM_PER_WORKER_MB
from .query import Unreachable, ask, fields, gpus, job_records, megabytes, seconds
from .script import Request


@dataclass(frozen=True)
class Node:
    name: str
    cpus: int
    mem_mb: int
    gpus: int


@dataclass(frozen=True)
class Partition:
    name: str
    max_time: int | None  # seconds; None: unlimited
    max_cpus_per_node: int | None
    max_mem_per_node: int | None  # MB
    max_mem_per_cpu: int | None  # MB: SLURM raises the CPUs of a job that asks more per CPU
    nodes: tuple[Node, ...]


def read_partitions(names: str | None) -> list[Partition]:
    """The partitions asked for (a comma list), or the cluster's default one."""
    known = {f["PartitionName"]: f for f in map(fields, ask("scontrol", "-o", "show", "partition").splitlines())
             if "PartitionName" in f}
    if names is None:
        chosen = [n for n, f in known.items() if f.get("Default") == "YES"]
        if not chosen:
            raise UserError("this cluster has no default partition; name one with --partition "
                            f"({', '.join(known) or 'none found'})")
    else:
        chosen = names.split(",")
        unknown = [n for n in chosen if n not in known]
        if unknown:
            raise UserError(f"--partition {unknown[0]}: no such partition; this cluster has {', '.join(known)}")
    return [_partition(known[name]) for name in chosen]


def _partition(f: dict[str, str]) -> Partition:
    limit = {k: megabytes(f.get(k, "UNLIMITED")) for k in ("MaxCPUsPerNode", "MaxMemPerNode", "MaxMemPerCPU")}
    nodes = []
    for line in ask("sinfo", "-h", "-N", "-p", f["PartitionName"], "-o", "%N|%c|%m|%G").splitlines():
        name, cpus, mem, gres = line.strip().split("|")
        nodes.append(Node(name, int(cpus.rstrip("+")), int(mem.rstrip("+")), gpus(gres)))
    return Partition(f["PartitionName"], seconds(f.get("MaxTime", "UNLIMITED")), limit["MaxCPUsPerNode"],
                     limit["MaxMemPerNode"], limit["MaxMemPerCPU"], tuple(nodes))


def fit(req: Request, parts: list[Partition], given: set[str]) -> tuple[Request, list[str]]:
    """The request with its defaults fitted to the partitions (a comma list: the
    most any of them offers), and a line per value lowered; a value given
    (`given` holds 'cpus', 'mem') that no node can satisfy is refused."""
    where = f"partition{'s' if len(parts) > 1 else ''} {','.join(p.name for p in parts)}"
    notes: list[str] = []
    fits = [(p, n) for p in parts for n in p.nodes if n.gpus >= req.gpus_per_task]
    if not fits:
        most = max((n.gpus for p in parts for n in p.nodes), default=0)
        raise UserError(f"{where} has no GPUs: use --gpus-per-task 0 --device cpu, or a partition with GPUs"
                        if most == 0 else f"--gpus-per-task {req.gpus_per_task}: the nodes of {where} have at most "
                        f"{most} GPU(s); use --gpus-per-task {most} or less")
    cpus = max(_cpus(p, n) for p, n in fits)
    if req.cpus_per_task > cpus:
        if "cpus" in given:
            raise UserError(f"--cpus-per-task {req.cpus_per_task}: no node of {where}{_gpus(req)} has more than "
                            f"{cpus} CPUs for a job; use --cpus-per-task {cpus} or less")
        notes.append(f"the nodes of {where}{_gpus(req)} have at most {cpus} CPUs for a job: asking "
                     f"--cpus-per-task {cpus} (default {req.cpus_per_task})")
        req = dataclasses.replace(req, cpus_per_task=cpus)
    if not any(a.startswith("--mem-per-") for a in req.sbatch_args):  # else SLURM checks memory per CPU or GPU
        req = _fit_mem(req, [(p, n) for p, n in fits if _cpus(p, n) >= req.cpus_per_task], "mem" in given, where, notes)
    return _time(req, parts, where), notes


def _fit_mem(req: Request, fits: list[tuple[Partition, Node]], given: bool, where: str, notes: list[str]) -> Request:
    mem = max(_mem_cap(p, n) for p, n in fits)
    if megabytes(req.mem) <= mem:
        return req
    gpus_too = f" and {req.gpus_per_task} GPU(s)" if req.gpus_per_task else ""
    nodes = f"no node of {where} with {req.cpus_per_task} CPUs{gpus_too} has more than {mem}M for a job"
    if given:
        raise UserError(f"--mem {req.mem}: {nodes}; use --mem {mem}M or less")
    per_worker = MEM_PER_WORKER_MB * max(1, req.gpus_per_task)
    if mem < MEM_PARENT_MB + per_worker:  # not even one Blender per GPU
        raise UserError(f"{nodes}, less than one Blender worker needs ({MEM_PARENT_MB + per_worker}M); "
                        "use a partition with more memory")
    if req.workers_per_gpu:
        most = (mem - MEM_PARENT_MB) // per_worker
        raise UserError(f"--workers-per-gpu {req.workers_per_gpu} needs --mem {req.mem}: {nodes}; "
                        f"use --workers-per-gpu {most} or less")
    notes.append(f"the nodes of {where} have at most {mem}M for a job: asking --mem {mem}M (default {req.mem})")
    return dataclasses.replace(req, mem=f"{mem}M")


def _cpus(p: Partition, n: Node) -> int:
    return min(n.cpus, p.max_cpus_per_node or n.cpus)


def _mem_cap(p: Partition, n: Node) -> int:
    """The most memory a job may have on node n of p (MB)."""
    caps = [n.mem_mb, p.max_mem_per_node or n.mem_mb]
    if p.max_mem_per_cpu:  # more per CPU makes SLURM add CPUs, up to the node's
        caps.append(p.max_mem_per_cpu * _cpus(p, n))
    return min(caps)


def _time(req: Request, parts: list[Partition], where: str) -> Request:
    longest = [p.max_time for p in parts]
    if req.time is None or None in longest or seconds(req.time) <= max(longest):
        return req
    most = _clock(max(longest))
    raise UserError(f"--time {req.time} is over the MaxTime of {where} ({most}); use --time {most} or less")


def _clock(total: int) -> str:
    days, rest = divmod(total, 86400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def _gpus(req: Request) -> str:
    return f" with {req.gpus_per_task} GPU(s)" if req.gpus_per_task else ""


def accepted(job: str, req: Request) -> str:
    """One line on what SLURM made of the array's request, checked against the
    partition it put the array in: a request it turned into one no node of that
    partition can run is refused (the caller cancels the array)."""
    records = job_records(job)
    if not records:
        raise UserError(f"SLURM does not know array job {job}, which it just accepted")
    r = records[0]
    part, limit = r.get("Partition", req.partition or "?"), r.get("TimeLimit", "UNLIMITED")
    cpus = int(r.get("NumCPUs") or req.cpus_per_task)
    mem = r.get("MinMemoryNode", "0")
    got = dataclasses.replace(req, partition=part, cpus_per_task=cpus, mem=mem if megabytes(mem) else req.mem,
                              time=None if seconds(limit) is None else limit)
    try:
        fit(got, read_partitions(part), given={"cpus", "mem"})
    except UserError as err:
        raise UserError(f"SLURM made array job {job} a request no node of {part} can run ({err})") from None
    changed = ([f"CPUs {cpus} (asked {req.cpus_per_task})"] if cpus != req.cpus_per_task else []) + (
        [f"memory {got.mem} (asked {req.mem})"] if "MinMemoryNode" in r and megabytes(got.mem) != megabytes(req.mem) else [])
    memory = f"{got.mem} of memory" if "MinMemoryNode" in r else f"{r.get('MinMemoryCPU', '?')} of memory per CPU"
    return (f"SLURM accepted array job {job}: partition {part}, {cpus} CPU(s), {memory} and time limit {limit} "
            "per array task" + (f"; SLURM changed {', '.join(changed)}" if changed else ""))


def fit_to_cluster(req: Request, given: set[str]) -> tuple[Request, list[str]]:
    """`fit` against the partitions SLURM has now."""
    try:
        parts = read_partitions(req.partition)
    except Unreachable as err:
        raise UserError(f"cannot read the partitions' limits ({err}); is this a login node of the cluster?") from None
    return fit(req, parts, given)
