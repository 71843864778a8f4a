"""How deep JSON read from elsewhere may nest: the lowest layer beside errors, so that the store's door
and a benchmark's reader of an item's files (tasks.stored) parse under one limit.

Python's parser recurses once per level and only stops at the interpreter's recursion limit: 100,000
`[` is a RecursionError, a few thousand a value that every later walk of it recurses through. The
depth of text that parsed is measured on its bytes, without recursion: its strings removed, its
brackets made one kind, and the innermost pairs removed one level at a time.

Also here, what numbers a user's file may hold: Python's parser reads NaN, Infinity and -Infinity, which
JSON has no form for, and 1e999 as infinite; `finite_loads` refuses them."""
from __future__ import annotations

import json
import math
import re

DEPTH = 64  # JSON nesting: this tool's deepest file nests under 10

# A JSON string, escapes included (the unrolled form: no backtracking on a long one).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = b"[]{}"
_ONE_KIND = bytes.maketrans(_BRACKETS, b"()()")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)


class TooDeep(ValueError):
    """JSON nested deeper than DEPTH."""


def loads(data: bytes | str, walk: bool = True, finite: bool = False):
    """json.loads under the depth limit: TooDeep for deeper JSON, ValueError for text that is not JSON.
    `walk` False: the value is only checked to parse, so the parser's own recursion limit bounds it and
    the measure of its depth is saved. `finite`: as finite_loads, NotFinite for a number that is not."""
    try:
        value = finite_loads(data) if finite else json.loads(data)
    except RecursionError:
        raise TooDeep(f"nests JSON deeper than {DEPTH}") from None
    if walk:
        raw = data.encode() if isinstance(data, str) else data
        if raw.count(b"[") + raw.count(b"{") > DEPTH and nests_deeper(raw):
            raise TooDeep(f"nests JSON deeper than {DEPTH}")
    return value


class NotFinite(ValueError):
    """A number that is not finite (NaN, Infinity, or one too large for a float) in JSON read from a user."""


def _constant(name: str):
    raise NotFinite(f"{name} is not a finite number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(f"{text[:40]} is not a finite number")
    return value


def _integer(text: str) -> int:
    if len(text) > 300:  # past a float's range (1.8e308): no measure, and float() of it raises
        raise NotFinite(f"{text[:20]}... ({len(text)} digits) is not a finite number")
    return int(text)


def finite_loads(data: bytes | str):
    """json.loads of a file a user hands in, whose numbers are measures: NotFinite for a number that is not
    finite (a ValueError, as for text that is not JSON; RecursionError for JSON nested past the parser)."""
    if isinstance(data, (bytes, bytearray)):
        data = data.decode(json.detect_encoding(data), "surrogatepass")  # as json.loads decodes bytes
    return _FINITE.decode(data)  # one decoder for every call: a predictions file is millions of them


_FINITE = json.JSONDecoder(parse_constant=_constant, parse_float=_finite, parse_int=_integer)


def nests_deeper(text: bytes, limit: int = DEPTH) -> bool:
    """Whether JSON text that parsed nests more than `limit` arrays and objects deep. Each pass removes
    every innermost pair `()` of the text's brackets (bytes.replace never matches across what it has
    just removed), so the passes needed to empty it are its depth. A ground truth of 6 kB: 26 us, where
    walking its parsed value level by level took 71 (its masks and boxes are lists of numbers)."""
    # Without a backslash no quote is escaped, so the strings are every other piece between quotes.
    outside = _STRING.sub(b"", text) if b"\\" in text else b"".join(text.split(b'"')[::2])
    brackets = outside.translate(_ONE_KIND, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"()", b"")
    return bool(brackets)

