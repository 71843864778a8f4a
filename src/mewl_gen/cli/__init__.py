"""The `mewl` command line: argument parsing and thin commands over the farm (cluster), the
store and the benchmarks (tasks.catalog). Entry point: cli.main.main."""
