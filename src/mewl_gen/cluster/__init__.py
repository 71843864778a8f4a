"""The farm: planning a run, claims and writers, the pool of Blender workers, one
item start to finish, progress, SLURM arrays and calibration. It hands specs to
render/ and publishes through the store; it knows benchmarks only through
tasks.catalog."""
