"""MEWL's release format, read back with a reader written from the format
(docs/mewl-compatibility.md), not from MEWL's code: info.json, the images'
JSON, the paper's captions, `mewl text` and the release preset. Pure: the
images' ground truth comes from synthetic index images, no render."""
import json
import shutil
import subprocess

import numpy as np
import pytest

from mewl_gen.render import ground_truth
from mewl_gen.scenes.image_truth import ImageTruth
from mewl_gen.scenes.universe import HAND_TUPLE, UNIVERSE
from mewl_gen.store.record import write_record
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.mewl.captions import PROMPT, mewl_order, object_caption, pragmatic_caption
from mewl_gen.tasks.mewl.item import TASKS, InfoJson, image_json, info_json
from mewl_gen.tasks.mewl.text import utterance

ARROW = list(HAND_TUPLE)


def scenes(ep):
    return [(p.name, p.scene) for p in ep.context_panels] + [("question", ep.query)]


def released(ep, name, scene):
    """An image's JSON as the pipeline writes it (the index image left empty)."""
    index = np.zeros((scene.camera.height, scene.camera.width), np.int32)
    truth = ground_truth.build(scene, index, image_filename=f"{name}.png", device="cpu", blender_version="test")
    return image_json(ep, name, json.loads(json.dumps(truth)))


def shown(ep):
    return [list(o.properties) for _, s in scenes(ep) for o in s.objects]


def expected_keys(ep):
    """MEWL's generator's keys of info.json `objects`, task by task."""
    if ep.task in ("shape", "color", "material"):
        return {p.name for p in ep.context_panels} | {f"{ep.answer} #{len(ep.context_panels)}"}
    if ep.task in ("object", "bootstrap", "pragmatic"):
        return set(ep.lexicon)
    if ep.task == "composite":
        return {p.utterance for p in ep.context_panels} | {ep.answer}
    if ep.task == "relation":
        return {f"{c} {s}" for s, c, _, _ in shown(ep)}
    return {f"#{k}" for k in range(len(shown(ep)))}  # number


@pytest.mark.parametrize("task", TASKS)
def test_info_json_is_keyed_as_mewl_keys_it(task):
    for index in range(3):
        ep = sample_item(task, 0, "train", index)
        info = json.loads(json.dumps(info_json(ep)))
        InfoJson.model_validate(info)
        assert isinstance(info["objects"], dict) and set(info["objects"]) == expected_keys(ep)
        assert all(tuple(o) in UNIVERSE for o in info["objects"].values())
        if task in ("object", "bootstrap"):
            assert info["objects"] == info["word-concept"] == {w: list(c) for w, c in ep.lexicon.items()}
        if task == "number":  # '#k' in the order shown
            assert list(info["objects"].values()) == shown(ep)
        for panel, p in zip(info["context_panels"], ep.context_panels):
            assert panel["name"] == p.name and utterance(panel["name"]) == p.utterance
        q = info["question"]
        assert q["choices"].index(q["answer"]) == ep.answer_index
        for panel in info["context_panels"] + [q]:
            if task == "pragmatic":  # the hand as a fourth object, arrow_idx on the pointed one
                assert len(panel["objects"]) == 4 and panel["objects"][3] == ARROW and panel["arrow_idx"] < 3
            else:
                assert "arrow_idx" not in panel and ARROW not in panel["objects"]
        if task == "pragmatic":  # keyed by the word of the pointed object; the query's comes last and wins
            for panel in info["context_panels"]:
                if utterance(panel["name"]) != q["answer"]:
                    assert info["objects"][utterance(panel["name"])] == panel["objects"][panel["arrow_idx"]]
            assert info["objects"][q["answer"]] == q["objects"][q["arrow_idx"]]


@pytest.mark.parametrize("task", TASKS)
def test_image_json_names_objects_and_relates_them_by_name(task):
    ep = sample_item(task, 0, "train", 4)
    keys = set(info_json(ep)["objects"])
    for name, scene in scenes(ep):
        gt = released(ep, name, scene)
        ImageTruth.model_validate(gt)
        names = [o["name"] for o in gt["objects"]]
        assert all(n is None or n in keys for n in names)
        assert all(isinstance(c, int) for o in gt["objects"] for c in o["pixel_coords"][:2])
        assert all(0 <= o["rotation"] < 360 for o in gt["objects"])
        if task == "number":
            assert names == [None] * len(scene.objects)
        if task in ("relation", "object", "composite") or task in ("shape", "color", "material"):
            assert None not in names
        if task == "bootstrap":
            assert names.count(None) == 1  # the distractor has no word
        if task == "pragmatic":
            assert gt["objects"][3]["shape"] == "arrow" and names[3] is None
            assert [n is not None for n in names] == [i == scene.hand.target for i in range(4)]
            assert names[scene.hand.target] == (ep.answer if name == "question" else utterance(name))
        named = [n for n in names if n is not None]
        assert list(gt["relationships"]) == ["behind", "front", "left", "right"]
        for rel, table in gt["relationships"].items():
            assert sorted(table) == sorted(named)
            assert all(set(others) <= set(named) - {n} for n, others in table.items())
        assert gt["caption"] and "None" not in gt["caption"]


