"""The Blender renderer: SceneSpec -> PNG + ground-truth JSON.

Only the child process started by Worker imports bpy; importing this
package does not.

    with Worker(device="auto", gpu_ids=None, threads=None, max_scenes=200) as w:
        res = w.render(spec, png_path, json_path)   # -> RenderResult
        # passes=("depth", "normal", "albedo", "instance"): those files beside the PNG (render.passes)
        if not res.ok:   # res.too_small lists what showed < MIN_VISIBLE_PIXELS;
            ...          # nothing was written: place the scene again
"""
from .result import RenderResult
from .spec_file import render_scene
from .worker import DeviceError, RenderError, Worker

__all__ = ["DeviceError", "RenderError", "RenderResult", "Worker", "render_scene"]
