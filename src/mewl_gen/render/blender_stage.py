"""The parts of a worker's Blender scene built once (imports bpy; runs only in the child):
render settings, the stage (sky, ground, camera), the compositor with its object-index
pass (and the passes asked for: render.passes), and the datablocks of meshes and materials."""
from __future__ import annotations

import os
from pathlib import Path

import bpy

from mewl_gen import assets

from .passes import REGISTRY

GROUND_SIZE = 200.0
INDEX_PASS = "index"


def material(name: str, inputs: dict) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    for key, value in inputs.items():
        bsdf.inputs[key].default_value = value
    mat.use_fake_user = True
    return mat


def mesh(name: str, data: assets.Mesh) -> bpy.types.Mesh:
    me = bpy.data.meshes.new(name)
    me.from_pydata(data.vertices.tolist(), [], [list(f) for f in data.faces])
    me.validate()
    me.shade_smooth()
    me.normals_split_custom_set_from_vertices(data.normals.tolist())
    me.materials.append(None)
    me.use_fake_user = True
    return me


def settings(sc: bpy.types.Scene) -> None:
    """Cycles, PNG output and colour management as every render uses them."""
    r = sc.render
    r.engine = "CYCLES"
    r.resolution_percentage = 100
    r.film_transparent = False
    r.dither_intensity = 0.0  # dithering would add noise the seed does not fix
    r.image_settings.file_format = "PNG"
    r.image_settings.color_mode = "RGB"
    r.image_settings.color_depth = "8"
    for key in dir(r):
        if key.startswith("use_stamp"):
            setattr(r, key, False)
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.cycles.use_animated_seed = False
    sc.cycles.denoising_input_passes = "RGB_ALBEDO_NORMAL"
    # One denoiser pass instead of three: a large share of a default image's time for under a dB
    # (docs/reference.md, Speed).
    sc.cycles.denoising_prefilter = "FAST"
    # Sampling strategies only (unbiased: the converged image is the same): over three area lights and the
    # sky a light tree costs more per sample than it saves (docs/reference.md, Speed).
    sc.cycles.use_light_tree = False
    sc.view_layers[0].use_pass_object_index = True

def stage(sc: bpy.types.Scene) -> None:
    """The sky, the ground and the camera: what every scene stands on."""
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    bg = nodes["Background"]
    bg.inputs["Strength"].default_value = assets.WORLD["strength"]
    # A sky brighter overhead than at the horizon: metal mirrors a gradient, not a flat tone.
    coords, xyz, ramp = (nodes.new(t) for t in ("ShaderNodeTexCoord", "ShaderNodeSeparateXYZ", "ShaderNodeValToRGB"))
    links.new(coords.outputs["Generated"], xyz.inputs[0])
    links.new(xyz.outputs["Z"], ramp.inputs["Fac"])
    ramp.color_ramp.elements[0].color = (*assets.WORLD["horizon"], 1.0)
    ramp.color_ramp.elements[1].color = (*assets.WORLD["zenith"], 1.0)
    links.new(ramp.outputs["Color"], bg.inputs["Color"])
    # The sky's importance map is rebuilt at every render (Cycles' sync): at the automatic 1024 px it was a
    # fifth of a default image's time, and a smooth gradient needs no more than 64 px (docs/reference.md).
    world.cycles.sampling_method = "MANUAL"
    world.cycles.sample_map_resolution = 64
    sc.world = world
    half = GROUND_SIZE / 2
    me = bpy.data.meshes.new("ground")
    me.from_pydata([(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0)], [], [(0, 1, 2, 3)])
    me.materials.append(material("ground", assets.GROUND))
    ground = bpy.data.objects.new("ground", me)
    sc.collection.objects.link(ground)
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.data.sensor_fit = "AUTO"
    cam.data.clip_end = GROUND_SIZE
    sc.collection.objects.link(cam)
    sc.camera = cam

def compositor(sc: bpy.types.Scene, scratch: Path) -> Path:
    """The image, and the object-index pass written to an EXR in `scratch`; returns that file's path."""
    tree = bpy.data.node_groups.new("compositor", "CompositorNodeTree")
    sc.compositing_node_group = tree
    layers = tree.nodes.new("CompositorNodeRLayers")
    out = tree.nodes.new("NodeGroupOutput")
    tree.interface.new_socket("Image", in_out="OUTPUT", socket_type="NodeSocketColor")
    tree.links.new(layers.outputs["Image"], out.inputs[0])
    files = tree.nodes.new("CompositorNodeOutputFile")
    files.format.media_type = "IMAGE"
    files.format.file_format = "OPEN_EXR"
    files.format.color_depth = "32"
    files.format.exr_codec = "NONE"
    files.file_output_items.new("FLOAT", INDEX_PASS)
    files.directory = str(scratch) + os.sep
    files.file_name = "pass_"
    tree.links.new(layers.outputs["Object Index"], files.inputs[INDEX_PASS])
    return scratch / f"pass_{INDEX_PASS}.exr"


def use_passes(sc: bpy.types.Scene, scratch: Path, passes: tuple[str, ...]) -> dict[str, Path]:
    """Turn the view layer's passes (render.passes.REGISTRY) on or off as asked and write those asked
    for beside the index pass; returns each one's EXR (instance is the index pass itself). Passes only
    add outputs: the image is the same bytes with or without them (docs/passes.md)."""
    layer = sc.view_layers[0]
    for kind in REGISTRY:
        if kind.layer is not None:
            kind.layer.switch(layer, kind.name in passes)
    tree = sc.compositing_node_group
    layers = next(n for n in tree.nodes if n.bl_idname == "CompositorNodeRLayers")
    files = next(n for n in tree.nodes if n.bl_idname == "CompositorNodeOutputFile")
    while len(files.file_output_items) > 1:  # the index item, made first, stays
        files.file_output_items.remove(files.file_output_items[-1])
    written = {}
    for kind in REGISTRY:
        if kind.layer is not None and kind.name in passes:
            files.file_output_items.new(kind.layer.item, kind.name)
            tree.links.new(layers.outputs[kind.layer.socket], files.inputs[kind.name])
            written[kind.name] = scratch / f"pass_{kind.name}.exr"
    return written
