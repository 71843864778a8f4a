"""The fenced code blocks of a Markdown text, as the tests that run every block of the README, the docs
and the generated cards read them."""
from __future__ import annotations

import re

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def fenced(markdown: str) -> list[tuple[str, str]]:
    """Every fenced block as (language, body), in order; the language is "" where the fence names none."""
    return FENCE.findall(markdown)


def blocks(markdown: str, language: str) -> list[str]:
    """Every block fenced as `language` (```python, ```bash ...), in order."""
    return [body for lang, body in fenced(markdown) if lang == language]
