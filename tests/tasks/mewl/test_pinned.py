"""MEWL's data does not move: `mewl sample` of every MEWL task hashes as
recorded for mewl-gen 0.3.0 (every file records the generator's version,
and coined words are checked against inflected forms and the system's
dictionaries too; 0.2.0 changed MEWL's names, words and pragmatic episodes;
first recorded at main 9de600e, the last commit that knew only MEWL). A change that alters a single byte of a
MEWL episode, seed or file name fails here; if it is meant, it is a new
generator version and these digests are re-recorded in the same commit."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mewl_gen.cli.main import main

# sha256 over (relative path, sha256 of the file) of train/<task>/**, 40 episodes, seed 7.
PINNED = {
    "bootstrap": "0f797675d6f8fe2583aa1bca420b653b91208c858456748ec23bf450679eee5e",
    "color": "7d3853f70834408cda42e218c111e81b9371a63ee68f91ae4be69f7678bd0ea8",
    "composite": "973534f6f61a9ba42b807df8c81774f25b8ee3281fa9ed03d2a8e898d9e0d4bc",
    "material": "908607071873e1518d09657a5cb4a111e44ec5bf07baed6d3997c2a3c42b58b4",
    "number": "ad6958b72389dac6f7c472158470077432c89141c7381f58f6559d60cd25af29",
    "object": "1fef9e55da6a32dbe32ede5fe2d8219bcb2898e7e4b63016b7394c76a7fb4c95",
    "pragmatic": "e78019d8db130aa5767103c75ec137ec3af0b9177b6b9bc023f8ba123315b9d2",
    "relation": "4f840593aca9406eb4de3b6eca56190f4624136250a5160f8b7ed0b3e491a2e9",
    "shape": "cf54717c423a96905f5d6762940d853f4b19ebbb88e2ef6eef4e80597fbe57ea",
}


def digest(root: Path, folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@pytest.mark.slow
def test_mewl_sample_output_is_byte_identical_to_the_pinned_digests(tmp_path):
    out = tmp_path / "d"
    assert main(["sample", "--task", "mewl", "--n", "40", "--out", str(out), "--seed", "7", "--workers", "2"]) == 0
    assert {t: digest(out, out / "train" / t) for t in PINNED} == PINNED
    assert sorted(p.name for p in (out / "train").iterdir()) == sorted(PINNED)  # and no index file beside them
