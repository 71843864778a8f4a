"""`make bench` part (f), durable publish: what fsync costs an episode.

The pipeline's ratio (bench.suite.fsync_cost) is one run each way and moves
by a few percent from run to run, more than fsync costs a rendered episode;
so the publish itself is also timed alone: each episode a pipeline run
published, copied afresh into a staging folder (its data not yet on disk),
published into a new OUT with fsync and without, on the same disk.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from mewl_gen.store import layout
from mewl_gen.store.manifest import claim_output


def publish_ms(published: Path, scratch: Path, split: str, durable: bool) -> float:
    """Milliseconds to publish one of the episodes in `published`, on average."""
    out = scratch / f"publish-{'fsync' if durable else 'no-fsync'}"
    claim_output(out, {"seed": 0, "kind": "bench"})
    folders = sorted(f for f in published.glob(f"{split}/*/*") if f.is_dir())
    total = 0.0
    for k, folder in enumerate(folders):
        tmp = out / layout.STAGING / str(k)
        shutil.copytree(folder, tmp)
        start = time.perf_counter()
        layout.publish(tmp, out, split, folder.parent.name, int(folder.name), durable=durable)
        total += time.perf_counter() - start
    shutil.rmtree(out, ignore_errors=True)
    return 1000.0 * total / max(len(folders), 1)


def publish_costs(published: Path, scratch: Path, split: str) -> dict:
    return {"publish_ms_with_fsync": publish_ms(published, scratch, split, True),
            "publish_ms_without_fsync": publish_ms(published, scratch, split, False)}


def format_fsync(r: dict) -> str:
    per_episode = {k: r[k]["render_seconds"] / r["episodes"] for k in ("with_fsync", "without_fsync")}
    share = (r["publish_ms_with_fsync"] - r["publish_ms_without_fsync"]) / 10 / per_episode["without_fsync"]
    return (f"(f) durable publish at {r['quality']} quality, {r['episodes']} episodes, 1 worker, one run each: "
            f"{per_episode['with_fsync']:.2f} s/episode with fsync, {per_episode['without_fsync']:.2f} s without, "
            f"ratio {r['seconds_ratio']:.3f}; publishing alone {r['publish_ms_with_fsync']:.1f} ms/episode with fsync, "
            f"{r['publish_ms_without_fsync']:.1f} ms without ({share:+.2f} % of an episode)")
