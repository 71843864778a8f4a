"""docs/passes.md, shapeworld.md and bongard.md: their render lines run at one preview item a task
(tests/cli/docs_blocks.py says how a block is rewritten and run); and every rule of every block's rewrite
matches its page as it is."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from mewl_gen.tasks.catalog import sample_item
from tests.cli.docs_blocks import REWRITES, block, complete, run, scaled


@pytest.mark.parametrize("name", REWRITES)
def test_every_rule_of_a_blocks_rewrite_matches_the_page_as_it_is(name):
    page, language, marker, _ = REWRITES[name]
    assert scaled(name) != block(page, language, marker)


# -- passes.md: each line is a way to ask for passes, so each runs in a folder of its own -------------------

@pytest.mark.render
def test_the_passes_pages_commands_write_the_passes_they_ask_for(tmp_path):
    lines = scaled("passes").splitlines()
    assert [line.split()[:2] for line in lines] == [["make", "-C"], ["mewl", "render"], ["mewl", "slurm"],
                                                     ["mewl", "render-spec"]]
    here = [tmp_path / str(i) for i in range(len(lines))]
    here[3].mkdir()
    (here[3] / "scene.json").write_text(sample_item("pragmatic", 0, "train", 0).query.model_dump_json())
    done = [run(line, folder) for line, folder in zip(lines, here)]

    question = here[0] / "data" / "train" / "pragmatic" / "0" / "question"
    assert complete(here[0] / "data", "pragmatic", 1)
    for suffix in (".depth.npy", ".normal.png", ".albedo.png", ".instance.png"):
        assert Path(f"{question}{suffix}").is_file(), suffix
    question = here[1] / "data" / "train" / "pragmatic" / "0" / "question"
    asked = [Path(f"{question}{suffix}").is_file() for suffix in (".depth.npy", ".normal.png", ".albedo.png")]
    assert asked == [True, True, False]
    assert "--passes depth,normal,albedo,instance --shard" in done[2].stdout  # every array task renders them
    assert not (here[2] / "data").exists()  # without --submit or --script: the script on stdout, nothing written
    written = sorted(p.name for p in (here[3] / "dir").iterdir())
    assert written == ["scene.depth.npy", "scene.instance.png", "scene.json", "scene.png"]


# -- shapeworld.md: a benchmark at preview quality, then more of one task in the same folder ---------------------
@pytest.mark.render
def test_the_shapeworld_pages_make_render_lines_render_it_and_then_add_to_one_task(tmp_path):
    done = run(scaled("shapeworld"), tmp_path)
    tasks = ["shapeworld-existential", "shapeworld-relational", "shapeworld-quantification", "shapeworld-logical"]
    assert all(complete(tmp_path / "data", task, 1) for task in tasks)
    (finished,) = re.findall(r"^render finished: .*", done.stderr, re.M)
    assert "done 4, skipped 0" in finished
    assert "render: nothing to do, 1 item(s) already complete" in done.stderr  # the second line, at N=1



@pytest.mark.render
@pytest.mark.slow
def test_the_bongard_pages_make_render_lines_render_every_family_and_then_add_to_one(tmp_path):
    """One problem of each family at preview quality (14 images a problem)."""
    done = run(scaled("bongard"), tmp_path)
    assert all(complete(tmp_path / "data", task, 1) for task in ("bongard-basic", "bongard-abstract", "bongard-freeform"))
    (finished,) = re.findall(r"^render finished: .*", done.stderr, re.M)
    assert "done 3, skipped 0" in finished
    assert "render: nothing to do, 1 item(s) already complete" in done.stderr  # the second line, at N=1
