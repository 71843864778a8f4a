"""export hf sizes what it writes as `datasets` does, without the library's copy of 1,000 rows of images: the count of
a split's save_to_disk files (disk_shards) and the rows of a Parquet row group (parquet_rows)."""
from __future__ import annotations

import numpy as np
import pytest

from mewl_gen.results.export_hf import disk_shards, parquet_rows


@pytest.fixture(scope="module")
def datasets():
    """The library, imported by the process that runs these tests only (it takes seconds to import: every
    test process collecting the suite would pay them)."""
    return pytest.importorskip("datasets")


def a_split(datasets, rows: int, seed: int, cache):
    rng = np.random.default_rng(seed)
    features = datasets.Features({"key": datasets.Value("string"), "images": datasets.List(datasets.Image())})

    def gen():
        for i in range(rows):
            images = [{"bytes": rng.bytes(int(rng.integers(2_000, 6_000))), "path": None} for _ in range(3)]
            yield {"key": f"train/toy/{i}", "images": images}

    return datasets.Dataset.from_generator(gen, features=features, cache_dir=str(cache), keep_in_memory=True)


@pytest.mark.parametrize(("rows", "max_shard"), [(1, "5KB"), (1, "500MB"), (37, "5KB"), (37, "60KB"), (37, "1MB"),
                                              (1200, "60KB"), (1200, "150KB"), (1200, "1MB"), (1200, "500MB")])
def test_disk_shards_counts_the_files_save_to_disk_writes(datasets, tmp_path, monkeypatch, rows, max_shard):
    """From one file to one a row; 1,200 rows, of which the library reads the first 1,000."""
    monkeypatch.setattr(datasets.config, "MAX_SHARD_SIZE", max_shard)
    part = a_split(datasets, rows, rows, tmp_path / "cache")
    part.save_to_disk(tmp_path / "disk")  # the library counts
    written = len(list((tmp_path / "disk").glob("data-*.arrow")))
    assert disk_shards(part) == written


@pytest.mark.parametrize(("rows", "max_group"), [(1, "10KB"), (37, "10KB"), (37, "100MB"), (1200, "200KB"), (1200, "2MB")])
def test_parquet_rows_writes_the_bytes_to_parquet_writes(datasets, tmp_path, monkeypatch, rows, max_group):
    """Each contiguous shard of a split (as the export writes them), with the row groups the library would choose."""
    monkeypatch.setattr(datasets.config, "MAX_ROW_GROUP_SIZE", max_group)
    part = a_split(datasets, rows, rows, tmp_path / "cache")
    for k in range(min(rows, 3)):
        shard = part.shard(min(rows, 3), k, contiguous=True)
        shard.to_parquet(tmp_path / f"library-{k}.parquet")
        shard.to_parquet(tmp_path / f"ours-{k}.parquet", batch_size=parquet_rows(shard))
        assert (tmp_path / f"ours-{k}.parquet").read_bytes() == (tmp_path / f"library-{k}.parquet").read_bytes()
