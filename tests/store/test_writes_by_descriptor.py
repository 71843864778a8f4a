"""No write under OUT or DIR by its path again: every create, replace, rename, link, remove, mkdir and utime
in the store, the farm, the renderer, the results and the commands (src/mewl_gen/store, cluster, render,
results, cli) is made relative to a held descriptor (`dir_fd=`), so a folder swapped for a link between a
look and the write is never entered (docs/security.md). A DIR's files are written under the root of its
store.new_folder.NewFolder, the held folder itself; what a library writes there by path starts from it. Read by the AST, so a new by-path write fails here before any race finds it; the few
by-path writes that stay are listed with why each is no path under OUT that a dataset could have swapped.
Blender's process can only write by path: a render asked for with paths (`Worker.render(spec, png, json)`)
counts as a write by those paths, so the farm must render into the worker's own scratch folder
(`render_to_scratch`) and copy the files in through its held folders."""
from __future__ import annotations

import ast
from pathlib import Path

import mewl_gen

SRC = Path(mewl_gen.__file__).parent
ROOMS = ("store", "cluster", "render", "results", "cli")
# os functions that change a folder's entries: by a path unless given a held folder
OS_WRITES = {"replace", "rename", "link", "symlink", "unlink", "remove", "rmdir", "mkdir", "makedirs", "utime",
             "chmod", "truncate", "mkfifo"}
PATH_WRITES = {"write_text", "write_bytes", "mkdir", "rmdir", "unlink", "touch", "symlink_to", "hardlink_to",
               "chmod", "save", "save_render",  # save: PIL's, NumPy's; save_render: Blender's image
               "save_to_disk", "to_parquet", "ShardWriter", "TarWriter"}  # the export libraries' writes
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_LOCK")
TEMPS = {"mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryDirectory", "TemporaryFile"}

