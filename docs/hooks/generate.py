"""mkdocs hooks: the home page is the README (its links made relative to docs/), and the command
reference is generated from the program's argument parser (mewl_gen.cli.reference)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md":
        text = (ROOT / "README.md").read_text()
        text = text.replace("](docs/", "](")
        # files outside docs/ (LICENSE, CITATION.cff) are named, not linked: the site holds docs/ only
        return re.sub(r"\[([^\]]+)\]\((?!https?:)([^)]+)\)",
                      lambda m: m.group(0) if m.group(2).endswith(".md") else f"`{m.group(2)}`", text)
    if page.file.src_uri == "commands.md":
        from mewl_gen.cli.reference import markdown as commands

        return commands()
    return markdown
