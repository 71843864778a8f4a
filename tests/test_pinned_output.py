"""Every task of every benchmark gives the bytes it gave before the house was
rearranged (issue 27), recorded at main 78c5b37 before any code moved.

Sampled: every task, three items each at seed 2026 (iid, train), and the
configured forms (ShapeWorld's held-out relations in test, ICY's ROT
language, MALeViC's unseen scheme in test). Rendered: one item of every task,
where each JSON file and each PNG is pinned, at two qualities. Draft, the
render pinned before the move: `make pins` renders every task
(`python -m tests.test_pinned_output --check-draft`), and make test two
tasks of one image an item (DRAFT_TASKS). Preview, the session's shared render (tests/conftest.py), in
make test (and tests/cluster/test_pipeline_e2e.py's run resumed after kill -9
must give its bytes for number and pragmatic): pinned later (0.4.0, eb81f92's code), in a run whose draft render
and samples equalled their pins on the machine that recorded it. A PNG's bytes
hold on the CPU they were recorded on (Cycles' CPU kernels and
OpenImageDenoise pick code paths by the CPU), and so does each item's record
of checksums, which holds the PNGs' digests: those are pinned per CPU, and on
a CPU not pinned yet only the JSON files (ground truth, masks included) are
compared here. The pixels are compared on every CPU by test_pinned_pixels.py,
within tolerances measured across Cycles' code paths (docs/pixels.md), against
the references (tests/pinned_pixels.zip) written by the same command.
A change that alters one byte fails here, except the generator's version
string, which every file is read without (a version bump alone moves no pin):
if the change is meant, the digests are written again in the same commit by

    make pins-update    # python -m tests.test_pinned_output --write

(`make pins-update RENDER=no`: the sampled pins alone, for a change to a sampler.)

which samples and renders as the tests do, rewrites tests/pinned_digests.py
and tests/pinned_pixels.zip, and prints each group (and image) that changed.
Another CPU's PNGs stay pinned where the group's JSON files (its specs) did
not change, and are dropped where they did.
"""
from __future__ import annotations

import hashlib
import json
import platform
import sys
from pathlib import Path

import pytest

from mewl_gen.scenes.spec import GENERATOR_VERSION
from mewl_gen.store.record import RECORD
from tests.pinned_digests import MEWL_SAMPLED, PIXELS, PREVIEW_PIXELS, PREVIEW_RENDERED, RENDERED, SAMPLED

PINS_FILE = Path(__file__).with_name("pinned_digests.py")
ANY_VERSION = b"mewl-gen <version>"

ROOT = Path(__file__).resolve().parents[1]
SEED = "2026"
# (name, extra arguments): each run writes its own folder.
SAMPLE_RUNS = {
    "iid": ["--task", "all", "--n", "3", "--split", "train"],
    "shapeworld-heldout": ["--task", "shapeworld", "--n", "3", "--split", "test",
                           "--distribution", str(ROOT / "docs" / "shapeworld-heldout-relations.json")],
    "icy-rot": ["--task", "icy", "--n", "3", "--split", "test", "--grammar", "rot:vocab_size=6,word_length=3"],
    "malevic-unseen": ["--task", "malevic", "--n", "3", "--split", "test", "--split-scheme", "malevic-unseen"],
}
# Per quality: (the JSON files' digests, on any CPU; per CPU, the PNGs' and records' digests).
PINS = {"draft": (RENDERED, PIXELS), "preview": (PREVIEW_RENDERED, PREVIEW_PIXELS)}


def cpu_fingerprint() -> str:
    """What a PNG's bytes depend on besides the spec: the CPU's model and flags, and bpy."""
    from importlib import metadata

    text = ""
    try:
        info = Path("/proc/cpuinfo").read_text().splitlines()
        text = "\n".join(sorted({line for line in info if line.startswith(("model name", "flags"))}))
    except OSError:
        text = platform.processor()
    return hashlib.sha256(f"{text}\nbpy {metadata.version('bpy')}".encode()).hexdigest()[:16]


