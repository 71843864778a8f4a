"""The learned probe of icy-episodes with the context withheld (tasks.icy.views): a choice's view reads how
its message stands among the others, never its symbols (the language is the dataset's), and the probe,
fitted on another seed's items (another language), stays at 1/5 and finds a planted marker."""
from __future__ import annotations

import pytest

from mewl_gen.tasks.icy.audit import language_of
from mewl_gen.tasks.icy.views import item_choices, probe
from tests.conftest import FEW, episodes, sweep

TASK = "icy-episodes"


def records(seed: int, n: int = sweep(200, 400)) -> list[dict]:
    return [it.model_dump(mode="json") for it in episodes(TASK, n, seed=seed)]


def kept(item: dict):
    return item_choices(item, language_of(item)["word_length"] or 0)


def test_a_choice_view_does_not_read_the_symbols():
    """Renaming the alphabet (a fixed permutation of its letters) leaves every view as it was."""
    for item in records(0, FEW):
        letters = sorted({x for c in item["choices"] for x in c})
        renamed = dict(zip(letters, letters[1:] + letters[:1]))
        other = {**item, "choices": ["".join(renamed[x] for x in c) for c in item["choices"]],
                 "answer": "".join(renamed[x] for x in item["answer"])}
        assert kept(other) == kept(item)


def test_no_probe_without_another_language():
    assert probe([kept(it) for it in records(0, FEW)], []).n == 0


# A leak this probe found and no earlier probe had: the query's attributes with how the choices' messages
# agree letter by letter tell the answer above 1/5 on another language. The query shows the answer's shape,
# the choices' first words group them by shape, and how large a shape's group runs depends on the shape:
# every language holds out cylinder with two colors and cube and sphere with three (draw_holdout), so in
# train more colors can take a cylinder and in test fewer, and the layout rule (each choice's panel of its
# third shape, two panels per shape) shifts the group sizes further. Drawing the five choices as a set and
# the answer uniformly among them leaves this as it is; the mark stays until the choices' shapes are drawn
# so that no shape's group runs larger than another's. Strict, so that the test fails once they are.
@pytest.mark.xfail(strict=True, reason="icy-episodes' choices with the query read above 1/5 without the context")
@pytest.mark.slow
def test_the_probe_is_at_its_floor_on_sampled_items():
    found = probe([kept(it) for it in records(0)], [kept(it) for it in records(1)])
    assert found.floor == 1 / 5 and not found.leaks, found.cell()


@pytest.mark.slow
def test_the_probe_finds_a_planted_marker():
    """The answer's message doubled in length: a choice longer than the others is the answer."""
    def planted(item: dict) -> dict:
        k = item["choices"].index(item["answer"])
        return {**item, "choices": [c * 2 if j == k else c for j, c in enumerate(item["choices"])],
                "answer": item["answer"] * 2}

    found = probe([kept(planted(it)) for it in records(0)], [kept(planted(it)) for it in records(1)])
    assert found.leaks, found.cell()
