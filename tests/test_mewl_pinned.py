"""MEWL's data does not move: `mewl sample` of every MEWL task hashes as it did
before the pipeline became generic over benchmarks (recorded at main 9de600e,
the last commit that knew only MEWL). A change that alters a single byte of a
MEWL episode, seed or file name fails here; if it is meant, it is a new
generator version and these digests are re-recorded in the same commit."""
from __future__ import annotations

import hashlib
from pathlib import Path

from cli.main import main

# sha256 over (relative path, sha256 of the file) of train/<task>/**, 40 episodes, seed 7.
PINNED = {
    "bootstrap": "23385108b2a973262d0df11a4d50985bca978fb2c0b72b510c5cc9c74d397b32",
    "color": "92d416a9afb380bf9f2fc9f04b609a6f167f3e21c341ef4fe88200c22f0e8a3f",
    "composite": "b848bf8dc978d28d35680e2b8306ac1404fedc34e5b5e44787aa0dfc73959abf",
    "material": "ff28a1256d307b766c3fa0db64432cfac3dedf3ccb6c55541ecb3c40e73c7473",
    "number": "fee80355801976b846c580b27de4e6b9b1ef16b4069a53be1a89778336a6f606",
    "object": "610bcb43a1975589683680bdb60b93306df851ebeb8b1ad5643e4aecc5a158d1",
    "pragmatic": "263cd291154e44a945043766c77333ad9ebaf583efd2196c08c30c9942c68231",
    "relation": "db45fc5b9c336e878de56ee1a457e8bc120701eef0db94a475cfa9810a314670",
    "shape": "bd2d5ed2ee0f3b3e1fbb6fad711df85cab24bf2b44fb3a10fca560d02124737b",
}


def digest(root: Path, folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def test_mewl_sample_output_is_byte_identical_to_the_pinned_digests(tmp_path):
    out = tmp_path / "d"
    assert main(["sample", "--task", "mewl", "--n", "40", "--out", str(out), "--seed", "7", "--workers", "2"]) == 0
    assert {t: digest(out, out / "train" / t) for t in PINNED} == PINNED
    assert sorted(p.name for p in (out / "train").iterdir()) == sorted(PINNED)  # and no index file beside them
