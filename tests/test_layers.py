"""The house keeps its layout (docs/design.md): the import contract of pyproject.toml holds
(imports inside functions count), no module imports itself through others, the shared
folders name no benchmark, nothing is found by a name built from a string, and no source
file grows past 300 lines."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import grimp

from mewl_gen.tasks import catalog

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "mewl_gen"
PACKAGE = "mewl_gen"
# Every room but the benchmarks' own: none of them may name a benchmark.
SHARED = tuple(sorted(p.name for p in SRC.iterdir() if p.is_dir() and p.name not in ("tasks", "__pycache__")))
# Every registered benchmark but MEWL, whose name is also the command's (`mewl`), and so the tool's own word.
OTHER_BENCHMARKS = re.compile("|".join(rf"\b{b.name}\b" if len(b.name) <= 3 else b.name
                                       for b in catalog.BENCHMARKS if b.name != "mewl"), re.IGNORECASE)


def sources(*rooms: str) -> list[Path]:
    """The source files of the rooms named (every file of the package where none is)."""
    return sorted(p for room in rooms or ("",) for p in (SRC / room).rglob("*.py"))


def test_the_import_contracts_hold():
    r = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0 and "0 broken" in r.stdout, r.stdout + r.stderr


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(PACKAGE)
    cycles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycles.append(" -> ".join((importer, *back)))
    assert not cycles, "\n".join(cycles)


def test_the_contract_counts_imports_inside_functions():
    """A function-local import is an edge of the graph the contracts and the cycle test read."""
    graph = grimp.build_graph(PACKAGE)
    local = [(path, node) for path in sources() for fn in ast.walk(ast.parse(path.read_text()))
             if isinstance(fn, ast.FunctionDef) for node in ast.walk(fn) if isinstance(node, ast.ImportFrom)
             and node.level == 0 and node.module and node.module.split(".")[0] == PACKAGE]
    assert local, "no function-local import of the project to check against"
    path, node = local[0]
    importer = ".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")
    targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]  # a module, or submodules of a package
    assert any(graph.direct_import_exists(importer=importer, imported=t) for t in targets if t in graph.modules)


def test_the_shared_folders_name_no_benchmark():
    named = [f"{p.relative_to(ROOT)}:{k}" for p in sources(*SHARED)
             for k, line in enumerate(p.read_text().splitlines(), 1) if OTHER_BENCHMARKS.search(line)]
    assert not named, named


def test_nothing_is_found_by_a_name_built_from_a_string():
    """No importlib.import_module or __import__, no getattr with a name made at run time."""
    found = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            built = name == "getattr" and len(node.args) > 1 and isinstance(node.args[1], (ast.JoinedStr, ast.BinOp))
            if name in ("import_module", "__import__") or built:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_no_source_file_is_over_300_lines():
    long = {str(p.relative_to(ROOT)): n for p in sources() if (n := len(p.read_text().splitlines())) > 300}
    assert not long, long
