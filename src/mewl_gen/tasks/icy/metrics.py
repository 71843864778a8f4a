"""The paper's compositionality metrics (section 4.2) as pure numpy functions.

Each takes `objects`, an (N, n_att) int array of attribute value indices,
and `messages`, an (N, c_len) int array of symbols, one row per object.
All lie in [0, 1] (topsim in [-1, 1]); high means compositional to people.
TRE7 needs a learned composition; we give the paper's HCE (appendix D) instead.
"""
from __future__ import annotations

import numpy as np


def _row_codes(columns: np.ndarray) -> np.ndarray | None:
    """Each row of integer `columns` (N, k) as one integer, in the rows' lexicographic order (the first column
    the most significant digit, each column's values shifted to start at 0), or None where they do not fit in
    one. np.unique of the codes counts the rows in the order np.unique(columns, axis=0) does, without its sort of
    rows as records, which took most of the metrics' time."""
    if not (np.issubdtype(columns.dtype, np.integer) or columns.dtype == bool) or len(columns) == 0:
        return None
    columns = columns.astype(np.int64)
    low = columns.min(axis=0)
    spans = columns.max(axis=0) - low + 1
    if np.prod(spans.astype(float)) >= 2.0 ** 62:
        return None
    codes = np.zeros(len(columns), dtype=np.int64)
    for column, first, span in zip(columns.T, low, spans):
        codes = codes * span + (column - first)
    return codes


def entropy(columns: np.ndarray) -> float:
    """Entropy in bits of the rows of `columns` (N, k) taken as joint symbols; 0 for k = 0."""
    if columns.ndim == 1:
        columns = columns[:, None]
    if columns.shape[1] == 0:
        return 0.0
    codes = _row_codes(columns)
    # The counts in the same order either way, so that their sum below adds the same numbers in the same order.
    _, counts = np.unique(columns, axis=0, return_counts=True) if codes is None else np.unique(codes, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def mutual_information(x: np.ndarray, y: np.ndarray) -> float:
    return entropy(x) + entropy(y) - entropy(np.column_stack([x, y]))


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks with ties sharing their mean rank (as Spearman's rho wants)."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x))
    _, inverse = np.unique(x, return_inverse=True)
    return (np.bincount(inverse, ranks) / np.bincount(inverse))[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = _ranks(a), _ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def topsim(objects: np.ndarray, messages: np.ndarray) -> float:
    """Brighton & Kirby: Spearman correlation of pairwise Hamming distances of
    objects (attributes that differ) and of messages (positions that differ)."""
    i, j = np.triu_indices(len(objects), k=1)
    return spearman((objects[i] != objects[j]).sum(1), (messages[i] != messages[j]).sum(1))


def _disentanglement(features: np.ndarray, objects: np.ndarray) -> float:
    """Mean over informative features of (I1 - I2) / H(feature): the gap between
    the two attributes a feature tells most about (Chaabouni et al., 2020)."""
    gaps = []
    for f in features.T:
        h = entropy(f)
        if h > 0:
            top = sorted((mutual_information(f, o) for o in objects.T), reverse=True)
            gaps.append((top[0] - top[1]) / h)
    return float(np.mean(gaps)) if gaps else 0.0


def posdis(objects: np.ndarray, messages: np.ndarray) -> float:
    """Positional disentanglement: each message position as a feature."""
    return _disentanglement(messages, objects)


def bosdis(objects: np.ndarray, messages: np.ndarray, vocab_size: int) -> float:
    """Bag-of-symbols disentanglement: how often each symbol occurs, wherever."""
    counts = np.stack([(messages == v).sum(1) for v in range(vocab_size)], axis=1)
    return _disentanglement(counts, objects)


def hce(objects: np.ndarray, messages: np.ndarray) -> float:
    """HCE = 1 - mean_i H(o_i | m[p_i]) / H(o_i), where p_i are the positions whose
    symbol shares most information with attribute i (appendix D, equation 1)."""
    info = np.array([[mutual_information(m, o) for o in objects.T] for m in messages.T])
    owner = info.argmax(axis=1)
    residual = []
    for i, o in enumerate(objects.T):
        part = messages[:, owner == i]
        conditional = entropy(np.column_stack([o, part])) - entropy(part)
        residual.append(conditional / entropy(o))
    return float(1 - np.mean(residual))


def all_metrics(objects: np.ndarray, messages: np.ndarray, vocab_size: int) -> dict[str, float]:
    return {"topsim": topsim(objects, messages), "posdis": posdis(objects, messages),
            "bosdis": bosdis(objects, messages, vocab_size), "hce": hce(objects, messages)}
