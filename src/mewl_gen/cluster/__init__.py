"""The farm: planning a run, the pool of Blender workers, one item start to
finish, progress, SLURM arrays and calibration. It hands specs to render/ and
claims and publishes items through the store; it knows benchmarks only through
tasks.catalog."""
