"""Every test a page names (`tests/x/test_y.py::test_z`, or `test_y.py::test_z` where that file name is one
file's) exists: the pages state each promise with the test that holds it (docs/security.md, the reference's
tables), and a test renamed or moved would leave the promise standing on nothing."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"((?:tests/)?[\w/]*test_\w+\.py)(?:::(\w+))?")


def test_every_test_the_pages_name_exists():
    files = {p.relative_to(ROOT).as_posix(): p for p in (ROOT / "tests").rglob("test_*.py")}
    missing, seen = [], 0
    for page in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        for path, name in CITED.findall(page.read_text()):
            seen += 1
            found = [f for f in files if f"/{f}".endswith(f"/{path}")]
            if len(found) != 1:
                missing.append(f"{page.name}: {path} ({'several files' if found else 'no such file'})")
            elif name and not re.search(rf"^(?:async )?def {name}\(", files[found[0]].read_text(), re.M):
                missing.append(f"{page.name}: {path}::{name}")
    assert seen > 50
    assert missing == []
