"""The fenced code blocks of a Markdown text, as the tests that run every block of the README, the docs
and the generated cards read them."""
from __future__ import annotations

import re

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def blocks(markdown: str, language: str) -> list[str]:
    """Every block fenced as `language` (```python, ```bash ...), in order."""
    return [body for lang, body in FENCE.findall(markdown) if lang == language]
