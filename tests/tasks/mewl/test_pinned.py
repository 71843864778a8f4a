"""MEWL's data does not move: `mewl sample` of every MEWL task hashes as
recorded for mewl-gen 0.4.0 (every file records the generator's version,
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
    "bootstrap": "a8ab8b0c62a6f11ec1181f94785453dcf381ce865353430f2ef00ee2a149f2fd",
    "color": "5f06f40645096a33ae6dc14cff6d02f01b07f03b81159d4ea1ef0f611bcda98e",
    "composite": "9aad38c386182547715058e00b10e5ea66a74e0c58b8110bbd9be8bdd54718f9",
    "material": "a99ddee57dfc7a113f94d41cd0789323e79b62cd9235be1229e72dc94c60c4ec",
    "number": "7a954091d0b95c77a43adb2915435861db2b27801dab465643e692ac467239da",
    "object": "da1031fb12a70321e956f28267a2967856c37b52dd71a4dc01f93b8dfbfb67cb",
    "pragmatic": "428e6a4a8636632d99482f9eec60ad4bf2d4ab7d35f0ec868b0685be40112a98",
    "relation": "615cbe73297d8f2a4ff3a9b96ad3f8c1a8cab1caaa53c3413120b21e0d30f27f",
    "shape": "749a4917878ebb7e231891dca02270c58937d6b7dc62928ec7d0e633dc82278e",
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
