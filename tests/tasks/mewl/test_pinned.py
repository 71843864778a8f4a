"""MEWL's data does not move: `mewl sample` of every MEWL task hashes as
recorded for mewl-gen 0.2.0 (issue 31 changed MEWL's names, words and
pragmatic episodes; first recorded at main 9de600e, the last commit that
knew only MEWL). A change that alters a single byte of a
MEWL episode, seed or file name fails here; if it is meant, it is a new
generator version and these digests are re-recorded in the same commit."""
from __future__ import annotations

import hashlib
from pathlib import Path

from mewl_gen.cli.main import main

# sha256 over (relative path, sha256 of the file) of train/<task>/**, 40 episodes, seed 7.
PINNED = {
    "bootstrap": "2e2042211c123d87334a001a30611b0c878b6810969e292c1e5bbf67698eecd6",
    "color": "e2f78634bf6cd0a23666ff820001f56b3f6593cacca90bcd79e0be2d0437268d",
    "composite": "37e6e8885c7975c44111a998d61e3bb7b4d0acb1dedc42b630359b9e0d6578ed",
    "material": "a74a9d13afe1c49270834acfaf30d3c68ca2695ff23442375f6702732bbacbb8",
    "number": "af1cd0603eda50f866ca8e25c7ef0471644b50ffc6562c0b6f39872e00c6df48",
    "object": "304e727b5ad7b3bc329911b5e890d462f985c72c8ced4b07ab7ac0e428adf384",
    "pragmatic": "c9d64c78eed68f1266c0d081ff872ce1d0b6a79666bfaa73f1591de2404aca28",
    "relation": "a3b1510810b72123a6a5386917d7fb9540e3149f7713c547a327d0002437889d",
    "shape": "d68343b6235d4ecb3f8e8fa85797aa08e8ae8410bb31da24d3e4679b4113fd9b",
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
