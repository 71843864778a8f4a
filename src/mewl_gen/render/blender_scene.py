"""The warm Blender scene of one worker (imports bpy; runs only in the child).

The stage (ground, world, camera, compositor) and the assets (meshes and
materials) are built once (render.blender_stage; the hand's mesh at the first scene
with the hand); each spec adds its lights, objects and hand, renders, reads the
object-index pass of that render (and the passes asked for, render.passes) and
removes them again.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import bpy
import numpy as np
from mathutils import Vector
from PIL import Image

from mewl_gen import assets
from mewl_gen.errors import naming
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import COLORS, MATERIALS, SHAPES

from . import blender_stage, ground_truth, storage
from .devices import configure, gpu_denoiser
from .passes import PASS, file_name


def _cycles_seconds(info: dict, key: str) -> float | None:
    """One of Cycles' own timings from the render's metadata ('MM:SS.cc' or 'HH:MM:SS.cc'):
    render_time (path tracing and denoising), synchronization_time (scene and BVH update), total_time."""
    text = info.get(f"cycles.ViewLayer.{key}")
    if not text or not re.fullmatch(r"[\d:.]+", text):
        return None
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def _rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def _saved_png(scratch: Path, need: int) -> Image.Image:
    """The render saved by Blender as a PNG in the scratch folder (the working
    folder), decoded. On a full disk Blender's writer raises nothing and leaves
    the file cut short: a PNG not written whole is a storage fault where its
    folder is gone or its disk lacks `need` bytes (render.storage), else Blender's."""
    im = None
    try:
        bpy.data.images["Render Result"].save_render(os.path.join(os.curdir, BLENDER_PNG))
        im = Image.open(scratch / BLENDER_PNG)
        im.load()
    except Exception as err:  # noqa: BLE001 - a failed save or any decoder error: a short file or a bad one
        if im is not None:
            im.close()
        raise (storage.fault(scratch / BLENDER_PNG, need) or err) from None
    return im


# The warm-up scene: every material and the hand, so that every shader and
# kernel feature a real scene can need is compiled before the first timed image.
WARM_UP_OBJECTS = (("cube", "red", "metal", "large"), ("sphere", "blue", "glass", "large"),
                   ("cylinder", "green", "rubber", "small"))
WARM_UP_SIZE = (64, 48)
BLENDER_PNG = "render.png"  # Blender's own PNG, in the scratch folder; the image is written again from it


