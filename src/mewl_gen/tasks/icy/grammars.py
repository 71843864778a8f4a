"""ICY's grammars (Bennett, section 3.1 and appendix H) as pure functions on messages.

A message is an int array of c_len symbols from a vocabulary of |V|; an
object's CONCAT message is its attributes' sub-messages (words) joined in
TUPLE_ORDER. Every other grammar transforms CONCAT's words or messages.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

GRAMMARS: tuple[str, ...] = ("concat", "perm", "proj", "rot", "shufdet", "shuf", "hol")
# Where the paper says the grammar is a bijection on objects (given words distinct
# across all attribute values): a word keeps its identity wherever it stands.
BIJECTIVE: tuple[str, ...] = ("concat", "perm", "rot", "shufdet", "shuf", "hol")


def concat(words: Sequence[np.ndarray], order: Sequence[int] | None = None) -> np.ndarray:
    """The words joined, in `order` (indices into `words`) or as given (CONCAT).
    SHUFDET and SHUF are CONCAT with an order other than the attributes'."""
    order = range(len(words)) if order is None else order
    return np.concatenate([words[k] for k in order])


def permute(message: np.ndarray, permutation: Sequence[int]) -> np.ndarray:
    """PERM: position k of the result holds symbol permutation[k] of the message."""
    return message[np.asarray(permutation)]


def project(message: np.ndarray, projection: np.ndarray, vocab_size: int) -> np.ndarray:
    """PROJ: argmax over V of vec^-1(P vec(onehot(m))); vec stacks positions (row-major)."""
    onehot = np.eye(vocab_size)[message]
    projected = projection @ onehot.reshape(-1)
    return projected.reshape(len(message), vocab_size).argmax(axis=1)


def rotate(message: np.ndarray, vocab_size: int) -> np.ndarray:
    """ROT: m_rot(j) = (m_rot(j-1) + m(j)) mod |V|, with m_rot(0) = m(0)."""
    return np.cumsum(message) % vocab_size


def non_singular(projection: np.ndarray) -> bool:
    """Far from singular: a condition number any float64 solve handles."""
    return bool(np.linalg.cond(projection) < 1e8)
