"""The Blender child process: `python -m mewl_gen.render.server`, driven by render.worker.

Messages are pickled over the child's stdin and a duplicate of its stdout;
Blender's own prints go to stderr, which the parent sends to a log file.
"""
from __future__ import annotations

import os
import sys
import traceback
from multiprocessing.connection import Connection
from pathlib import Path

from mewl_gen.errors import STORAGE


def _channels() -> tuple[Connection, Connection]:
    reader = Connection(os.dup(0), writable=False)
    writer = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything printed from now on lands in the log, not the channel
    sys.stdout = sys.stderr
    return reader, writer


def _next_scene(reader):
    """The parent's next render request; None once it says close or is gone."""
    try:
        msg = reader.recv()
    except EOFError:  # the parent is gone
        return None
    return None if msg[0] == "close" else msg


def serve() -> None:
    reader, writer = _channels()
    options = reader.recv()
    try:
        from .blender_scene import BlenderScene
        from .worker import DeviceError

        try:
            stage = BlenderScene(**options)
        except DeviceError as e:
            writer.send(("device_error", str(e)))
            return
        import bpy

        writer.send(("ready", {"device": stage.device, "note": stage.fallback_note, "blender": bpy.app.version_string,
                              "warm_up_seconds": stage.warm_up_seconds}))
    except Exception:
        writer.send(("error", traceback.format_exc()))
        return

    from mewl_gen.scenes.spec import SceneSpec

    try:
        for msg in iter(lambda: _next_scene(reader), None):
            _, spec_json, png, js, passes = msg
            try:
                out = stage.render(SceneSpec.model_validate_json(spec_json), Path(png), Path(js), passes)
                writer.send(("done", out))
            except OSError as e:
                if e.errno in STORAGE:  # a disk's fault, not Blender's: said as (errno, strerror, filename)
                    writer.send(("storage", (e.errno, e.strerror, e.filename)))
                else:
                    writer.send(("error", traceback.format_exc()))
            except Exception:
                writer.send(("error", traceback.format_exc()))
    finally:
        stage.close()


if __name__ == "__main__":
    serve()
