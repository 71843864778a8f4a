"""scikit-learn loaded for a probe without pandas (tasks/audit/scikit.py), in a fresh interpreter: the
models fit, pandas is not loaded by them and still imports afterwards."""
from __future__ import annotations

import subprocess
import sys

FIT = """
import sys
from mewl_gen.tasks.audit import learned, scikit
from mewl_gen.tasks.audit.legibility import _model
import numpy as np
probe = learned([[i % 2, i % 3] for i in range(40)], [i % 2 for i in range(40)], 0.5)
_model("material").fit(np.arange(20.0).reshape(10, 2), [0, 1] * 5)
print(probe.n, "pandas" in sys.modules)
import pandas
scikit.load()
print(pandas.DataFrame({"a": [1]}).shape)
"""


def test_probes_fit_without_pandas_and_pandas_still_imports_after():
    r = subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["20 False", "(1, 1)"]


def test_a_process_that_has_pandas_loads_scikit_learn_as_it_is():
    r = subprocess.run([sys.executable, "-c", "import pandas, sys\nfrom mewl_gen.tasks.audit import scikit\n"
                        "scikit.load()\nimport sklearn.utils.fixes as f\nprint(f.pd is pandas)"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