def pinned_bytes(p: Path) -> bytes:
    """A file as pinned: the generator's version string replaced, so that a version bump alone moves no
    pin; a record of checksums with each file it lists at its size and digest once so read."""
    data = p.read_bytes()
    if p.suffix == ".png":
        return data
    if p.name == RECORD:
        record = json.loads(data)
        for name, entry in record["files"].items():
            body = pinned_bytes(p.parent / name)
            entry.update(size=len(body), sha256=hashlib.sha256(body).hexdigest())
        return json.dumps(record, sort_keys=True).encode()
    return data.replace(GENERATOR_VERSION.encode(), ANY_VERSION)


def digests(out: Path) -> dict[str, str]:
    """Per folder under OUT's splits (a task's items, an index file, the manifest and the
    card): sha256 over (relative path, sha256 of the file as pinned) of its JSON files, of its records
    of checksums, and of its PNGs."""
    found: dict[str, hashlib._Hash] = {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out)
        if not p.is_file() or any(part.startswith(".") for part in rel.parts) or rel.parts[0] == "slurm":
            continue
        group = "/".join(rel.parts[:2]) if len(rel.parts) > 2 else str(rel)
        kind = "png" if p.suffix == ".png" else "record" if p.name == RECORD else "files"
        h = found.setdefault(f"{group} {kind}", hashlib.sha256())
        h.update(str(rel).encode())
        h.update(hashlib.sha256(pinned_bytes(p)).digest())
    return {k: h.hexdigest() for k, h in sorted(found.items())}


def sample_all(root: Path) -> dict[str, dict[str, str]]:
    from mewl_gen.cli.main import main

    result = {}
    for name, argv in SAMPLE_RUNS.items():
        out = root / name
        assert main(["sample", *argv, "--seed", SEED, "--out", str(out), "--workers", "2"]) == 0
        result[name] = digests(out)
    return result


def folder_digest(root: Path, folder: Path) -> str:
    """sha256 over (path relative to root, sha256 of the file as pinned) of every file under folder."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(hashlib.sha256(pinned_bytes(p)).digest())
    return h.hexdigest()


def sample_mewl(root: Path) -> dict[str, str]:
    """Per MEWL task, the digest of train/<task>/ of `mewl sample --task mewl --n 40 --seed 7`: more
    episodes of MEWL's nine tasks than SAMPLED's three."""
    from mewl_gen.cli.main import main

    out = root / "mewl"
    assert main(["sample", "--task", "mewl", "--n", "40", "--out", str(out), "--seed", "7", "--workers", "2"]) == 0
    return {t.name: folder_digest(out, t) for t in sorted((out / "train").iterdir())}


def render_all(root: Path, quality: str, tasks: list[str] | None = None) -> dict[str, str]:
    """Digests of item 0 of every task (of `tasks`), rendered at `quality`."""
    from mewl_gen.cli.main import main

    out = root / f"rendered-{quality}"
    assert main(["render", "--task", ",".join(tasks or ["all"]), "--n", "1", "--seed", SEED, "--quality", quality,
                 "--device", "cpu", "--out", str(out)]) == 0
    return digests(out)


def split_pixels(found: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(what holds on any CPU, what depends on the CPU's renders: PNGs and the records holding their digests)."""
    cpu_bound = {k: v for k, v in found.items() if k.endswith((" png", " record"))}
    return {k: v for k, v in found.items() if k not in cpu_bound}, cpu_bound


