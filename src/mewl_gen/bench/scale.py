"""`make bench ONLY=scale` (`QUICK=1`: the smallest size only): every store command at a release's scale.

Stores of 1,125, 4,000 and 16,000 items (SIZES; bench.scale_store: the real
layout and records, images of a few real draft renders reused across items)
and, on each, every command that reads a store, run as `mewl` runs it, one
child process each: status, verify, index, audit, text, export --to hf and
--to webdataset, gallery, eval and `render --repair`'s check. For each: wall
seconds and per item, CPU seconds (cores used = CPU / wall), peak memory (the
child's max RSS, and the largest sum over it and its worker processes seen
every 0.2 s; and apart, the largest anonymous memory of them all: RSS less the
pages of files they map, which are the page cache's), bytes written and, for
the exports, the peak bytes on disk while it ran. Then the ratio of the
largest size to the smallest (linear: 16x the items within 1.25 x 16x the
time; flat memory: within 1.25x), the floor (scale_store.floor) and the
extrapolation to the MEWL release, 37,800 episodes of 264,600 images, on
this machine and per core. Every file was just written,
so every read is from the page cache: a cold or network file system is slower
(docs/scale.md).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import scale_store as store
from .scale_report import RELEASE_IMAGES, RELEASE_ITEMS, check, format_report

# About 1,000, 4,000 and 16,000 items. The smallest is 125 episodes a task, the fewest on which `mewl audit` fits
# its learned baselines (five folds leave learned.MIN_TRAIN = 100 to fit on): with fewer, the smallest store's
# audit would fit nothing, and its time and memory would be those of a smaller command than the others'.
SIZES = (1125, 4000, 16000)
POLL = 0.2  # seconds between two looks at an export's bytes on disk

# name -> (what it runs after `mewl`, where it writes: "dest" a new folder, "out" beside the items)
REPAIR_CHECK = ("import sys; from pathlib import Path; from mewl_gen.store.verify import find_damage; "
                "out, n = Path(sys.argv[1]), int(sys.argv[2]); "
                "print(len(find_damage(out, 'train', sys.argv[3].split(','), range(n))), 'damaged')")


def commands(out: Path, dest: Path, predictions: Path, n: int) -> dict[str, list[str]]:
    """Each command's argv (after the Python interpreter)."""
    mewl = ["-m", "mewl_gen"]
    return {
        "status": [*mewl, "status", str(out)],
        "verify": [*mewl, "verify", str(out)],
        "index": [*mewl, "index", str(out)],
        "audit": [*mewl, "audit", str(out)],
        "text": [*mewl, "text", str(out)],
        "export hf": [*mewl, "export", str(out), "--to", "hf", str(dest / "hf" / "out")],
        "export webdataset": [*mewl, "export", str(out), "--to", "webdataset", str(dest / "webdataset" / "out")],
        "gallery": [*mewl, "gallery", str(out), "--out", str(dest / "gallery" / "out")],
        "eval": [*mewl, "eval", str(out), str(predictions)],
        "repair check": ["-c", REPAIR_CHECK, str(out), str(max(store.counts(n).values())), ",".join(store.tasks())],
    }


def write_predictions(out: Path, path: Path) -> None:
    """Every item's own answer, one line each: what a perfect model hands `mewl eval`."""
    from mewl_gen.store.reader import read

    lines = [json.dumps({"split": s.split, "task": s.task, "index": s.index, "answer": s.item().solution()}) + "\n"
             for items in read(out).items.values() for s in items]
    path.write_text("".join(lines))


