"""SLURM arrays of a render: scripts, submission, limits, records and status."""