def assert_pinned(found: dict[str, str], quality: str, tasks: list[str] | None = None) -> None:
    """Fail unless FOUND (digests() of a render of seed 2026's item 0) holds `quality`'s pins, of every task or
    of `tasks` alone (their folders in train): the JSON files on any CPU, and the PNGs' and records' bytes where
    this CPU's are pinned (test_pinned_pixels.py compares the pixels on every CPU)."""
    files_pinned, pixels_pinned = PINS[quality]
    files, pixels = split_pixels(found)
    pixels_pinned = pixels_pinned.get(cpu_fingerprint())
    if tasks is not None:
        groups = {f"train/{t}" for t in tasks}

        def only(d):
            return {k: v for k, v in d.items() if k.rpartition(" ")[0] in groups}

        files, pixels, files_pinned = only(files), only(pixels), only(files_pinned)
        pixels_pinned = None if pixels_pinned is None else only(pixels_pinned)
        assert files_pinned, f"no {quality} pins for {tasks}"
    assert files == files_pinned
    if pixels_pinned is not None:
        # A CPU's pins may lack the groups whose specs changed since it was pinned (make pins-update drops them).
        assert {k: pixels.get(k) for k in pixels_pinned} == pixels_pinned


@pytest.mark.slow
def test_sampled_items_of_every_task_are_byte_identical(tmp_path):
    assert sample_all(tmp_path) == SAMPLED


@pytest.mark.render
def test_rendered_items_of_every_task_are_byte_identical():
    from tests.conftest import RENDERED_QUALITY, RENDERED_SEED, rendered_all

    assert (RENDERED_SEED, RENDERED_QUALITY) == (SEED, "preview")
    # `mewl render --task all --n 1 --seed 2026 --quality preview`, shared; its pixels are checked on any CPU by
    # test_pinned_pixels.py, its PNGs' bytes here where this CPU's are pinned
    assert_pinned(digests(rendered_all()), RENDERED_QUALITY)


# Two tasks of one image an item (of two benchmarks) rendered at draft in make test, so that draft's bytes, the
# denoiser's included, are checked on every CPU whose draft PNGs are pinned (those with no preview pins among them).
DRAFT_TASKS = ["malevic-pos", "shapeworld-relational"]


@pytest.mark.render
def test_a_draft_render_of_two_one_image_tasks_is_byte_identical(tmp_path):
    assert_pinned(render_all(tmp_path, "draft", DRAFT_TASKS), "draft", DRAFT_TASKS)


def measured(root: Path, render: bool = True) -> dict:
    """Every pinned group as this checkout gives it today, on this CPU."""
    record = {"CPU": cpu_fingerprint(), "SAMPLED": sample_all(root / "s"), "MEWL_SAMPLED": sample_mewl(root)}
    if render:
        for quality, (files_name, pixels_name) in (("draft", ("RENDERED", "PIXELS")),
                                                   ("preview", ("PREVIEW_RENDERED", "PREVIEW_PIXELS"))):
            record[files_name], record[pixels_name] = split_pixels(render_all(root / "r", quality))
    return record


def carried_pixels(old: dict[str, dict[str, str]], new: dict[str, str], cpu: str, moved: set[str]) -> dict:
    """The per-CPU pins after a rewrite: this CPU's as measured; another CPU's where the group's specs did
    not move (the same spec renders the same bytes on the CPU that rendered it), else dropped."""
    kept = {c: {k: v for k, v in groups.items() if k.rpartition(" ")[0] not in moved}
            for c, groups in old.items() if c != cpu}
    return {c: groups for c, groups in sorted({**kept, cpu: new}.items()) if groups}


