"""How deep JSON read from elsewhere may nest: the lowest layer beside errors, so that the store's door
and a benchmark's reader of an item's files (tasks.stored) parse under one limit.

Python's parser recurses once per level and only stops at the interpreter's recursion limit: 100,000
`[` is a RecursionError, a few thousand a value that every later walk of it recurses through. A parsed
value is measured without recursion, one level at a time."""
from __future__ import annotations

import json

DEPTH = 64  # JSON nesting: this tool's deepest file nests under 10


class TooDeep(ValueError):
    """JSON nested deeper than DEPTH."""


def loads(data: bytes | str, walk: bool = True):
    """json.loads under the depth limit: TooDeep for deeper JSON, ValueError for text that is not JSON.
    `walk` False: the value is only checked to parse, so the parser's own recursion limit bounds it and
    the walk that measures its depth is saved."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeep(f"nests JSON deeper than {DEPTH}") from None
    if walk:
        raw = data.encode() if isinstance(data, str) else data
        if raw.count(b"[") + raw.count(b"{") > DEPTH and too_deep(value):
            raise TooDeep(f"nests JSON deeper than {DEPTH}")
    return value


def too_deep(value, limit: int = DEPTH) -> bool:
    """Whether a parsed JSON value nests past `limit`; walked without recursion."""
    level = [value]
    for _ in range(limit + 1):
        level = [v for c in level if isinstance(c, (list, dict)) for v in (c.values() if isinstance(c, dict) else c)
                 if isinstance(v, (list, dict))]
        if not level:
            return False
    return True