class BlenderScene:
    def __init__(self, device: str = "auto", gpu_ids=None, threads=None, warm_up: bool | None = None):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = bpy.context.scene
        self.device, self.fallback_note = configure(self.scene, device, gpu_ids, threads)
        # On a GPU the denoiser runs there too: OptiX's on an OptiX device, else OIDN on the GPU.
        # The device string names it, so image.json says which denoiser made the pixels.
        self.denoiser = gpu_denoiser(self.scene, self.device)
        if self.denoiser != "OPENIMAGEDENOISE":
            self.device += f" (denoiser {self.denoiser.lower()})"
        # Blender writes only here, by paths relative to this working folder: its writers make missing
        # folders, and an absolute path would make a removed output folder again (without its manifest);
        # a removed working folder fails the write instead.
        self.scratch = Path(tempfile.mkdtemp(prefix="mewl-render-"))
        os.chdir(self.scratch)
        blender_stage.settings(self.scene)
        blender_stage.stage(self.scene)
        self.index_path = self.scratch / blender_stage.compositor(self.scene, Path(os.curdir))
        self.passes: tuple[str, ...] = ()  # the extra passes the view layer writes now
        self.pass_exrs: dict[str, Path] = {}
        self.meshes = {s: blender_stage.mesh(s, assets.shape_mesh(s)) for s in SHAPES}
        self.materials = {(m, c): blender_stage.material(f"{m}-{c}", assets.object_material(m, c))
                          for m in MATERIALS for c in COLORS}
        self.materials["hand"] = blender_stage.material("hand", assets.hand_material())
        self.added: list = []
        # A GPU compiles (OptiX) or loads its kernels at the first render: done here, untimed.
        if warm_up is None:
            warm_up = self.device != "cpu"
        self.warm_up_seconds = self._warm_up() if warm_up else None

    def _hand_mesh(self):
        """The hand's mesh, built at the first scene that has the hand: most workers never render one, and
        building it costs most of a worker's start (0.8 s of numpy)."""
        if "hand" not in self.meshes:
            self.meshes["hand"] = blender_stage.mesh("hand", assets.hand_mesh())
        return self.meshes["hand"]

    def _warm_up(self) -> float:
        """Render a tiny scene with every material, the hand and the denoiser, and
        write nothing: later renders are byte for byte those of a cold scene."""
        from mewl_gen.scenes.placement import place_scene
        from mewl_gen.scenes.quality import render_settings

        start = time.perf_counter()
        spec = place_scene(0, WARM_UP_OBJECTS, pointed=0)
        spec = spec.model_copy(update={"render": render_settings("draft", 0).model_copy(update={"samples": 1})})
        try:
            self._apply(spec)
            self.scene.render.resolution_x, self.scene.render.resolution_y = WARM_UP_SIZE
            bpy.ops.render.render()
        finally:
            self.index_path.unlink(missing_ok=True)
            self._clear()
        return time.perf_counter() - start

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    # -- per spec -----------------------------------------------------------
    def _apply(self, spec: SceneSpec) -> None:
        sc, cam, rs = self.scene, self.scene.camera, spec.render
        sc.render.resolution_x, sc.render.resolution_y = spec.camera.width, spec.camera.height
        cam.location, cam.rotation_euler = spec.camera.location, spec.camera.rotation
        cam.data.lens, cam.data.sensor_width = spec.camera.lens_mm, spec.camera.sensor_width_mm
        c = sc.cycles
        c.samples = rs.samples
        c.use_adaptive_sampling = rs.adaptive_threshold > 0
        c.adaptive_threshold = rs.adaptive_threshold
        c.adaptive_min_samples = rs.adaptive_min_samples
        c.use_denoising = rs.denoiser != "none"
        if c.use_denoising:
            c.denoiser = self.denoiser
        c.max_bounces = rs.max_bounces
        c.seed = rs.seed % 2**31
        for light in spec.lights:
            data = bpy.data.lights.new(light.name, "AREA")
            data.energy, data.size = light.energy, light.size
            self._add(light.name, data, light.location, (Vector((0, 0, 0)) - Vector(light.location)).to_track_quat("-Z", "Y").to_euler())
        for i, o in enumerate(spec.objects):
            ob = self._add(f"object{i}", self.meshes[o.shape], o.center, (0.0, 0.0, o.rotation), self.materials[(o.material, o.color)])
            ob.scale = (o.scale, o.scale, o.scale)
            ob.pass_index = i + 1
        if spec.hand is not None:
            h = spec.hand
            ob = self._add("hand", self._hand_mesh(), (*h.position, 0.0), (0.0, 0.0, h.yaw), self.materials["hand"])
            ob.pass_index = len(spec.objects) + 1

    def _add(self, name, data, location, rotation, material=None):
        ob = bpy.data.objects.new(name, data)
        ob.location, ob.rotation_euler = location, rotation
        if material is not None:
            ob.material_slots[0].link = "OBJECT"
            ob.material_slots[0].material = material
        self.scene.collection.objects.link(ob)
        self.added.append(ob)
        return ob

    def _clear(self) -> None:
        for ob in self.added:
            bpy.data.objects.remove(ob, do_unlink=True)
        self.added.clear()
        bpy.data.orphans_purge(do_local_ids=True, do_linked_ids=True, do_recursive=True)

    def _read_exr(self, path: Path, height: int, width: int) -> np.ndarray:
        """A pass the compositor wrote, (height, width, channels) with row 0 at the top; the file is removed.
        One that does not load whole is a storage fault where its disk is full (render.storage), else Blender's."""
        img = None
        try:
            img = bpy.data.images.load(str(path))
            px = np.empty(len(img.pixels), dtype=np.float32)
            img.pixels.foreach_get(px)
            return px.reshape(height, width, -1)[::-1]  # Blender's rows start at the bottom
        except Exception as err:  # noqa: BLE001 - a file cut short fails in Blender's loader or in the reshape
            raise (storage.fault(path, storage.raw_bytes(width, height, 4, 4) + storage.SLACK) or err) from None
        finally:
            if img is not None:
                bpy.data.images.remove(img)
            path.unlink(missing_ok=True)

    def _read_index(self, height: int, width: int) -> np.ndarray:
        return np.rint(self._read_exr(self.index_path, height, width)[..., 0]).astype(np.int32)

    def render(self, spec: SceneSpec, png_path: Path, json_path: Path, passes: tuple[str, ...] = ()) -> dict:
        """Render one spec, and the passes asked for (render.passes) beside the PNG; returns the verdict,
        the device and where the time went (`phases`, seconds: scene_update (objects added and removed),
        sync (Cycles' scene and BVH update), path_tracing (path tracing and denoising), passes (the rest
        of the render call: compositing, the index pass written), png (PNG written), index_read (the
        pass read back), pass_files (the extra passes read back and written, when asked for),
        ground_truth (computed and written))."""
        start = time.perf_counter()
        passes = tuple(passes)
        if passes != self.passes:
            self.pass_exrs = blender_stage.use_passes(self.scene, self.scratch, passes)
            self.passes = passes
        tmp_png = png_path.with_name(f".{png_path.name}.{os.getpid()}.tmp")
        tmp_json = json_path.with_name(f".{json_path.name}.{os.getpid()}.tmp")
        finals = {kind: png_path.with_name(file_name(png_path.stem, kind)) for kind in passes}
        temps = {kind: final.with_name(f".{final.name}.{os.getpid()}.tmp") for kind, final in finals.items()}
        phases: dict[str, float] = {}
        clock = [start]

        def lap(name: str) -> None:
            now = time.perf_counter()
            phases[name] = phases.get(name, 0.0) + now - clock[0]
            clock[0] = now

        try:
            self._apply(spec)
            lap("scene_update")
            bpy.ops.render.render()
            lap("render_call")
            # The compositor's EXR write fails silently: its size tells (RGBA float32, uncompressed: blender_stage).
            storage.check_size(self.index_path, storage.raw_bytes(spec.camera.width, spec.camera.height, 4, 4))
            with _saved_png(self.scratch, storage.raw_bytes(spec.camera.width, spec.camera.height)) as im:
                cycles = {k: _cycles_seconds(im.info, k) for k in ("render_time", "synchronization_time", "total_time")}
                with naming(tmp_png):
                    im.save(tmp_png, format="PNG")  # without Blender's timing metadata
            lap("png")
            index = self._read_index(spec.camera.height, spec.camera.width)
            lap("index_read")
            counts = ground_truth.visible_pixels(spec, index)
            small = ground_truth.too_small(counts)
            if passes and not small:
                for kind, tmp in temps.items():
                    from_layer = PASS[kind].layer is not None  # else the index pass itself
                    pixels = self._read_exr(self.pass_exrs[kind], *index.shape) if from_layer else index
                    with naming(tmp):
                        tmp.write_bytes(PASS[kind].encode(pixels))
                lap("pass_files")
            if not small:
                gt = ground_truth.build(spec, index, image_filename=png_path.name, device=self.device,
                                        blender_version=bpy.app.version_string)
                with naming(tmp_json):
                    tmp_json.write_text(json.dumps(gt, indent=1))
                for kind, final in finals.items():
                    os.replace(temps[kind], final)
                os.replace(tmp_png, png_path)
                os.replace(tmp_json, json_path)
            lap("ground_truth")
        finally:
            for tmp in (tmp_png, tmp_json, *temps.values()):
                tmp.unlink(missing_ok=True)
            # a render that failed half-way leaves none of Blender's files for the next, nor on the disk
            for scratch in (self.index_path, self.scratch / BLENDER_PNG, *self.pass_exrs.values()):
                scratch.unlink(missing_ok=True)
            self._clear()
        lap("scene_update")
        render_seconds = phases.pop("render_call")
        path_tracing = min(cycles["render_time"] or render_seconds, render_seconds)
        sync = min(cycles["synchronization_time"] or 0.0, render_seconds - path_tracing)
        phases.update(sync=sync, path_tracing=path_tracing, passes=render_seconds - path_tracing - sync)
        return {
            "ok": not small, "visible_pixels": counts, "too_small": small, "device": self.device,
            "render_seconds": render_seconds, "path_tracing_seconds": path_tracing,
            "child_seconds": clock[0] - start, "phases": phases,
            "rss_bytes": _rss_bytes(),
        }