def test_captions_are_the_papers_sentences():
    a = [("cylinder", "cyan", "metal", "small"), ("sphere", "yellow", "rubber", "small"), ("cube", "cyan", "glass", "large")]
    assert object_caption(a) == ("A small cyan metal cylinder and a small yellow rubber sphere and a large cyan "
                                 "glass cube.")  # the paper's figure A1a
    c = [("cube", "brown", "metal", "large"), ("cube", "brown", "metal", "small"), ("cube", "cyan", "metal", "large"),
         HAND_TUPLE]
    assert pragmatic_caption(c, 2) == ("A large brown metal cube and a small brown metal cube and a large cyan metal "
                                       "cube and a small yellow rubber arrow. And a finger is pointing to the large "
                                       "cyan metal cube.")  # figure A1c


def spatial_scenes(n):
    for task in ("relation", "bootstrap"):
        for index in range(n):
            ep = sample_item(task, 0, "train", index)
            yield from ((ep, name, scene) for name, scene in scenes(ep))


@pytest.mark.slow
def test_spatial_captions_state_the_true_order():
    """Front to back and left to right, read off the caption, agree with the
    positions along the camera's ground directions."""
    from mewl_gen.scenes.camera import directions

    for ep, name, scene in spatial_scenes(25):
        text = released(ep, name, scene)["caption"]
        assert "None" not in text
        first, second = text.split(". ")
        middle, rest = first[len("The "):].split(" is in front of the ")
        back, front = rest.split(" and behind the ")
        centre, rest = second[len("The "):].split(" is on the left of the ")
        right, left = rest.rstrip(".").split(" and on the right of the ")
        where = {gt_o["description"]: np.asarray(gt_o["3d_coords"][:2]) for gt_o in released(ep, name, scene)["objects"]}
        dirs = directions(scene.camera)
        along = {k: {d: float(p @ np.asarray(v[:2])) for d, v in dirs.items()} for k, p in where.items()}
        assert along[front]["behind"] < along[middle]["behind"] < along[back]["behind"]
        assert along[left]["right"] < along[centre]["right"] < along[right]["right"]


@pytest.mark.slow
def test_mewl_captioner_orders_every_spatial_scene():
    """MEWL's captioner orders objects with CLEVR's 0.2 rule and writes "None"
    where that leaves the order undecided; it must decide every scene."""
    undecided = [(ep.task, ep.index, name) for ep, name, scene in spatial_scenes(25)
                 for rel in ("behind", "right") if mewl_order(scene, rel) is None]
    assert not undecided, f"{len(undecided)} undecided, e.g. {undecided[:3]}"


def write_release(out, ep):
    """An episode's released files as a render writes them, in a dataset folder with its manifest."""
    manifest = out / "mewl-dataset.json"
    if not manifest.exists():
        out.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps({"generator": ep.generator, "seed": ep.root_seed, "kind": "rendered"}))
    folder = out / ep.split / ep.task / str(ep.index)
    folder.mkdir(parents=True)
    (folder / "info.json").write_text(json.dumps(info_json(ep)))
    for name, scene in scenes(ep):
        (folder / f"{name}.json").write_text(json.dumps(released(ep, name, scene)))
    write_record(folder)  # last, as every writer does


@pytest.mark.slow
def test_mewl_text_writes_the_baselines_inputs(tmp_path, mewl):
    eps = [sample_item(t, 0, s, i) for t in ("pragmatic", "relation", "color") for s in ("train", "val") for i in (0, 1)]
    for ep in eps:
        write_release(tmp_path, ep)
    (tmp_path / "train" / "color" / ".1.tmp").mkdir()  # a staging folder is not an episode
    assert mewl("text", tmp_path)[0] == 0
    for ep in eps:
        lines = (tmp_path / ep.split / f"{ep.task}.text.jsonl").read_text().splitlines()
        row = json.loads(lines[ep.index])
        assert len(lines) == 2 and row["index"] == ep.index and row["task"] == ep.task
        assert row["choices"] == list(ep.choices) and row["label"] == ep.answer_index
        assert [c["utterance"] for c in row["contexts"]] == [p.utterance for p in ep.context_panels]
        assert row["prompt"] == PROMPT and row["text"].startswith(PROMPT + "\n\nContext: ")
        assert row["text"].endswith(f"Context: {row['query_caption']}\nName: ")
        assert row["text"] == f"{PROMPT}\n\n{row['start_phrase']}"
        assert "None" not in row["text"]
        if ep.task == "pragmatic":
            assert all("And a finger is pointing to the" in c["caption"] for c in row["contexts"])


