"""Planning, worker pools, SLURM arrays, resume, status: the only package
that knows about scenes, tasks and render together."""
