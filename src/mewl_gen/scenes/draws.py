"""Bounded drawing: every sampler helper gives up with OutOfDraws, never loops forever.

OutOfDraws is the one error for "this draw ran out of attempts": placement,
word coinage and every sampler's redraws raise it, and `tasks.sample_item`
answers it by redrawing the whole item from a derived seed, a bounded number
of times.
"""
from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")

MAX_REDRAWS = 100  # draws of one value before giving up


class OutOfDraws(RuntimeError):
    """A bounded draw found nothing acceptable; the item is redrawn from a derived seed."""


def redraw(draw: Callable[[], T], ok: Callable[[T], bool], what: str, limit: int = MAX_REDRAWS) -> T:
    """The first draw that `ok` accepts, within `limit` draws."""
    for _ in range(limit):
        value = draw()
        if ok(value):
            return value
    raise OutOfDraws(f"no acceptable {what} in {limit} draws")
