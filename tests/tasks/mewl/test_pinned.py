"""MEWL's data does not move: `mewl sample` of every MEWL task, 40 episodes at seed 7, hashes as pinned in
tests/pinned_digests.py (MEWL_SAMPLED, written by `make pins-update`; the generator's version aside). A
change that alters a single byte of a MEWL episode, seed or file name fails here; if it is meant, the pins are
written again in the same commit."""
from __future__ import annotations

import pytest

from tests.pinned_digests import MEWL_SAMPLED
from tests.test_pinned_output import sample_mewl


@pytest.mark.slow
def test_mewl_sample_output_is_byte_identical_to_the_pinned_digests(tmp_path):
    assert sample_mewl(tmp_path) == MEWL_SAMPLED  # and no index file beside the task folders
