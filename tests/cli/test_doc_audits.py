"""docs/audit.md's script and bongard.md's audit commands: sample a fresh seed, then audit it, at two items a
split and task (tests/cli/docs_blocks.py says how a block is rewritten and run)."""
from __future__ import annotations

import re

import pytest

from mewl_gen.tasks import catalog
from tests.cli.docs_blocks import DOCS, run, scaled, table_rows


@pytest.mark.slow
def test_the_audit_pages_script_samples_and_audits_every_benchmark(tmp_path):
    """Two items per split and task for N_TRAIN / N_TEST; the tables print a row for every split and task the
    page's tables hold, each verdict ok."""
    done = run(scaled("audit"), tmp_path)
    assert table_rows(done.stdout) == table_rows((DOCS / "audit.md").read_text())
    assert all(line.endswith("| ok |") for line in done.stdout.splitlines() if re.match(r"\| (train|test) ", line))
    for benchmark in catalog.benchmarks():
        assert "## Audit" in (tmp_path / "D" / benchmark / "README.md").read_text(), benchmark


@pytest.mark.slow
def test_the_bongard_pages_audit_commands_sample_and_audit_every_family(tmp_path):
    done = run(scaled("bongard audit"), tmp_path)
    assert table_rows(done.stdout) == table_rows((DOCS / "bongard.md").read_text()) != set()
    assert all(line.endswith("| ok |") for line in done.stdout.splitlines() if re.match(r"\| (train|test) ", line))
