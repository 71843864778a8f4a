"""What SLURM says about a job `mewl slurm` submitted, per array task: pending
and why, running where, or how it ended (state and exit code). `scontrol`
knows a job while SLURM keeps it (MinJobAge after it ends); `sacct` answers
after that where the cluster keeps accounting, and nothing is said where
neither knows. Some pending reasons can never clear: they are named."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .query import Unreachable, array_indices, ask, job_records

# Pending reasons no wait clears: the request itself is wrong for the cluster.
NEVER_CLEARS = {
    "PartitionConfig": "it asks for more CPUs, memory, GPUs or nodes than its partition allows",
    "PartitionTimeLimit": "its --time is over its partition's MaxTime",
    "PartitionNodeLimit": "it asks for more nodes than its partition allows",
    "BadConstraints": "no node has the features or resources it asks for",
    "DependencyNeverSatisfied": "the job it waits for ended in a way that can never satisfy it",
    "InvalidQOS": "its QOS is not valid for it",
    "InvalidAccount": "its account is not valid for it",
    "QOSMaxWallDurationPerJobLimit": "its --time is over its QOS's limit",
    "AssocMaxWallDurationPerJobLimit": "its --time is over its account's limit",
}
FAILED_STATES = ("FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "BOOT_FAIL", "DEADLINE", "CANCELLED", "PREEMPTED")


@dataclass(frozen=True)
class TaskState:
    state: str  # PENDING, RUNNING, COMPLETED, FAILED, ...
    reason: str = "None"
    exit_code: str = "0:0"  # SLURM's code:signal
    node: str = ""
    restarts: int = 0

    def describe(self) -> str:
        """'PENDING (Priority)', 'RUNNING on node7', 'FAILED, exit code 0:9 (killed by signal 9)', ..."""
        if self.state == "PENDING":
            text = f"PENDING ({self.reason})"
        elif self.state in ("RUNNING", "COMPLETING", "CONFIGURING"):
            text = f"{self.state} on {self.node}"
        else:
            text = self.state + (f" on {self.node}" if self.node and self.state != "COMPLETED" else "")
            signal = self.exit_code.partition(":")[2]
            if self.exit_code not in ("", "0:0"):
                text += f", exit code {self.exit_code}" + (f" (killed by signal {signal})" if signal not in ("", "0") else "")
            if self.state != "COMPLETED" and self.reason not in ("None", ""):
                text += f", reason {self.reason}"
        return text + (f", requeued {self.restarts} time(s)" if self.restarts else "")

    @property
    def failed(self) -> bool:
        return self.state.split()[0] in FAILED_STATES


def states(job_id: str) -> dict[int | None, TaskState]:
    """Per array task (None for a job that is not an array); empty when SLURM
    no longer knows the job. Unreachable where SLURM cannot be asked."""
    found: dict[int | None, TaskState] = {}
    for r in job_records(job_id):
        node = r.get("NodeList", "")
        state = TaskState(r.get("JobState", "?"), r.get("Reason", "None"), r.get("ExitCode", ""),
                          "" if node == "(null)" else node, int(r.get("Restarts", "0") or 0))
        for i in array_indices(r["ArrayTaskId"]) if r.get("ArrayTaskId") else [None]:
            found[i] = state
    return found or _accounting(job_id)


def _accounting(job_id: str) -> dict[int | None, TaskState]:
    """From sacct, where the cluster keeps accounting (empty where it does not)."""
    try:
        text = ask("sacct", "-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,ExitCode,NodeList,Reason", timeout=30)
    except Unreachable:
        return {}
    found: dict[int | None, TaskState] = {}
    for line in text.splitlines():
        parts = line.split("|")
        if len(parts) != 5:
            continue
        job, state, code, node, reason = parts
        _, _, task = job.partition("_")
        for i in array_indices(task.strip("[]")) if task else [None]:
            found[i] = TaskState(state.split()[0], reason or "None", code, "" if node == "None assigned" else node)
    return found


def never_clears(state: TaskState) -> str | None:
    """Why a pending task can never start, or None where waiting may help."""
    if state.state != "PENDING":
        return None
    reason = state.reason.split(",")[0]
    if reason in NEVER_CLEARS:
        return f"{reason}: {NEVER_CLEARS[reason]}"
    if reason == "ReqNodeNotAvail":
        listed = re.search(r"UnavailableNodes:(\S*)", state.reason)
        nodes = listed.group(1) if listed else ""
        if not nodes or not _known_nodes(nodes):
            return "ReqNodeNotAvail: the nodes it asks for do not exist" + (f" ({nodes})" if nodes else "")
    return None


def _known_nodes(expression: str) -> bool:
    try:
        return bool(ask("sinfo", "-h", "-N", "-n", expression, "-o", "%N", timeout=30).strip())
    except Unreachable:
        return True  # cannot tell: not said to be hopeless


def resume_advice(noun: str) -> str:
    """How the items an interrupted `mewl render` did not finish get done: locally
    the same command again; in an array task SLURM is requeueing, by the task
    itself when it runs again (SLURM counts the restart before it sends SIGTERM)."""
    job = os.environ.get("SLURM_JOB_ID")
    if not job:
        return "rerun the same command to resume"
    try:
        records = job_records(job)
    except Unreachable:
        records = []
    restarts = max((int(r.get("Restarts", "0") or 0) for r in records), default=0)
    if restarts > int(os.environ.get("SLURM_RESTART_COUNT") or 0):
        return f"SLURM is requeueing this job (restart {restarts}): it goes on with the missing {noun}s when it runs again"
    return f"rerun the `mewl slurm` command (the same options, --submit) to resubmit the shards with missing {noun}s"
