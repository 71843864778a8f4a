"""Worker: a long-lived Blender child process that renders spec after spec.

bpy cannot be restarted inside a process, and a long-lived Blender grows, so
the Blender side lives in a child (`python -m mewl_gen.render.server`) that is started
lazily and replaced after `max_scenes` renders. This module never imports bpy.

Every file of the child (Blender's log, the object-index and pass EXRs, Blender's
own session folder, and with `render_to_scratch` the image, passes and truth
themselves) lives in one folder per worker, removed when the worker closes: a
fresh folder under `temp_dir` if given, else under the system's temporary
folder. It is never inside an output folder others may write: Blender's
process saves and renames by path, so a folder there swapped for a link would
send its files where the link points; the caller copies them into its output
through its own held folders (cluster.item_job).
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from mewl_gen.errors import NO_SPACE_TEXT, ScratchFault, UserError, full_disk
from mewl_gen.scenes.spec import SceneSpec

from . import storage
from .passes import PASSES, files_of
from .result import RenderResult

log = logging.getLogger("render")

DEVICES = ("auto", "cpu", "optix", "cuda", "hip", "oneapi", "metal")
START_TIMEOUT = 300.0  # building the scene; a first OptiX start compiles kernels
RENDER_TIMEOUT = 3600.0
RENDERS = "renders"  # render_to_scratch's files, in the worker's scratch folder


def denoiser_for(device: str) -> str:
    """Cycles' denoiser for a device description (render.devices.configure's): OptiX's own on
    an OptiX GPU, the fastest there; OpenImageDenoise elsewhere, on the GPU where there is one."""
    return "OPTIX" if device.startswith("optix:") else "OPENIMAGEDENOISE"


SCRATCH_PREFIX = "mewl-worker-"
ALIVE = ".alive"  # locked by the worker's process for as long as it lives; the kernel lets go when it dies
LOCKLESS_AGE = 24 * 3600.0  # seconds: a scratch folder without its lock file (killed as it began, or older code)


def sweep_scratch(root: Path) -> int:
    """Remove the scratch folders under `root` that no living worker holds: a worker killed with SIGKILL (a
    job's time limit, kill -9) leaves its folder, Blender's files in it. A folder is another's while its lock
    is held, so another run's live folders, on this machine or another sharing `root`, are left alone; so are
    other users' folders and anything that is not a plain folder. Returns how many were removed."""
    try:
        names = [e.name for e in os.scandir(root) if e.name.startswith(SCRATCH_PREFIX)]
    except OSError:
        return 0
    return sum(_swept(Path(root) / name) for name in names)


def _swept(folder: Path) -> bool:
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False  # gone, a link, not a folder, not ours to read
    try:
        st = os.fstat(dfd)
        if st.st_uid != os.getuid():
            return False
        try:
            lock = os.open(ALIVE, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:  # killed as it began, or older code; or a worker starting now, which is young
            if time.time() - st.st_mtime < LOCKLESS_AGE:
                return False
            shutil.rmtree(folder, ignore_errors=True)
            return True
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(folder, ignore_errors=True)  # walks by descriptors: never follows a link out
            return True
        except OSError:
            return False  # held: its worker lives (or the filesystem has no locks: left alone)
        finally:
            os.close(lock)
    except OSError:
        return False
    finally:
        os.close(dfd)


class DeviceError(UserError, ValueError):
    """The requested device or GPU ids are not available."""


class RenderError(RuntimeError):
    """The Blender child failed (a bug or a crash, not a scene to re-place)."""




class Worker:
    def __init__(self, device: str = "auto", gpu_ids: list[int] | None = None, threads: int | None = None,
                 max_scenes: int = 200, render_timeout: float = RENDER_TIMEOUT, temp_dir: Path | None = None,
                 warm_up: bool | None = None):
        """`warm_up`: render a tiny untimed scene when Blender starts, so the first real
        image does not pay for kernel compilation; None means on a GPU only."""
        if device not in DEVICES:
            raise DeviceError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
        if max_scenes < 1:
            raise ValueError(f"max_scenes must be at least 1, got {max_scenes}")
        self.options = {"device": device, "gpu_ids": gpu_ids, "threads": threads, "warm_up": warm_up}
        self.max_scenes = max_scenes
        self.render_timeout = render_timeout
        self.temp_dir = temp_dir
        self._scratch: Path | None = None  # this worker's temporary folder while a child runs
        self.device: str | None = None  # the device actually used, once started
        self.blender_version: str | None = None
        self.warm_up_seconds: float | None = None  # the last start's warm-up render, if any
        self.starts = 0  # child processes started so far
        self._proc: subprocess.Popen | None = None
        self._log = None
        self._log_mark = 0  # where the log stood when the render in hand began
        self._scenes = 0

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> None:
        if self._proc is not None:
            return
        if self.temp_dir is not None:  # never its parents: they may be an output folder removed under the run
            Path(self.temp_dir).mkdir(exist_ok=True)
        swept = sweep_scratch(self.scratch_root)
        if swept:
            log.info("removed %d scratch folder(s) of killed renderers in %s", swept, self.scratch_root)
        self._scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=self.temp_dir))
        self._alive = os.open(self._scratch / ALIVE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._alive, fcntl.LOCK_EX)  # not inherited by Blender's process (close-on-exec)
        (self._scratch / RENDERS).mkdir()
        self._log = open(self._scratch / "blender.log", "w+b")
        self._log_mark = 0
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "mewl_gen.render.server"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            env={**os.environ, "TMPDIR": str(self._scratch)},  # Blender's and Python's temp files, ours to remove
        )
        self._send = Connection(os.dup(self._proc.stdin.fileno()), readable=False)
        self._recv = Connection(os.dup(self._proc.stdout.fileno()), writable=False)
        self._scenes = 0
        self.starts += 1
        self._send.send(self.options)
        kind, payload = self._receive(START_TIMEOUT)
        if kind == "device_error":
            self.close()
            raise DeviceError(payload)
        if kind != "ready":
            self._fail(payload, storage.fault(self._scratch / "blender.log", storage.SLACK))
        self.device, self.blender_version = payload["device"], payload["blender"]
        self.warm_up_seconds = payload["warm_up_seconds"]
        if payload["note"] and self.starts == 1:
            log.warning(payload["note"])
        log.info("Blender %s worker started on %s", self.blender_version, self.device)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            self._send.send(("close",))
        except OSError:
            pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for conn in (self._send, self._recv):
            conn.close()
        proc.stdin.close()
        proc.stdout.close()
        self._log.close()
        shutil.rmtree(self._scratch, ignore_errors=True)
        os.close(self._alive)

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def scratch_root(self) -> Path:
        """The folder this worker's scratch folder lies in: its filesystem holds what Blender writes."""
        return Path(self.temp_dir) if self.temp_dir is not None else Path(tempfile.gettempdir())

    # -- rendering ----------------------------------------------------------
    def _ready(self) -> None:
        """A child that may take the next render: a fresh one after `max_scenes`."""
        if self._proc is not None and self._scenes >= self.max_scenes:
            self.close()
        self.start()

    def render_to_scratch(self, spec: SceneSpec, name: str,
                          passes: tuple[str, ...] = ()) -> tuple[RenderResult, dict[str, Path]]:
        """Render one spec into this worker's own scratch folder as `<name>.png`, `<name>.json` and the
        passes beside; returns the result and the files written, by their names (none unless ok). They
        stay there until the next render or close: the caller copies them where they belong."""
        self._ready()
        folder = self._scratch / RENDERS
        for leftover in folder.iterdir():  # an earlier render's, copied or given up: ours, in our folder
            leftover.unlink()
        res = self.render(spec, folder / f"{name}.png", folder / f"{name}.json", passes)
        names = [f"{name}.png", *files_of(name, tuple(passes)), f"{name}.json"] if res.ok else []
        return res, {n: folder / n for n in names}

    def render(self, spec: SceneSpec, png_path: Path, json_path: Path, passes: tuple[str, ...] = ()) -> RenderResult:
        """Render one spec; writes PNG and JSON, and beside them the passes asked for (render.passes),
        only if everything is visible enough. Blender's process writes them by these paths: never name
        a folder that someone else may swap for a link (render_to_scratch)."""
        unknown = [p for p in passes if p not in PASSES]
        if unknown:
            raise ValueError(f"unknown pass {unknown[0]!r}; expected some of {', '.join(PASSES)}")
        self._ready()
        start = time.perf_counter()
        self._log_mark = os.fstat(self._log.fileno()).st_size  # an earlier render's lines explain nothing here
        try:
            self._send.send(("render", spec.model_dump_json(), str(Path(png_path).absolute()),
                             str(Path(json_path).absolute()), tuple(passes)))
        except OSError:  # it died since its last render
            kind, out = "error", f"Blender exited with code {self._proc.wait()}"
        else:
            self._scenes += 1
            kind, out = self._receive(self.render_timeout)
        if kind == "storage":  # the child met it, cleaned up and renders on
            raise ScratchFault(OSError(*out))
        if kind != "done":  # a storage fault Blender did not report is told by the folder and its free space
            self._fail(out, storage.fault(Path(png_path), storage.raw_bytes(spec.camera.width, spec.camera.height)))
        seconds = time.perf_counter() - start
        return RenderResult(
            ok=out["ok"], visible_pixels=out["visible_pixels"], too_small=out["too_small"], device=out["device"],
            seconds=seconds, path_tracing_seconds=out["path_tracing_seconds"],
            other_seconds=seconds - out["path_tracing_seconds"], rss_bytes=out["rss_bytes"],
            phases={**out["phases"], "messaging": seconds - out["child_seconds"]},
        )

    def _receive(self, timeout: float):
        """The child's answer; ("error", why) when it died or said nothing in time."""
        try:
            if self._recv.poll(timeout):
                return self._recv.recv()
            return "error", f"no answer from Blender within {timeout:.0f} s"
        except (EOFError, OSError):
            return "error", f"Blender exited with code {self._proc.wait()}"

    def _fail(self, reason: str, cause: OSError | None = None):
        tail = ""
        if self._log is not None and not self._log.closed:
            self._log.flush()
            fd, size = self._log.fileno(), os.fstat(self._log.fileno()).st_size  # by descriptor: OUT may be gone
            since = max(self._log_mark, size - 8192)
            tail = os.pread(fd, size - since, since).decode(errors="replace")[-2000:]
        if self._proc is not None:
            self._proc.kill()
        self.close()
        if cause is None and (NO_SPACE_TEXT in reason or NO_SPACE_TEXT in tail):  # e.g. Blender's EXR writer, which raises nothing
            cause = full_disk(_no_space_line(reason + "\n" + tail))
        if cause is not None:
            raise ScratchFault(cause)
        raise RenderError(f"{reason.rstrip()}\n--- Blender log (tail) ---\n{tail}")


def _no_space_line(text: str) -> str:
    """The line that names the full file, for a one-line error."""
    lines = [line.strip() for line in text.splitlines() if NO_SPACE_TEXT in line]
    return lines[-1] if lines else ""
