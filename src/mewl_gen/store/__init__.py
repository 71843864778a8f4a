"""The output folder: its layout, manifest, atomic writes, its writers and their
claims on items (writers.py, claims.py), checksums, bookkeeping, verify and
repair, the split index, the dataset card, and the one reader every command
that reads items goes through (reader.py). It knows benchmarks only through
tasks.catalog."""