def changes(name: str, old: dict, new: dict) -> list[str]:
    return [f"{name} {k}: {'added' if k not in old else 'removed' if k not in new else 'changed'}"
            for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


def write_pins(record: dict) -> list[str]:
    """Rewrite PINS_FILE from `record` (measured()); the lines saying which groups changed."""
    import tests.pinned_digests as pins

    cpu, lines = record["CPU"], []
    tables: dict[str, dict] = {}
    for files_name, pixels_name in (("RENDERED", "PIXELS"), ("PREVIEW_RENDERED", "PREVIEW_PIXELS")):
        if files_name not in record:  # sampled only (--no-render): the render's pins stay as they are
            tables[files_name], tables[pixels_name] = getattr(pins, files_name), getattr(pins, pixels_name)
            continue
        old_files, new_files = getattr(pins, files_name), record[files_name]
        moved = {k.rpartition(" ")[0] for k in set(old_files) | set(new_files) if old_files.get(k) != new_files.get(k)}
        old_pixels = getattr(pins, pixels_name)
        tables[files_name] = new_files
        tables[pixels_name] = carried_pixels(old_pixels, record[pixels_name], cpu, moved)
        lines += changes(files_name, old_files, new_files)
        lines += changes(f"{pixels_name} {cpu}", old_pixels.get(cpu, {}), record[pixels_name])
        lines += [f"{pixels_name} {c}: {len(old_pixels[c]) - len(tables[pixels_name].get(c, {}))} groups dropped"
                  for c in old_pixels if c != cpu and len(old_pixels[c]) != len(tables[pixels_name].get(c, {}))]
    tables["SAMPLED"], tables["MEWL_SAMPLED"] = record["SAMPLED"], record["MEWL_SAMPLED"]
    lines += changes("MEWL_SAMPLED", pins.MEWL_SAMPLED, record["MEWL_SAMPLED"])
    lines += [line for run in sorted(set(pins.SAMPLED) | set(record["SAMPLED"]))
              for line in changes(f"SAMPLED {run}", pins.SAMPLED.get(run, {}), record["SAMPLED"].get(run, {}))]
    body = "".join(f"\n{name} = {json.dumps(tables[name], indent=4, sort_keys=True)}\n"
                   for name in ("PIXELS", "SAMPLED", "MEWL_SAMPLED", "RENDERED", "PREVIEW_RENDERED", "PREVIEW_PIXELS"))
    PINS_FILE.write_text(f'"""{PINS_DOC}"""\n{body}')
    return lines


PINS_DOC = """Digests of tests/test_pinned_output.py, written by `make pins-update`; never edited by hand.

SAMPLED: `mewl sample` of every task (seed 2026, three items each, and the configured forms); MEWL_SAMPLED:
40 episodes of each MEWL task (seed 7, tests/tasks/mewl/test_pinned.py). RENDERED and
PREVIEW_RENDERED: the JSON files of item 0 of every task rendered at draft and at preview quality (ground
truth, masks, release files), which hold on any machine. PIXELS and PREVIEW_PIXELS: per CPU
(tests.test_pinned_output.cpu_fingerprint), what depends on Cycles' CPU kernels: each task's PNGs and the
records of checksums that hold their digests; a CPU keeps the groups whose specs did not change since it was
pinned. Every file is read with the generator's version string replaced (pinned_bytes)."""


if __name__ == "__main__":
    import tempfile

    from tests.pixels import write_references

    if "--check-draft" in sys.argv:  # make pins: the draft render of every task against its pins
        with tempfile.TemporaryDirectory() as tmp:
            try:
                assert_pinned(render_all(Path(tmp), "draft"), "draft")
            except AssertionError:
                sys.exit("the draft render differs from its pins: run `make pins-update` if the change is meant")
        print("the draft render of every task equals its pins")
        sys.exit(0)
    with tempfile.TemporaryDirectory() as tmp:
        # --no-render: the sampled pins alone (seconds, where a render of every task takes minutes), for a
        # change to a sampler; a change to what is rendered, or a new benchmark's render, needs the whole.
        render = "--no-render" not in sys.argv
        found = measured(Path(tmp), render=render)
        if "--write" in sys.argv:
            lines = write_pins(found)
            if render:  # the pixel references (tests/pixels.py) from the same preview render as PREVIEW_RENDERED's
                lines += write_references(Path(tmp) / "r" / "rendered-preview")
            print("\n".join(lines) or "no pin changed")
        else:
            print(json.dumps(found, indent=1))