# (file under src/mewl_gen, function, the call as written): why it is no by-path write under OUT.
ALLOWED = {
    ("store/manifest.py", "claim_output", "out.mkdir"):
        "OUT itself, the path the user typed: its own components are the user's to follow",
    ("store/writers.py", "__enter__", "self.out.mkdir"):
        "OUT itself, the path the user typed, made before the run claims it",
    ("cluster/calibrate.py", "serve", "w.render"):
        "Blender writes into calibration's scratch folder in the system's temporary folder, never under OUT",
    # The renderer: Blender's process writes only in the worker's scratch folder (the system's temporary
    # folder) and in the folders Worker.render's caller names, each caller listed here.
    ("render/worker.py", "start", "Path(self.temp_dir).mkdir"):
        "the caller's temp_dir for the worker's scratch: calibration's, in the system's temporary folder",
    ("render/worker.py", "start", "tempfile.mkdtemp"): "the worker's scratch folder, in the system's temporary folder",
    ("render/worker.py", "start", "(self._scratch / RENDERS).mkdir"): "a folder of the worker's own scratch",
    ("render/worker.py", "start", "open"): "Blender's log, in the worker's own scratch folder",
    ("render/worker.py", "close", "shutil.rmtree"): "the worker's own scratch folder",
    ("render/worker.py", "start", "os.open"): "the lock of the worker's own scratch folder, made by mkdtemp just before",
    ("render/worker.py", "_swept", "shutil.rmtree"):
        "a killed worker's scratch folder in the system's temporary folder, its lock taken (rmtree never follows a link)",
    ("render/worker.py", "render_to_scratch", "leftover.unlink"): "an earlier render's file in the worker's scratch",
    ("render/worker.py", "render_to_scratch", "self.render"): "Blender renders into the worker's own scratch folder",
    ("render/server.py", "serve", "stage.render"): "the paths Worker.render sent, each of its callers listed here",
    ("render/blender_scene.py", "__init__", "tempfile.mkdtemp"):
        "Blender's working folder, in its TMPDIR: the worker's scratch folder",
    ("render/blender_scene.py", "close", "shutil.rmtree"): "Blender's working folder, in the worker's scratch",
    ("render/blender_scene.py", "_saved_png", "bpy.data.images['Render Result'].save_render"):
        "Blender's own PNG, by a name relative to its working folder in the worker's scratch",
    ("render/blender_scene.py", "_warm_up", "self.index_path.unlink"): "the index EXR, in Blender's working folder",
    ("render/blender_scene.py", "_read_exr", "path.unlink"): "a pass EXR, in Blender's working folder",
    ("render/blender_scene.py", "render", "im.save"): "beside the paths Worker.render was given (its callers here)",
    ("render/blender_scene.py", "render", "tmp.write_bytes"): "beside the paths Worker.render was given",
    ("render/blender_scene.py", "render", "tmp_json.write_text"): "beside the paths Worker.render was given",
    ("render/blender_scene.py", "render", "os.replace"): "onto the paths Worker.render was given",
    ("render/blender_scene.py", "render", "tmp.unlink"): "its own temporary files beside the paths given",
    ("render/blender_scene.py", "render", "scratch.unlink"): "Blender's files in its working folder",
    ("render/passes.py", "_depth_file", "np.save"): "into a bytes buffer, no file",
    ("render/contact_sheet.py", "render_cells", "tempfile.TemporaryDirectory"):
        "the system's temporary folder, for a developer's contact sheet",
    ("render/contact_sheet.py", "render_cells", "worker.render"): "into that temporary folder",
    ("render/contact_sheet.py", "main", "sheet(render_cells(args[1] if len(args) == 2 else 'default')).save"):
        "the contact sheet's file, the developer's path",
    ("render/spec_file.py", "render_scene", "out_dir.mkdir"):
        "`mewl render-spec --out`, the user's own folder for one scene, never a dataset's files (cli.specs)",
    ("render/spec_file.py", "render_scene", "worker.render"): "into that folder of the user's",
    ("store/files.py", "probe_writable", "tempfile.mkstemp"):
        "a probe in OUT itself (or the nearest folder above it that exists), the user's path, before any work",
    ("store/files.py", "probe_writable", "os.unlink"):
        "the probe's own random name just made in OUT itself, the user's path",
    ("cluster/run.py", "_render", "folder.rmdir"):
        "OUT/.staging and OUT, made by this run and empty: rmdir removes no link's target and no folder that "
        "holds anything",
    ("cluster/calibrate.py", "remember", "path.parent.mkdir"):
        "the user's cache folder (~/.cache/mewl-gen), never under OUT",
    ("cluster/calibrate.py", "measure", "tempfile.mkdtemp"):
        "a scratch folder of the system's temporary folder, never under OUT",
    ("cluster/calibrate.py", "measure", "shutil.rmtree"):
        "that scratch folder, this process's own",
    ("cluster/slurm/arrays.py", "submit", "req.log_dir.mkdir"):
        "SLURM's log folder where it lies outside OUT (inside, make_folder makes it through the door)",
    ("cli/slurm.py", "log_dir", "path.mkdir"):
        "SLURM's log folder for a script not submitted: refused inside OUT just before, so the user's own folder",
    ("cli/inspect.py", "cmd_inspect", "overlay.save"): "the user's --overlay file, refused inside any dataset (new_file)",
    ("cli/overlay.py", "save", "image.save"): "the user's --overlay file, refused inside any dataset (new_file)",
    ("cli/main.py", "_complain", "os.open"): "/dev/null, for a stderr that cannot be written",
    ("cli/main.py", "_stdout_closed", "os.open"): "/dev/null, for a stdout whose reader is gone",
    # A PNG or an array encoded into memory, then written through a held folder
    ("results/compare_html.py", "build", "Image.fromarray(compare.difference_picture(rb, p.changed)).save"):
        "into a bytes buffer, no file",
    ("results/export.py", "pass_npy", "np.save"): "into a bytes buffer, no file",
    ("results/gallery_masks.py", "overlay", "image.save"): "into a bytes buffer, no file",
    ("results/inspector_layers.py", "draw", "Image.fromarray(pixels).save"): "into a bytes buffer, no file",
    ("results/study/build.py", "write", "clean.save"): "into a bytes buffer, no file",
    # The export libraries write by path, from the root of the export's NewFolder: the held folder itself
    # (/proc/self/fd/N), private to this user while it is built, so no one else can swap a folder below it.
    ("results/export_hf.py", "write", "tempfile.TemporaryDirectory"): "Arrow's cache, in the export's held folder",
    ("results/export_hf.py", "_write_task", "shard.to_parquet"): "Parquet's shards, in the export's held folder",
    ("results/export_hf.py", "_write_task", "datasets.DatasetDict(parts).save_to_disk"):
        "save_to_disk's folders, in the export's held folder",
    ("results/export_wds.py", "write", "webdataset.ShardWriter"): "WebDataset's shards, in the export's held folder",
}


