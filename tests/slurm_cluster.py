"""A real single-node SLURM cluster for the e2e tests, all state in a temp folder.

Recipe measured on the development machine (Debian bookworm): Debian's slurm 22.05 and
munge, installed by .ci/install-slurm (which .ci/run calls before the tests), munged
on its own key and socket, slurmctld and slurmd as root in the foreground (so their
pids are ours), and `scontrol shutdown` at the end. Skips, with the reason, only
where SLURM is not installed or cannot be started.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

INSTALL = ".ci/install-slurm"  # installs the programs below (apt-get, as root); CI runs it
PROGRAMS = ("slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "scancel", "munged", "mungekey")
SHORT, SHORT_MAX_TIME = "short", "00:05:00"  # a partition whose MaxTime a request can exceed
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


@dataclass
class SlurmCluster:
    root: Path
    env: dict[str, str]
    procs: list[subprocess.Popen] = field(default_factory=list)

    def run(self, *argv: str, check: bool = True, timeout: float = 30) -> str:
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def job_field(self, job_id: str, name: str) -> str:
        """One field of the job's (first) record in `scontrol show job`."""
        line = self.run("scontrol", "-o", "show", "job", job_id).splitlines()[0]
        return dict(re.findall(r"(\w+)=(\S*)", line))[name]

    def job_states(self, job_id: str) -> dict[str, str]:
        """State of every job or array task of `job_id`, keyed `<id>` or `<id>_<task>`."""
        out = self.run("scontrol", "-o", "show", "job", job_id, check=False)
        states = {}
        for line in out.splitlines():
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            key = fields.get("JobId", "")
            if fields.get("ArrayTaskId"):
                key = f"{fields['ArrayJobId']}_{fields['ArrayTaskId']}"
            states[key] = fields.get("JobState", "")
        return states

    def wait(self, job_id: str, timeout: float, done=None) -> dict[str, str]:
        """Poll until every task of the job is final (or `done(states)` holds); bounded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.job_states(job_id)
            finished = done(states) if done else states and all(s in FINAL_STATES for s in states.values())
            if finished:
                return states
            time.sleep(0.5)
        raise TimeoutError(f"job {job_id} not done after {timeout:.0f} s: {self.job_states(job_id)}")

    def stop(self) -> None:
        """Cancel what is left (slurmd's shutdown would leave jobs' processes
        running), `scontrol shutdown` slurmctld and slurmd, end munged by its pid."""
        try:
            jobs = self.run("squeue", "-h", "-o", "%i", check=False).split()
            if jobs:
                self.run("scancel", *jobs, check=False)
                deadline = time.monotonic() + 30
                while self.run("squeue", "-h", "-o", "%i", check=False).split() and time.monotonic() < deadline:
                    time.sleep(0.5)
            self.run("scontrol", "shutdown", check=False)
        except subprocess.TimeoutExpired:
            pass  # the controller is gone already; its processes are ended below
        for proc in reversed(self.procs):
            if proc.args[0] == "munged":
                proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def ensure_installed() -> None:
    """Skip, naming the install script, where SLURM's programs are not on PATH."""
    missing = [p for p in PROGRAMS if not shutil.which(p)]
    if missing:
        pytest.skip(f"SLURM is not installed (missing {', '.join(missing)}): run {INSTALL} as root to install it")


def start(root: Path) -> SlurmCluster:
    """Start munged, slurmctld and slurmd under `root`; wait until the node is idle."""
    for name in ("munge", "state", "spool", "log", "run"):
        (root / name).mkdir(parents=True, exist_ok=True)
    os.chmod(root / "munge", 0o711)  # munged refuses a socket folder others cannot traverse
    conf = root / "slurm.conf"
    env = {**os.environ, "SLURM_CONF": str(conf)}
    cluster = SlurmCluster(root, env)
    munge = root / "munge"
    subprocess.run(["mungekey", "-c", "-k", str(munge / "munge.key")], check=True, capture_output=True)
    os.chmod(munge / "munge.key", 0o600)
    cluster.procs.append(_spawn(cluster, root / "log" / "munged.stdout", [
        "munged", "--foreground", "--force", f"--key-file={munge / 'munge.key'}",
        f"--socket={munge / 'munge.sock'}", f"--pid-file={munge / 'munged.pid'}",
        f"--log-file={root / 'log' / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}",
    ]))
    _wait_for(lambda: (munge / "munge.sock").exists(), 10, cluster, "munged did not create its socket")
    conf.write_text(slurm_conf(root))
    cluster.procs.append(_spawn(cluster, root / "log" / "slurmctld.stdout", ["slurmctld", "-D"]))
    cluster.procs.append(_spawn(cluster, root / "log" / "slurmd.stdout", ["slurmd", "-D"]))

    def node_idle() -> bool:
        state = cluster.run("sinfo", "-h", "-N", "-o", "%T", check=False).strip()
        return state.startswith("idle")

    _wait_for(node_idle, 30, cluster, "the node did not become idle")
    return cluster


def slurm_conf(root: Path) -> str:
    host = socket.gethostname().split(".")[0]
    node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    node = re.sub(r"^NodeName=\S+", f"NodeName={host} NodeAddr=127.0.0.1", node)
    ctld_port, slurmd_port = _free_port(), _free_port()
    return f"""\
ClusterName=mewltest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root / 'munge' / 'munge.sock'}
StateSaveLocation={root / 'state'}
SlurmdSpoolDir={root / 'spool'}
SlurmctldPidFile={root / 'run' / 'slurmctld.pid'}
SlurmdPidFile={root / 'run' / 'slurmd.pid'}
SlurmctldLogFile={root / 'log' / 'slurmctld.log'}
SlurmdLogFile={root / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
MailProg=/bin/true
MinJobAge=600
ReturnToService=2
{node}
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
PartitionName={SHORT} Nodes={host} MaxTime={SHORT_MAX_TIME} State=UP
"""


def _spawn(cluster: SlurmCluster, log: Path, argv: list[str]) -> subprocess.Popen:
    with open(log, "wb") as sink:
        return subprocess.Popen(argv, env=cluster.env, stdout=sink, stderr=subprocess.STDOUT, cwd=cluster.root)


def _wait_for(ready, timeout: float, cluster: SlurmCluster, what: str) -> None:
    deadline, dead = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        if ready():
            return
        dead = [p.args[0] for p in cluster.procs if p.poll() is not None]
        if dead:
            break
        time.sleep(0.2)
    logs = {p.name: _tail(p.read_text(errors="replace")) for p in sorted((cluster.root / "log").iterdir())}
    cluster.stop()
    pytest.skip(f"cannot start SLURM: {what}" + (f" ({', '.join(dead)} exited)" if dead else "") + f"; logs: {logs}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(text: str, lines: int = 3) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    ensure_installed()
    # A short path: munge and slurm sockets live under it.
    root = Path(tmp_path_factory.mktemp("slurm"))
    cluster = start(root)
    try:
        yield cluster
    finally:
        cluster.stop()
