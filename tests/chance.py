"""How far from chance a deprived solver may land before a test calls it a
shortcut: a two-sided binomial 99.9 % band, so a fair solver fails once in a
thousand runs at most."""
from __future__ import annotations

import math

import numpy as np

Z_999 = 3.2905  # two-sided 99.9 % normal quantile


def accuracy(guess, eps, seed: int = 7) -> float:
    """Share of episodes a guesser answers, shown each episode without its lexicon."""
    rng = np.random.default_rng(seed)
    return sum(guess(ep.model_copy(update={"lexicon": {}}), rng) == ep.answer for ep in eps) / len(eps)


def assert_at_chance(observed: float, n: int, chance: float, what: str) -> None:
    band = Z_999 * math.sqrt(chance * (1 - chance) / n)
    print(f"{what}: {observed:.3f} over {n} episodes (chance {chance:.3f} +- {band:.3f})")
    assert abs(observed - chance) <= band, f"{what}: {observed:.3f} is not within {band:.3f} of chance {chance:.3f}"
