"""`mewl icy-metrics FILE` reads a file a user hands in: one line, never a traceback nor a wait, whatever it
holds; what it prints of the file is escaped for the terminal."""
from __future__ import annotations

import json
import os

import pytest

LANGUAGE = {"attributes": ["shape", "color"], "vocabulary": "ab", "grammar": {"name": "mine\x1b[2J"},
            "objects": [{"message": "ab", "shape": "cube", "color": "red"}, {"message": "ba", "shape": "ball", "color": "red"},
                        {"message": "aa", "shape": "ball", "color": "blue"}]}


@pytest.mark.parametrize("text, says", [
    ("[" * 100_000, "nested too deep"),
    ('{"language": ' + "[" * 100_000, "nested too deep"),
    ("NaN", "not an ICY language"),
    (json.dumps({**LANGUAGE, "attributes": 1}), "attributes"),
    (json.dumps({**LANGUAGE, "objects": [{"message": "a", "shape": "cube", "color": "red"}] * 2 + [LANGUAGE["objects"][0]]}),
     "messages of one length"),
    (json.dumps({**LANGUAGE, "objects": [{"message": "ac", "shape": "cube", "color": "red"}] * 3}), "outside the vocabulary"),
    (json.dumps({**LANGUAGE, "objects": [{"message": "ab", "shape": "cube"}] * 3}), "no value of 'color'"),
    (json.dumps({**LANGUAGE, "objects": LANGUAGE["objects"] * 100}), "objects"),  # more than the universe holds
    (json.dumps({**LANGUAGE, "attributes": ["shape"], "objects": LANGUAGE["objects"][:2]}), "cannot be computed"),
])
def test_a_hostile_language_file_is_one_line(mewl, tmp_path, text, says):
    path = tmp_path / "language.json"
    path.write_text(text)
    code, out, err = mewl("icy-metrics", path)
    assert code == 2 and says in err and err.count("\n") == 1 and "\x1b" not in err, err


def test_a_fifo_is_refused_without_waiting_and_a_name_is_printed_escaped(mewl, tmp_path):
    os.mkfifo(tmp_path / "fifo.json")
    code, out, err = mewl("icy-metrics", tmp_path / "fifo.json")
    assert code == 2 and "not a regular file" in err
    (tmp_path / "language.json").write_text(json.dumps(LANGUAGE))
    code, out, err = mewl("icy-metrics", tmp_path / "language.json")
    assert code == 0 and out.startswith("grammar mine\\x1b[2J: topsim") and "\x1b" not in out, out