def by_path_writes(source: str) -> list[tuple[str, str, int]]:
    """(function, call as written, line) of each write in `source` not made relative to a held folder."""
    found = []

    class Visitor(ast.NodeVisitor):
        def __init__(self):
            self.where = ["<module>"]

        def visit_FunctionDef(self, node):
            self.where.append(node.name)
            self.generic_visit(node)
            self.where.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node):
            if _by_path(node):
                found.append((self.where[-1], ast.unparse(node.func), node.lineno))
            self.generic_visit(node)

    Visitor().visit(ast.parse(source))
    return found


def _by_path(call: ast.Call) -> bool:
    func, keywords = call.func, {k.arg for k in call.keywords}
    held = bool(keywords & {"dir_fd", "src_dir_fd", "dst_dir_fd"})
    if isinstance(func, ast.Name):
        return func.id == "open" and _write_mode(call)
    if not isinstance(func, ast.Attribute):
        return False
    owner = ast.unparse(func.value)
    if owner == "os":
        if func.attr == "open":
            return not held and any(flag in ast.unparse(call) for flag in WRITE_FLAGS)
        return func.attr in OS_WRITES and not held
    if owner == "shutil":
        return not (func.attr == "rmtree" and held) and func.attr in {"rmtree", "move", "copy", "copy2", "copyfile",
                                                                      "copytree"}
    if owner == "door":  # the door's own: relative to held folders
        return False
    if owner == "tempfile":
        return func.attr in TEMPS
    if func.attr in PATH_WRITES:
        return True
    if func.attr in ("rename", "replace"):  # Path.rename(target), Path.replace(target); str.replace has two
        return len(call.args) == 1 and not call.keywords
    if func.attr == "render":  # Worker.render(spec, png, json): Blender's process writes by those paths
        return len(call.args) >= 3
    return func.attr == "open" and _write_mode(call)


def _write_mode(call: ast.Call) -> bool:
    modes = [a for a in call.args[1:2]] + [k.value for k in call.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+") for m in modes)


def test_the_store_the_farm_and_the_renderer_write_under_out_only_through_held_folders():
    found = {}
    for room in ROOMS:
        for path in sorted((SRC / room).rglob("*.py")):
            name = str(path.relative_to(SRC))
            for function, call, line in by_path_writes(path.read_text()):
                found[(name, function, call)] = line
    unlisted = {f"{k[0]}:{line} {k[1]}: {k[2]}" for k, line in found.items() if k not in ALLOWED}
    assert not unlisted, "writes by path (make them relative to a held folder, or list why not):\n" + "\n".join(sorted(unlisted))
    assert not set(ALLOWED) - set(found), "listed but gone: drop them from ALLOWED"


def test_the_scan_finds_each_kind_of_write_by_path():
    source = """
def f(out, fd):
    (out / "a").write_text("x")
    open(out / "b", "w")
    os.replace(out / "c", out / "d")
    os.open(out / "e", os.O_WRONLY | os.O_CREAT)
    (out / "g").rename(out / "h")
    shutil.rmtree(out / "i")
    tempfile.mkstemp(dir=out)
    os.replace("c", "d", src_dir_fd=fd, dst_dir_fd=fd)
    os.open("e", os.O_RDONLY)
    "a-b".replace("-", "_")
    open(out / "j")
    worker.render(spec, out / "k.png", out / "k.json")
    image.save(out / "l.png")
    worker.render_to_scratch(spec, "k")
"""
    assert [c for _, c, _ in by_path_writes(source)] == [
        "(out / 'a').write_text", "open", "os.replace", "os.open", "(out / 'g').rename", "shutil.rmtree",
        "tempfile.mkstemp", "worker.render", "image.save"]
