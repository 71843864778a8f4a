"""Every measurement behind `make bench` (`python -m mewl_gen.bench`)."""
