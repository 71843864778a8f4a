"""The depth of JSON read from elsewhere, measured on its bytes (json_depth.nests_deeper), against a walk
of the parsed value, over values whose strings hold brackets, quotes and escapes."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mewl_gen.json_depth import DEPTH, TooDeep, loads, nests_deeper


def depth(value) -> int:
    """Arrays and objects nested, walked level by level."""
    level, found = [value], 0
    while level := [c for c in level if isinstance(c, (list, dict))]:
        found += 1
        level = [v for c in level for v in (c.values() if isinstance(c, dict) else c)]
    return found


TEXT = st.text(alphabet=st.sampled_from('[]{}"\\/\n\t ab\u00e9\u2603'), max_size=8)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.integers(0, 8), st.booleans())
def test_the_bytes_tell_the_depth_the_parsed_value_has(value, limit, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert nests_deeper(text, limit) == (depth(value) > limit), text


@pytest.mark.parametrize("levels, refused", [(DEPTH, False), (DEPTH + 1, True), (10_000, True)])
def test_loads_refuses_exactly_what_nests_past_the_limit(levels, refused):
    for text in ("[" * levels + "]" * levels, '{"a":' * levels + '"[[[{"' + "}" * levels):
        if refused:
            with pytest.raises(TooDeep):
                loads(text)
        else:
            assert loads(text) is not None


def test_brackets_inside_strings_are_no_depth():
    text = json.dumps({"k": "[" * (3 * DEPTH) + '\\"{' * DEPTH})
    assert loads(text) == json.loads(text)