def out_bytes(out: Path) -> int:
    """The bytes OUT holds besides its items: the indexes and text files in each split, the bookkeeping."""
    total = store.tree_bytes(out / ".mewl")
    for split in (p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        total += sum(e.stat().st_size for e in os.scandir(split) if e.is_file())
    return total


def tree_memory(pid: int, root: bool = True) -> tuple[int, int]:
    """The resident bytes of a process (`root`) and every process under it now (audit's workers, an
    export's), from /proc, and their anonymous memory: the pages no file holds (heap, shared memory), each
    counted once however many forked processes share it (proportional set size). A file's pages that a
    process maps are resident too, but they are the file system's cache, which the kernel drops when
    memory runs short. (0, 0) where there is none (not Linux, or the process is gone)."""
    resident = anonymous = seen = 0
    todo = [pid]
    while todo and seen < 10_000:
        p = todo.pop()
        seen += 1
        try:
            if root or p != pid:
                fields = dict(line.split(":", 1) for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()[1:])
                kb = lambda name: int(fields.get(name, "0 kB").split()[0]) * 1024
                resident += kb("Rss")
                anonymous += kb("Pss_Anon") + kb("Pss_Shmem")
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return resident, anonymous


# Each command is started by this small launcher, which forks it, waits and writes its rusage (max RSS in kB,
# CPU seconds, its worker processes included) to the file named first. A process started by this benchmark
# itself would not do: Linux counts the resident pages of the process a child was forked from into the
# child's max RSS, and the benchmark holds the store's items by then, so every command would read at least
# the benchmark's own size (issue 41: 96 MB at 1,000 items, 141 MB at 16,000, for `status` alike). The
# launcher holds a bare interpreter (about 10 MB), less than any command.
LAUNCHER = ("import os, sys\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    try:\n"
            "        os.execv(sys.argv[2], sys.argv[2:])\n"
            "    finally:\n"
            "        os._exit(127)\n"
            "_, status, usage = os.wait4(pid, 0)\n"
            "with open(sys.argv[1], 'w') as f:\n"
            "    f.write(f'{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}')\n"
            "code = os.waitstatus_to_exitcode(status)\n"
            "if code < 0:\n"
            "    os.kill(os.getpid(), -code)  # killed by a signal: so is the launcher\n"
            "sys.exit(code)\n")


def measure(argv: list[str], watch: Path, out: Path, log: Path, env: dict) -> dict:
    """Run one command as a child; its wall and CPU seconds, max RSS, exit status, the bytes it
    wrote (under `watch` and beside OUT's items) and the peak bytes under `watch` while it ran."""
    watch.mkdir(parents=True, exist_ok=True)
    before = out_bytes(out)
    peak, rss, anonymous = [0], [0], [0]
    done = threading.Event()

    def poll():
        while not done.wait(POLL):
            peak[0] = max(peak[0], store.tree_bytes(watch))
            resident, anon = tree_memory(child.pid, root=False)  # the launcher's own pages aside
            rss[0], anonymous[0] = max(rss[0], resident), max(anonymous[0], anon)

    watcher = threading.Thread(target=poll, daemon=True)
    usage_file = log.with_suffix(".usage")
    with open(log, "w") as sink:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, str(usage_file), sys.executable, *argv],
                                 stdout=sink, stderr=subprocess.STDOUT, env=env)
        watcher.start()
        child.wait()
        wall = time.perf_counter() - start
    done.set()
    watcher.join()
    max_rss_kb, cpu = usage_file.read_text().split()
    written = store.tree_bytes(watch)
    return {"seconds": wall, "cpu_seconds": float(cpu), "max_rss_bytes": int(max_rss_kb) * 1024,
            "tree_rss_bytes": max(rss[0], int(max_rss_kb) * 1024), "anonymous_bytes": anonymous[0], "exit": child.returncode,
            "bytes_written": written + out_bytes(out) - before,
            "peak_bytes": max(peak[0], written), "log_tail": log.read_text()[-400:]}


def gallery_pages(folder: Path) -> dict:
    """The largest index page of a gallery (bytes) and how many item pages it has."""
    index = [p for p in folder.glob("*/*/*.html") if p.name == "index.html" or p.name.startswith("page-")]
    return {"index_pages": len(index), "largest_index_page_bytes": max((p.stat().st_size for p in index), default=0),
            "item_pages": sum(1 for p in folder.glob("*/*/*.html")) - len(index)}


