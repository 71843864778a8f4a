"""The legibility audit on small painted datasets (no Blender): it reads masks and
pixels, splits by episode, and fails when two colours look the same."""
import json

import numpy as np
import pytest
from PIL import Image

from mewl_gen.cli.audit import images
from mewl_gen.render.ground_truth import rle
from mewl_gen.scenes.universe import COLOR_RGB, COLORS, MATERIALS
from mewl_gen.store.record import write_record
from mewl_gen.tasks.audit import legibility

CELL = 16  # 256 pixels per painted object, above the audit's minimum
PAIRS = [(m, c) for m in MATERIALS for c in COLORS]  # 24: a 6 x 4 grid per image
EPISODES = 10


def _paint(rng, material: str, rgb) -> np.ndarray:
    """A cell that looks like its material: rubber flat, metal with highlights, glass over the floor."""
    px = np.clip(np.array(rgb, float) + rng.normal(0, 4, (CELL, CELL, 3)), 0, 255)
    if material == "metal":
        px[rng.random((CELL, CELL)) < 0.15] = 250
    if material == "glass":
        px = 0.5 * px + 0.5 * 128
        px[rng.random((CELL, CELL)) < 0.2] = 30
    return px


def _write(out, looks=COLOR_RGB, hand=True, small=True):
    """A dataset of painted images, each item with its record of checksums, as the reader expects."""
    rng = np.random.default_rng(0)
    out.mkdir(parents=True, exist_ok=True)
    (out / "mewl-dataset.json").write_text(json.dumps({"generator": "painted by the test", "seed": 0, "kind": "rendered"}))
    for episode in range(EPISODES):
        folder = out / "train" / "color" / str(episode)
        folder.mkdir(parents=True)
        img = np.full((4 * CELL, 6 * CELL, 3), 128.0)
        objects = []
        for k, (material, color) in enumerate(PAIRS):
            y, x = (k // 6) * CELL, (k % 6) * CELL
            img[y:y + CELL, x:x + CELL] = _paint(rng, material, looks[color])
            mask = np.zeros(img.shape[:2], bool)
            mask[y:y + CELL, x:x + CELL] = True
            objects.append({"shape": "cube", "color": color, "material": material,
                            "visible_pixels": int(mask.sum()), "mask": rle(mask)})
        if hand:  # listed among the objects, as MEWL lists it: never a sample
            objects.append({**objects[0], "shape": "hand", "color": "yellow"})
        if small:  # under the minimum: left out
            objects.append({**objects[1], "visible_pixels": 50, "color": "purple"})
        Image.fromarray(img.astype(np.uint8)).save(folder / "panel.png")
        (folder / "panel.json").write_text(json.dumps({"objects": objects}))
        (folder / "info.json").write_text(json.dumps({"objects": [["cube", "red", "rubber", "large"]]}))
        (folder / "episode.json").write_text(json.dumps({"split": "train", "task": "color", "index": episode}))
        write_record(folder)
    return out


def test_objects_are_read_from_masks_and_split_by_episode(tmp_path):
    objs = legibility.collect(images(_write(tmp_path)))
    assert len(objs.color) == EPISODES * len(PAIRS)  # no hand, no tiny object, no info.json
    per_episode = objs.train.reshape(EPISODES, len(PAIRS))
    assert (per_episode == per_episode[:, :1]).all()  # a whole episode is on one side
    assert per_episode[:, 0].tolist() == [True, False] * (EPISODES // 2)
    # the features see the painted colour: red cells are redder than green ones
    red, green = objs.features[objs.color == "red"][:, 0], objs.features[objs.color == "green"][:, 0]
    assert red.mean() > green.mean() + 0.3


@pytest.mark.slow
def test_distinct_looks_meet_every_target(tmp_path, mewl):
    code, printed, err = mewl("audit", "legibility", _write(tmp_path))
    assert code == 0  # what users type
    text = printed
    assert "every target met" in text
    assert "| true \\ predicted | rubber | metal | glass |" in text


@pytest.mark.slow
def test_two_colours_that_look_alike_fail_the_audit(tmp_path, capsys):
    looks = {**COLOR_RGB, "brown": COLOR_RGB["red"]}  # brown painted as red
    assert legibility.main(images(_write(tmp_path, looks=looks))) == 1
    text = capsys.readouterr().out
    assert "color of rubber" in text and "BELOW TARGET" in text
    results = legibility.audit(legibility.collect(images(tmp_path)))
    rubber = next(r for r in results if r.name == "color of rubber")
    red, brown = rubber.labels.index("red"), rubber.labels.index("brown")
    assert rubber.confusion[brown, red] + rubber.confusion[red, brown] > 0


def test_empty_or_missing_output_is_a_user_error(tmp_path, mewl):
    code, printed, err = mewl("audit", "legibility", tmp_path / "missing")
    assert code == 2
    assert "is not a folder" in err
    _write(tmp_path)
    for png in tmp_path.glob("train/color/*/panel.png"):
        png.unlink()
        write_record(png.parent)  # an item without images: nothing to read
    code, printed, err = mewl("audit", "legibility", tmp_path)
    assert code == 2
    assert err.count("\n") == 1 and "no rendered objects" in err
    with pytest.raises(legibility.NoObjects):
        legibility.collect([])
