"""The command as a test runs it. `mewl_here(...)` (also the fixture `mewl`) in the test's own process, where
a test reads what it printed or patches what it calls; `mewl_process(...)` in a process of its own, where the
process is what is tested (its exit status through a real pipe, its memory bound, its time limit); MEWL, the
installed command, for a process a test drives itself (signals, concurrency, a real interpreter). The first
two give the same Ran, so a test reads alike whichever it uses."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple
from unittest import mock

MEWL = [str(Path(sys.executable).parent / "mewl")]  # the installed command


class Ran(NamedTuple):
    """What one run of the command gave: its exit status and what it printed (`code, out, err = ran` too)."""
    returncode: int
    stdout: str
    stderr: str


def mewl_here(*args, cwd=None, env=None) -> Ran:
    """`mewl ARGS` in this process, what it prints captured; arguments may be paths or numbers. `cwd` and
    `env` (which replaces the environment, as subprocess.run's does) hold for this run alone."""
    from mewl_gen.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        if env is not None:
            stack.enter_context(mock.patch.dict(os.environ, env, clear=True))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main([str(a) for a in args])
        except SystemExit as stop:  # argparse's --help, as a process ends on it
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return Ran(code, out.getvalue(), err.getvalue())


def mewl_process(*args, cwd=None, env=None, timeout: float = 600, memory: int | None = None) -> Ran:
    """`mewl ARGS` as its own process, its output captured as text; bounded by `timeout` seconds and, given
    `memory`, by the bytes of address space it may add to what it starts with. `env` replaces the
    environment, as subprocess.run's does. For a run the test must bound: the hostile datasets' (a command
    that swells or hangs on one fails its test instead of the test session).

    The process is a fork of this one running the command's entry point (`mewl` is `cli.main:main`), with
    its own pid, standard streams on pipes, environment, working folder and exit status, and Python's
    default logging. A fork, not a fresh interpreter: the bound is on what the command adds, measured from
    the same start for every run, and the libraries it imports (four seconds for an export's) are imported
    once in the test process, not again in each of the hostile tests' hundreds of runs.

    The memory bound is a growth, not an absolute size: the child starts as a copy of this test process,
    with whatever it has imported and allocated (numpy, perhaps torch), so RLIMIT_AS of 2 GB would measure
    the test session's history rather than the command. The child reads its own VmSize from
    /proc/self/status just before the command starts and sets RLIMIT_AS to that plus `memory`: the command
    may grow by at most `memory` bytes (allocating past it raises MemoryError, which prints a traceback).
    Processes it starts inherit that limit as it stands, absolute."""
    import mewl_gen.cli.main  # noqa: F401  (imported once, here, so that each child starts at once)

    argv = [str(a) for a in args]
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        _run_in_child(argv, (out_r, out_w, err_r, err_w), cwd, env, memory)
    os.close(out_w)
    os.close(err_w)
    try:
        out, err = _read_until_exit(pid, out_r, err_r, timeout, argv)
    finally:
        os.close(out_r)
        os.close(err_r)
    _, status = os.waitpid(pid, 0)
    return Ran(os.waitstatus_to_exitcode(status), out, err)


def _run_in_child(argv: list[str], fds: tuple[int, ...], cwd, env, memory: int | None) -> None:
    """The command in a forked child, as a fresh `mewl` would run it; never returns."""
    import io
    import logging
    import signal
    import traceback

    code, loky = 1, None
    try:
        out_r, out_w, err_r, err_w = fds
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in fds:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=False)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
        sys.argv = [MEWL[0], *argv]
        signal.signal(signal.SIGINT, signal.default_int_handler)
        logging.root.handlers.clear()  # pytest's capture handlers: a fresh process has none
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        loky = _own_process_pool()
        from mewl_gen.cli.main import main

        if memory is not None:
            _bound_growth(memory)
        code = main(argv)
    except SystemExit as stop:  # argparse's --help and its errors, as a process ends on them
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
    except BaseException:  # a bug: its traceback, as Python prints one, and exit status 1
        traceback.print_exc()
    finally:
        try:
            if loky is not None and loky._executor is not None:  # as the interpreter's exit would: no worker left
                loky._executor.shutdown(wait=True, kill_workers=True)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _bound_growth(memory: int) -> None:
    """RLIMIT_AS at this process's present address space plus `memory` bytes (see mewl_process)."""
    import resource

    with open("/proc/self/status") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    limit = kib * 1024 + memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _own_process_pool():
    """joblib's pool of worker processes is made once per process and reused: a child forked from a test
    process that used one (the shared samples) would reuse its parent's, whose threads it does not have,
    and hang. The child forgets it and makes its own, as a fresh `mewl` does (joblib's loky module)."""
    try:
        from joblib.externals.loky import reusable_executor
    except ImportError:  # a joblib without loky: no pool to share
        return None
    reusable_executor._executor = None
    reusable_executor._executor_kwargs = None
    return reusable_executor


def _read_until_exit(pid: int, out_r: int, err_r: int, timeout: float, argv: list[str]) -> tuple[str, str]:
    """Both pipes read to their end (the child's exit), or the child killed after `timeout` seconds."""
    import selectors
    import signal
    import time

    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired([*MEWL, *argv], timeout)
            for key, _ in selector.select(left):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
    return tuple(b"".join(chunks[fd]).decode(errors="replace") for fd in (out_r, err_r))
