"""The marker scan: does an object placed to make a construction work (a role: MALeViC's twin, a Bongard
near miss's edited object) stand out from the objects a solver could take for it (its pool)?

Each object is described by generic statistics of its attributes and its scene, the same for every
benchmark (`object_statistics`): for each attribute its value, how many other objects share it, whether
it is unique in the scene and among the objects of its group (its shape), how many distinct values the
scene shows; whether its whole description is unique; the object count; and, where the construction has
an anchor (MALeViC's target), whether it shares each attribute with it. A panel is described the same
way as a whole (`panel_statistics`). For each statistic a two-sample test asks whether the role's
objects and the pool's come from one law (`scan`): chi-square on the table of values, sparse values
merged until every expected count is 5 or more, Fisher's exact test where two values remain with an
expected count under 5 (Pearson's statistic, uncorrected, keeps its level at these bounds). The
scan flags a statistic whose p lies under the verdict's bound (1 in 1,000, as the probes' 99.9 %
intervals) divided by the number of statistics tested (Bonferroni), so an honest construction is
flagged once in a thousand audits whatever the number of statistics.

The samples must be independent across items: a benchmark gives one role object and one pool object
per item (the pool's chosen by a coin of the item's index, `coin`), never every object of a scene,
whose objects share the scene's statistics."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

import numpy as np

VERDICT_P = 1e-3  # the verdict's bound: two-sided, as the probes' 99.9 % intervals (Z_VERDICT)
MIN_EXPECTED = 5  # chi-square's rule of thumb: every expected count of the table at least this
COIN_TAG = 0x3A4B  # sets the scan's coins apart from every seed of the generators

Scene = Sequence[Mapping[str, Hashable]]


def coin(index: int, n: int, salt: int = 0) -> int:
    """One of n, drawn by a coin of the item's index (never of its answer)."""
    return int(np.random.default_rng([COIN_TAG, salt, index]).integers(n))


def object_statistics(scene: Scene, attributes: Sequence[str], group: str = "shape",
                      anchor: int | None = None) -> list[dict[str, Hashable]]:
    """Every object's generic statistics, in the scene's order."""
    n = len(scene)
    counts = {a: Counter(o[a] for o in scene) for a in attributes}
    within = {a: Counter((o[group], o[a]) for o in scene) for a in attributes if a != group}
    described = Counter(tuple(o[a] for a in attributes) for o in scene)
    rows = []
    for i, o in enumerate(scene):
        row: dict[str, Hashable] = {"objects": n, "description unique": described[tuple(o[a] for a in attributes)] == 1}
        for a in attributes:
            shared = counts[a][o[a]] - 1
            row |= {a: o[a], f"{a} shared": shared, f"{a} unique": shared == 0, f"{a} distinct": len(counts[a])}
            if a in within:
                mates = within[a][(o[group], o[a])] - 1
                row |= {f"{a} shared among {group}-mates": mates, f"{a} unique among {group}-mates": mates == 0}
            if anchor is not None and i != anchor:
                row[f"same {a} as the anchor"] = o[a] == scene[anchor][a]
        rows.append(row)
    return rows


def panel_statistics(scene: Scene, attributes: Sequence[str]) -> dict[str, Hashable]:
    """A panel's generic statistics: its object count, and for each attribute how many distinct values it
    shows and its count histogram (how many objects hold each value, largest first), and how many objects'
    descriptions are unique."""
    described = Counter(tuple(o[a] for a in attributes) for o in scene)
    row: dict[str, Hashable] = {"objects": len(scene), "unique descriptions": sum(c == 1 for c in described.values())}
    for a in attributes:
        counts = Counter(o[a] for o in scene)
        row |= {f"{a} distinct": len(counts), f"{a} counts": "+".join(map(str, sorted(counts.values(), reverse=True)))}
    return row


def _merged(table: np.ndarray) -> np.ndarray:
    """The table's columns (values) with the sparsest merged until each expected count is MIN_EXPECTED
    or more, or two columns remain. Which values merge depends on their pooled counts only, the same
    under either labelling of the rows, so the test stays exact in level."""
    columns = sorted(table.T.tolist(), key=sum)
    rows = table.sum(axis=1)
    while len(columns) > 2 and min(rows) * sum(columns[0]) / rows.sum() < MIN_EXPECTED:
        first, second, *rest = columns
        columns = sorted([[x + y for x, y in zip(first, second)], *rest], key=sum)
    return np.array(columns).T


def two_sample_p(role: Sequence[Hashable], pool: Sequence[Hashable]) -> float | None:
    """p of the hypothesis that both samples of one statistic come from one law; None where the
    statistic shows one value only (nothing to test)."""
    from scipy.stats import chi2_contingency, fisher_exact  # scipy loads only for an audit

    values = sorted(set(role) | set(pool), key=repr)
    if len(values) < 2 or not role or not pool:
        return None
    a, b = Counter(role), Counter(pool)
    table = _merged(np.array([[a[v] for v in values], [b[v] for v in values]]))
    rows = table.sum(axis=1)
    if table.shape[1] == 2 and min(rows) * table.sum(axis=0).min() / rows.sum() < MIN_EXPECTED:
        return float(fisher_exact(table).pvalue)
    return float(chi2_contingency(table, correction=False).pvalue)


@dataclass(frozen=True)
class Scan:
    """The scan of one role against its pool: p per statistic tested, and the two samples' sizes."""

    p: dict[str, float]
    n: tuple[int, int]

    @property
    def bound(self) -> float:
        """The verdict's bound, Bonferroni-corrected for the statistics tested."""
        return VERDICT_P / max(len(self.p), 1)

    @property
    def flagged(self) -> list[str]:
        """The statistics on which the role stands out, the strongest first."""
        return sorted((k for k, p in self.p.items() if p < self.bound), key=self.p.get)

    def cell(self) -> str:
        """'the lowest p (its statistic) / the bound, of n role and pool objects'."""
        if not self.p:
            return "-"
        worst = min(self.p, key=self.p.get)
        return f"{self.p[worst]:.2g} ({worst}) / {self.bound:.2g}, n {self.n[0]}+{self.n[1]}"

    def failures(self, role: str) -> list[str]:
        """The verdict's words where the role stands out."""
        return [f"{role} marked by {', '.join(self.flagged[:3])} (p {self.p[self.flagged[0]]:.2g} "
                f"< {self.bound:.2g})"] if self.flagged else []


def scan(role: Sequence[Mapping[str, Hashable]], pool: Sequence[Mapping[str, Hashable]]) -> Scan:
    """Each statistic's two-sample test between the role's rows and the pool's (one of each per item)."""
    keys = sorted({k for r in (*role, *pool) for k in r})
    found = {}
    for k in keys:
        p = two_sample_p([r[k] for r in role if k in r], [r[k] for r in pool if k in r])
        if p is not None:
            found[k] = p
    return Scan(found, (len(role), len(pool)))
