"""What every benchmark's audit shares: the frame (frame.py: what an audit is given, its row, the
repeats column and the verdict), the statistics (statistics.py: binomial intervals, the verdict's bar,
uniformity tests), deprived solvers as probes (probes.py: the probe cell, a measurement run over
batches of items, a learned deprived solver, the identity fields) and the cross-split repeat probe
(cross_split.py). legibility.py is an audit of its own: can a classifier tell rendered colours apart."""
from __future__ import annotations

from .frame import OK, REPEATS, VERDICT, Audit, AuditRun, Findings, verdict
from .probes import MANY_CLASSES, Probe, identity, index_pairs, leaking, learned, measured
from .cross_split import TEST_SPLIT, repeat_column, repeat_failures, repeats
from .statistics import BALANCE_P, Z95, Z_VERDICT, above_chance, balanced, below, uniform_p, wilson

__all__ = ["OK", "REPEATS", "VERDICT", "Audit", "AuditRun", "Findings", "verdict", "MANY_CLASSES", "Probe",
           "identity", "index_pairs", "leaking", "learned", "measured", "TEST_SPLIT", "repeat_column",
           "repeat_failures", "repeats", "BALANCE_P", "Z95", "Z_VERDICT", "above_chance", "balanced", "below", "uniform_p",
           "wilson"]
