"""The genuine small datasets the hostile-dataset tests spoil, made once a session, and a fresh copy of
one (a World, beside the user's own folder) for each test."""
from __future__ import annotations

from pathlib import Path

import pytest

from .hostile import SAMPLED_TASK, World, rendered_dataset, sample


@pytest.fixture(scope="session")
def rendered_source(tmp_path_factory) -> Path:
    return rendered_dataset(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="session")
def sampled_source(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "sampled"
    sample(out, SAMPLED_TASK)
    return out


@pytest.fixture
def rendered(tmp_path, rendered_source) -> World:
    return World(tmp_path, rendered_source)


@pytest.fixture
def sampled(tmp_path, sampled_source) -> World:
    return World(tmp_path, sampled_source)