def one_size(scratch: Path, n: int, pool: list, only: list[str] | None = None) -> dict:
    """Build a store of N items, measure the floor and every command on it, then remove it."""
    out, dest = scratch / f"store-{n}", scratch / f"made-{n}"
    built = store.build(out, n, pool)
    print(f"scale: {n} items, {built['images']} images, {built['bytes'] / 1e9:.2f} GB built in "
          f"{built['build_seconds']:.0f} s", flush=True)
    row = {**built, "floor": store.floor(out), "commands": {}, "load_before": os.getloadavg()[0]}
    predictions = scratch / f"predictions-{n}.jsonl"
    write_predictions(out, predictions)
    env = {**os.environ, "HF_HOME": str(scratch / "hf-home"), "HF_DATASETS_OFFLINE": "1"}
    for name, argv in commands(out, dest, predictions, n).items():
        if only is not None and name not in only:
            continue
        watch = dest / name.split()[-1]
        result = measure(argv, watch, out, scratch / f"{name.replace(' ', '-')}-{n}.log", env)
        if name == "gallery" and result["exit"] == 0:
            result |= gallery_pages(watch / "out")
        result["load"] = os.getloadavg()[0]
        row["commands"][name] = result
        print(f"  {name:<18} {result['seconds']:8.1f} s  {1000 * result['seconds'] / n:7.2f} ms/item  "
              f"{result['max_rss_bytes'] / 2**20:7.0f} MB  exit {result['exit']}  (load {result['load']:.1f})", flush=True)
        shutil.rmtree(watch, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(dest, ignore_errors=True)
    return row


def ratios(rows: list[dict]) -> dict:
    """Per command, largest size over smallest: time against items (1.0 is linear) and memory."""
    small, large = rows[0], rows[-1]
    grow = large["items"] / small["items"]
    found = {}
    for name, big in large["commands"].items():
        little = small["commands"][name]
        time_ratio = big["seconds"] / little["seconds"]
        found[name] = {"time": time_ratio, "time_over_items": time_ratio / grow,
                       "cpu_over_items": big["cpu_seconds"] / little["cpu_seconds"] / grow,  # what load moves least
                       "memory": big["max_rss_bytes"] / little["max_rss_bytes"],
                       "anonymous memory": big.get("anonymous_bytes", 0) / max(little.get("anonymous_bytes", 0), 1)}
    return found


def release(row: dict) -> dict:
    """The largest size's per-item figures times the release's items: wall seconds on this machine and CPU
    seconds (one core's time), and the floor's for the release's images."""
    per_item = row["items"]
    found = {name: {"seconds": c["seconds"] / per_item * RELEASE_ITEMS,
                    "cpu_seconds": c["cpu_seconds"] / per_item * RELEASE_ITEMS,
                    "cores_used": c["cpu_seconds"] / c["seconds"]} for name, c in row["commands"].items()}
    found["floor"] = {"seconds": row["floor"]["seconds_per_image"] * RELEASE_IMAGES,
                      "cpu_seconds": row["floor"]["cpu_seconds"] / max(row["floor"]["images"], 1) * RELEASE_IMAGES,
                      "cores_used": 1.0}
    return found


def run(folder: Path, sizes: tuple[int, ...], renders: Path | None = None, pool: list | None = None,
        only: list[str] | None = None) -> dict:
    """The whole benchmark into `folder` (its scratch removed at the end); the report as a dict."""
    folder.mkdir(parents=True, exist_ok=True)
    if pool is None:
        pool = store.pool_of(store.ensure_renders(renders or folder / "renders"))
    scratch = folder / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        rows = [one_size(scratch, n, pool, only) for n in sizes]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = {"note": store.NOTE, "cores": os.cpu_count(), "pool_images": len(pool), "sizes": rows,
              "ratios": ratios(rows) if len(rows) > 1 else {}, "release": release(rows[-1])}
    report["verdicts"] = check(report)
    print(format_report(report), flush=True)
    (folder / "scale.json").write_text(json.dumps(report, indent=1) + "\n")
    return report
