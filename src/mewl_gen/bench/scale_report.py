"""The scale benchmark's table and its verdicts against the targets (bench.scale)."""
from __future__ import annotations

RELEASE_ITEMS, RELEASE_IMAGES = 37_800, 264_600  # MEWL as its paper sized it
LINEAR, FLAT, MEMORY_LIMIT = 1.25, 1.25, 2**30  # the targets: 16x the items in 1.25 x 16x the time, ...

AGAINST_FLOOR = ("verify", "export webdataset", "export hf")  # read every byte: judged against the floor
FLOOR_FACTOR = 2.0  # at most this many times the floor's CPU time per image
EXPORT_DISK = 2.25  # at most about twice the dataset's bytes on disk while an export runs
STATUS_LIMIT = 60.0  # seconds for `mewl status` on the release


def check(r: dict) -> dict[str, str]:
    """Each target: 'ok' or why not."""
    found: dict[str, str] = {}
    rows, cores = r["sizes"], r["cores"] or 1

    def verdict(name: str, good: bool, figure: str) -> None:
        found[name] = ("ok: " if good else "MISSED: ") + figure

    for name, q in r["ratios"].items():
        verdict(f"{name} linear", q["time_over_items"] <= LINEAR, f"time x{q['time']:.2f} for items "
                f"x{rows[-1]['items'] / rows[0]['items']:.0f} ({q['time_over_items']:.2f} of linear; CPU time "
                f"{q['cpu_over_items']:.2f} of linear)")
        verdict(f"{name} memory flat", q["memory"] <= FLAT, f"peak memory (max RSS) x{q['memory']:.2f}")
        if q.get("anonymous memory"):
            verdict(f"{name} anonymous memory flat", q["anonymous memory"] <= FLAT,
                    f"peak anonymous memory x{q['anonymous memory']:.2f} (RSS less the pages of files it maps)")
    for name in rows[-1]["commands"]:
        peak = max(row["commands"][name].get("tree_rss_bytes", row["commands"][name]["max_rss_bytes"]) for row in rows)
        verdict(f"{name} memory under 1 GB", peak < MEMORY_LIMIT, f"{peak / 2**20:.0f} MB with its worker processes")
    big = rows[-1]
    per_image = big["floor"]["cpu_seconds"] / max(big["floor"]["images"], 1)
    for name in AGAINST_FLOOR:
        c = big["commands"].get(name)
        if c is None:
            continue
        cost = c["cpu_seconds"] / big["images"] / per_image
        used = c["cpu_seconds"] / c["seconds"]
        verdict(f"{name} near the floor", cost <= FLOOR_FACTOR, f"{cost:.2f}x the floor's CPU per image")
        verdict(f"{name} uses every core", used >= 0.75 * cores, f"{used:.2f} of {cores} cores busy")
    for name in ("export hf", "export webdataset"):
        c = big["commands"].get(name)
        if c is not None:
            verdict(f"{name} disk", c["peak_bytes"] <= EXPORT_DISK * big["bytes"],
                    f"peak {c['peak_bytes'] / big['bytes']:.2f}x the dataset, leaves {c['bytes_written'] / big['bytes']:.2f}x")
    pages = [row["commands"]["gallery"].get("largest_index_page_bytes") for row in rows if "gallery" in row["commands"]]
    if pages and all(pages):
        verdict("gallery index pages paged", max(pages) <= FLAT * min(pages),
                f"largest index page {min(pages) / 1e3:.0f} to {max(pages) / 1e3:.0f} kB")
    status = r["release"].get("status")
    if status is not None:
        verdict("status on the release", status["seconds"] < STATUS_LIMIT, f"{status['seconds']:.0f} s extrapolated")
    return found


def _h(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def format_report(r: dict) -> str:
    rows = r["sizes"]
    lines = [f"scale: {r['note']} ({r['pool_images']} rendered images); {r['cores']} cores; "
             "every file read from the page cache"]
    head = f"{'command':<18}" + "".join(f" {row['items']:>7} items: s  ms/item   MB anon MB  written MB" for row in rows)
    lines += ["", head]
    for name in rows[-1]["commands"]:
        cells = ""
        for row in rows:
            c = row["commands"][name]
            cells += (f" {c['seconds']:>16.1f} {1000 * c['seconds'] / row['items']:>8.2f} {c['max_rss_bytes'] / 2**20:>4.0f}"
                      f" {c.get('anonymous_bytes', 0) / 2**20:>7.0f} {c['bytes_written'] / 2**20:>10.1f}")
        lines.append(f"{name:<18}{cells}")
    lines.append(f"{'floor (1 process)':<18}" + "".join(
        f" {row['floor']['seconds']:>16.1f} {1000 * row['floor']['seconds'] / row['items']:>8.2f}" + " " * 24 for row in rows))
    lines.append("load average at each size: " + ", ".join(f"{row['load_before']:.1f}" for row in rows))
    if r["ratios"]:
        lines += ["", f"largest over smallest ({rows[-1]['items']} / {rows[0]['items']} items):"]
        lines += [f"  {name:<18} time x{q['time']:.2f} ({q['time_over_items']:.2f} of linear, CPU time "
                  f"{q['cpu_over_items']:.2f} of linear), memory x{q['memory']:.2f} "
                  f"(anonymous x{q.get('anonymous memory', 0):.2f})"
                  for name, q in r["ratios"].items()]
    lines += ["", f"the MEWL release ({RELEASE_ITEMS:,} episodes, {RELEASE_IMAGES:,} images), from the "
              f"{rows[-1]['items']}-item figures: wall on this machine (cores busy), CPU time (one core)"]
    lines += [f"  {name:<18} {_h(e['seconds']):>9} ({e['cores_used']:.1f} cores)  {_h(e['cpu_seconds']):>9} on one core"
              for name, e in r["release"].items()]
    lines += ["", "targets:"] + [f"  {name}: {text}" for name, text in r["verdicts"].items()]
    return "\n".join(lines)
