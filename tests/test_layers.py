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

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scenes", "assets", "render", "tasks", "store", "cluster", "cli")
SHARED = ("scenes", "assets", "render", "store", "cluster", "cli")
# Every benchmark but MEWL, whose name is also the command's (`mewl`), and so the tool's own word.
OTHER_BENCHMARKS = re.compile(r"malevic|shapeworld|bongard|\bicy\b", re.IGNORECASE)


def sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def test_the_import_contracts_hold():
    r = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0 and "0 broken" in r.stdout, r.stdout + r.stderr


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(*PACKAGES)
    cycles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycles.append(" -> ".join((importer, *back)))
    assert not cycles, "\n".join(cycles)


def test_the_contract_counts_imports_inside_functions():
    """A function-local import is an edge of the graph the contracts and the cycle test read."""
    graph = grimp.build_graph(*PACKAGES)
    local = [(path, node) for path in sources(*PACKAGES) for fn in ast.walk(ast.parse(path.read_text()))
             if isinstance(fn, ast.FunctionDef) for node in ast.walk(fn) if isinstance(node, ast.ImportFrom)
             and node.level == 0 and node.module and node.module.split(".")[0] in PACKAGES]
    assert local, "no function-local import of the project to check against"
    path, node = local[0]
    importer = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    assert graph.direct_import_exists(importer=importer, imported=node.module, as_packages=True)


def test_the_shared_folders_name_no_benchmark():
    named = [f"{p.relative_to(ROOT)}:{k}" for p in sources(*SHARED)
             for k, line in enumerate(p.read_text().splitlines(), 1) if OTHER_BENCHMARKS.search(line)]
    assert not named, named


def test_nothing_is_found_by_a_name_built_from_a_string():
    """No importlib.import_module or __import__, no getattr with a name made at run time."""
    found = []
    for path in sources(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            built = name == "getattr" and len(node.args) > 1 and isinstance(node.args[1], (ast.JoinedStr, ast.BinOp))
            if name in ("import_module", "__import__") or built:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_no_source_file_is_over_300_lines():
    long = {str(p.relative_to(ROOT)): n for p in sources(*PACKAGES) if (n := len(p.read_text().splitlines())) > 300}
    assert not long, long
