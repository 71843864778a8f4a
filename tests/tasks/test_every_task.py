"""Every task over EPISODES_PER_TASK seeds: valid, solvable by an independent solver,
balanced, no better than chance for a text-only guesser, reproducible."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from mewl_gen.store import reader
from mewl_gen.tasks import catalog
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.mewl.item import TASKS, Episode
from mewl_gen.tasks.mewl.solver import SOLVERS
from tests.conftest import FEW, episodes

ALL = list(TASKS)


def chi_square_critical(df: int, z: float = 3.719) -> float:
    """Upper 0.01% point of chi-square (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def assert_uniform(observed: list, support: tuple, what: str) -> None:
    counts = np.array([observed.count(v) for v in support], dtype=float)
    assert counts.sum() == len(observed), f"{what}: values outside {support}"
    expected = counts.sum() / len(support)
    stat = float(((counts - expected) ** 2 / expected).sum())
    assert stat < chi_square_critical(len(support) - 1), f"{what} not uniform: {dict(zip(support, counts))}"


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_every_episode_is_valid_after_a_json_round_trip(task):
    for ep in episodes(task):
        again = Episode.model_validate_json(ep.model_dump_json())
        assert again == ep
        catalog.task(task).validate(again)


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_an_independent_solver_answers_every_episode(task):
    solve = SOLVERS[task].solve
    for ep in episodes(task):
        blind = ep.model_copy(update={"lexicon": {}})
        assert solve(blind) == ep.answer, f"episode {ep.index}"


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_answer_position_is_uniform(task):
    assert_uniform([ep.answer_index for ep in episodes(task)], tuple(range(5)), f"{task} answer position")


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_concepts_are_uniform(task):
    observations: dict[str, tuple[list, tuple]] = {}
    for ep in episodes(task):
        for name, (values, support) in SOLVERS[task].balance(ep).items():
            observations.setdefault(name, ([], support))[0].extend(values)
    assert observations, "balance() reports nothing"
    for name, (values, support) in observations.items():
        assert_uniform(values, support, f"{task} {name}")


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_text_only_guesser_stays_at_chance(task):
    solvers = SOLVERS[task]
    rng = np.random.default_rng(7)
    eps = episodes(task)
    hits = sum(solvers.text_only(ep.model_copy(update={"lexicon": {}}), rng) == ep.answer for ep in eps)
    chance = solvers.chance
    bound = chance + 4 * math.sqrt(chance * (1 - chance) / len(eps))
    print(f"{task}: text-only accuracy {hits / len(eps):.3f} (analytic chance {chance:.3f})")
    assert hits / len(eps) <= bound


@pytest.mark.slow
@pytest.mark.parametrize("task", ALL)
def test_same_seed_same_bytes_and_splits_never_overlap(task):
    for i in range(5):
        a = sample_item(task, 11, "train", i).model_dump_json()
        assert a == sample_item(task, 11, "train", i).model_dump_json()
    # The test split is sampled for this test alone: its first chunk (FEW episodes, about 300 scene seeds)
    # tells the splits apart at half the CPU of 100 episodes.
    train = {p.scene.seed for ep in episodes(task, 100) for p in ep.context_panels}
    test = {p.scene.seed for ep in episodes(task, FEW, "test") for p in ep.context_panels}
    assert not train & test
    assert {ep.answer for ep in episodes(task, FEW)} != {ep.answer for ep in episodes(task, FEW, "test")}


@pytest.mark.slow
def test_every_task_draws_items_its_validator_accepts_and_its_file_only_solver_answers(tmp_path, mewl):
    """Every registered task of every benchmark: `mewl sample` draws its items (each validated as it is
    drawn), each of the task's model and image count, and the task's solver, reading only the released
    files, gives every item's solution."""
    assert tuple(t.name for t in catalog.benchmarks()["mewl"].tasks) == TASKS
    code, _, err = mewl("sample", "--task", "all", "--n", 2, "--seed", 3, "--out", tmp_path, "--workers", 2)
    assert code == 0, err
    found = reader.read(tmp_path)
    assert not found.damaged and {task for _, task in found.items} == set(catalog.tasks())
    for (_, name), items in found.items.items():
        task = catalog.task(name)
        for stored in items:
            item = stored.item()
            assert isinstance(item, task.model) and len(item.scenes()) == task.images
            assert task.solver.solve(stored) == item.solution(), stored.key


@pytest.mark.slow
def test_specs_and_tasks_import_without_bpy():
    code = ("import sys, mewl_gen.scenes, mewl_gen.tasks.catalog, mewl_gen.store.reader, mewl_gen.cluster.planning; "
            "assert 'bpy' not in sys.modules, 'bpy loaded'")
    subprocess.run([sys.executable, "-c", code], check=True)


