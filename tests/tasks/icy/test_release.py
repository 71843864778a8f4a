"""ICY's release read from its files alone: the checker, a table-free solver and a real draft render."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from mewl_gen.tasks.icy import solver as checker
from mewl_gen.tasks.icy.language import LanguageSpec, language_json
from tests.command import mewl_here
from tests.conftest import stored_items
from tests.tasks.icy.test_episodes import SPECS, items, truth_of


# -- the file-only checker ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.grammar}-{s.symbols}")
@pytest.mark.slow
def test_the_checker_rebuilds_every_message_from_the_written_language(spec):
    written = json.loads(json.dumps(language_json(2, spec)))
    assert checker.check_language(written) == []
    written["objects"][7]["message"] = written["objects"][8]["message"]
    assert len(checker.check_language(written)) == 1


def test_the_checker_reads_items_and_ground_truth_and_finds_wrong_names_and_splits():
    spec = LanguageSpec(grammar="shufdet")
    written = json.loads(json.dumps(language_json(0, spec)))
    for split in ("train", "test"):
        for item in items("icy-naming", split, 5, spec):
            record = json.loads(item.model_dump_json())
            assert checker.check_naming(record, truth_of(item, "image"), written) == []
        for ep in items("icy-episodes", split, 5, spec):
            truths = {name: truth_of(ep, name) for name in ep.scenes()}
            assert checker.check_episode(json.loads(ep.model_dump_json()), truths, written) == []
    held = items("icy-naming", "test", 1, spec)[0]
    moved = {**json.loads(held.model_dump_json()), "split": "train"}
    assert checker.check_naming(moved, truth_of(held, "image"), written) == [
        f"image: {' '.join(held.object)} is a held-out pair in 'train'"]
    renamed = {**json.loads(held.model_dump_json()), "message": "a" * 16}
    assert "is named 'aaaaaaaaaaaaaaaa'" in checker.check_naming(renamed, truth_of(held, "image"), written)[0]


@pytest.mark.parametrize("grammar", ["concat", "perm", "rot"])
def test_the_file_only_solver_answers_concat_episodes_and_not_transformed_ones(grammar):
    spec = LanguageSpec(grammar=grammar)
    written = language_json(0, spec)
    right = 0
    for ep in items("icy-episodes", "train", 40, spec):
        truths = {name: truth_of(ep, name) for name in ep.scenes()}
        right += checker.solve_concat(json.loads(ep.model_dump_json()), truths, written) == ep.answer
    assert right == 40 if grammar == "concat" else right < 10


@pytest.mark.render
@pytest.mark.e2e
def test_rendered_items_show_their_objects_and_the_file_only_checker_agrees(tmp_path):
    """Real draft renders of both tasks in the test split: each image's ground
    truth names its one visible object, and the checker, reading the files
    alone, finds every message where the language puts it."""
    out = tmp_path / "data"
    r = mewl_here("render", "--task", "icy", "--n", 1, "--split", "test", "--out", out, "--quality", "draft",
                     "--device", "cpu", "--seed", 5, "--workers", 1)
    assert r.returncode == 0, r.stderr
    written = language_json(5, LanguageSpec())
    assert checker.check_release(stored_items(out, "icy-"), written) == []
    (entry,) = [json.loads(line) for line in (out / "test" / "icy-naming.jsonl").read_text().splitlines()]
    assert entry["held_out"]
    for png in sorted(out.glob("test/icy-*/0/*.png")):
        (obj,) = json.loads(png.with_suffix(".json").read_text())["objects"]
        x, y, w, h = obj["bbox"]
        pixels = np.asarray(Image.open(png).convert("RGB"), dtype=float)
        outside = pixels.copy()
        outside[y:y + h, x:x + w] = np.nan
        assert obj["visible_pixels"] > 0  # and the object stands out of the floor around it:
        assert np.abs(pixels[y:y + h, x:x + w] - np.nanmedian(outside, axis=(0, 1))).max() > 40
    broken = {**written, "objects": [{**o, "message": o["message"][::-1]} for o in written["objects"]]}
    assert len(checker.check_release(stored_items(out, "icy-"), broken)) > 8  # the table and the messages disagree


def test_an_icy_episode_file_is_read_as_its_own_model_not_as_mewls(tmp_path):
    from mewl_gen.tasks.catalog import read_item
    from mewl_gen.tasks.icy.item import IcyEpisode

    ep = items("icy-episodes", "train", 1)[0]
    (tmp_path / "item.json").write_text(ep.model_dump_json())
    assert read_item(tmp_path) == ep and isinstance(read_item(tmp_path / "item.json"), IcyEpisode)