def test_mewl_text_leaves_out_damaged_episodes_and_says_so(tmp_path, mewl):
    eps = [sample_item("color", 0, "train", i) for i in range(4)]
    for ep in eps:
        write_release(tmp_path, ep)
    folder = tmp_path / "train" / "color"
    caption = folder / "2" / "question.json"
    caption.write_bytes(caption.read_bytes().replace(b"a", b"e", 1))  # same size, other bytes
    (folder / "3" / "info.json").unlink()
    shutil.copytree(folder / "0", folder / "000")  # not a name mewl writes: named, and not episode 0 again
    code, _, err = mewl("text", tmp_path)
    assert code == 1
    assert err.count("\n") == 1 and "left out 3 damaged or incomplete episode(s): train/color/2: question.json: sha256" in err
    rows = [json.loads(line) for line in (tmp_path / "train" / "color.text.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1]


def test_mewl_text_on_a_read_only_dataset_is_one_line(tmp_path, mewl):
    fs = tmp_path / "fs"
    fs.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(fs)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()})")
    try:
        write_release(fs, sample_item("color", 0, "train", 0))
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        code, _, err = mewl("text", fs)
        assert code == 2
        assert err.count("\n") == 1 and "cannot write to" in err and "Read-only file system" in err, err
    finally:
        subprocess.run(["umount", str(fs)], capture_output=True)


def test_mewl_text_refuses_a_folder_without_episodes(tmp_path, mewl):
    code, _, err = mewl("text", tmp_path)
    assert code == 2 and "is not a dataset of this tool" in err
    assert mewl("sample", "--task", "malevic-pos", "--n", 2, "--out", tmp_path, "--workers", 1)[0] == 0
    code, _, err = mewl("text", tmp_path)
    assert code == 2  # a dataset, and no item of a benchmark with text inputs
    assert err.count("\n") == 1 and "no <split>/<task> folders of items with text inputs (mewl)" in err


@pytest.mark.slow
def test_release_preset_plans_the_papers_sizes(tmp_path, mewl):
    code, out, _ = mewl("render", "--preset", "mewl-release", "--out", tmp_path / "data", "--dry-run")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    sizes = {"train": 3000, "val": 600, "test": 600}
    per_task = {(split, task): int(n) for split, task, n, _, _ in rows if task != "(all)"}
    assert per_task == {(s, t): n for s, n in sizes.items() for t in TASKS}
    totals = {split: int(n) for split, task, n, _, _ in rows if task == "(all)"}
    assert totals == {"train": 27000, "val": 5400, "test": 5400}
    assert not (tmp_path / "data").exists()  # a dry run writes nothing


def test_release_preset_sets_task_n_and_split_itself(tmp_path, mewl):
    code, _, err = mewl("render", "--preset", "mewl-release", "--n", 3, "--out", tmp_path)
    assert code == 2 and "sets --n itself" in err
    code, _, err = mewl("render", "--out", tmp_path)
    assert code == 2 and "--task and --n required" in err


@pytest.mark.parametrize("kind", ["episode", "info", "image"])
def test_schema_of_every_release_file(kind, mewl):
    code, out, _ = mewl("schema", "--kind", kind)
    assert code == 0
    schema = json.loads(out)
    assert "properties" in schema and schema["additionalProperties"] is False


@pytest.mark.slow
def test_slurm_preset_is_one_command_with_one_array_per_split(tmp_path, mewl):
    script = tmp_path / "render.sbatch"
    code, _, err = mewl("slurm", "--preset", "mewl-release", "--array", 4, "--out", tmp_path / "data", "--script", script)
    assert code == 0, err
    assert not (tmp_path / "data").exists()  # without --submit nothing goes into OUT
    scripts = sorted(tmp_path.glob("render-*.sbatch"))
    runs = {s.stem.split("-")[1]: next(line for line in s.read_text().splitlines() if " render " in line) for s in scripts}
    assert sorted(runs) == ["test", "train", "val"]
    for split, n in {"train": 3000, "val": 600, "test": 600}.items():
        assert f"--n {n} " in runs[split] and f"--split {split} " in runs[split] and f"--task {','.join(TASKS)} " in runs[split]
