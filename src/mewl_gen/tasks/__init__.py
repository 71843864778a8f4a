"""Every benchmark's tasks: a sampler, a validator and a file-only solver each (no bpy).

Each benchmark is a package of its own (mewl, malevic, shapeworld, icy,
bongard) exporting one tasks.benchmark.Benchmark; tasks.catalog lists them
and is what the rest of the project asks for a task.
"""
