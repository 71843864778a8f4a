"""Hand-made features of each choice, for the learned deprived baselines.

Each function reads only a deprived view (deprived.view): the query scene,
the choices and, where the deprivation allows, the context or the lexicon.
They are meant to find shortcuts, so they are generous: choice structure
(how often each token recurs, position, spelling), the query's geometry
(rank orders along the camera axes, image positions, distances), and for
the statement tasks the votes of an exact enumeration under "exactly one
choice is true". Every function returns one row per choice.
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from mewl_gen.scenes.camera import project
from mewl_gen.scenes.relations import offset_table
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import ATTRIBUTES, DIRECTIONS, OPPOSITE, TUPLE_ORDER, UNIVERSE, attribute_of

from ..item import TASKS, Episode
from .deprived import IDENTITY, NAMES_ONLY, NO_HAND, NO_LANGUAGE, QUERY_ONLY

MISSING = -1.0


def mean(counts: list[int]) -> float:
    """The mean of a few small counts, bit for bit numpy.mean's (both sum exactly and divide once,
    correctly rounded) at a tenth of its cost: the features call it once per choice."""
    return sum(counts) / len(counts)


def text(ep: Episode) -> np.ndarray:
    """Position, length, alphabetical rank and how often a choice's tokens
    recur among the choices (by position in the choice and overall)."""
    tokens = [c.split() for c in ep.choices]
    anywhere = Counter(t for ts in tokens for t in set(ts))
    at = [Counter(ts[k] for ts in tokens if len(ts) > k) for k in range(max(map(len, tokens)))]
    order = sorted(ep.choices)
    rows = []
    for k, (c, ts) in enumerate(zip(ep.choices, tokens)):
        counts = [anywhere[t] for t in ts]
        same_place = [at[i][t] for i, t in enumerate(ts)]
        rows.append([k, len(ts), len(c), order.index(c), min(counts), max(counts), mean(counts),
                     min(same_place), max(same_place), sum(n == 1 for n in counts)])
    return np.array(rows, dtype=float)


def _values(obj) -> list[float]:
    return [ATTRIBUTES[a].index(v) for a, v in zip(TUPLE_ORDER, obj.properties)]


def _geometry(scene: SceneSpec) -> tuple[dict, np.ndarray, np.ndarray]:
    """Offset table, image (u, v, depth) of every object, and each object's
    rank along left, behind and depth."""
    table = offset_table(scene.camera, scene.objects)
    image = project(scene.camera, [o.center for o in scene.objects])
    keys = np.stack([table["left"].sum(axis=1), table["behind"].sum(axis=1), image[:, 2]], axis=1)
    ranks = keys.argsort(axis=0).argsort(axis=0)
    return table, image, ranks


def basic(ep: Episode) -> np.ndarray:
    query = _values(ep.query.objects[0])
    return np.hstack([text(ep), np.tile(query, (len(ep.choices), 1))])


def object_(ep: Episode) -> np.ndarray:
    sizes = sum(o.size == "large" for o in ep.query.objects)
    return np.hstack([text(ep), np.full((len(ep.choices), 1), sizes)])


def composite(ep: Episode) -> np.ndarray:
    pairs = [tuple(c.split()) for c in ep.choices]
    firsts, seconds = sorted({p[0] for p in pairs}), sorted({p[1] for p in pairs})
    in_transversals = np.zeros(len(pairs))
    for order in itertools.permutations(seconds, min(len(firsts), len(seconds))):
        cells = set(zip(firsts, order))
        if cells <= set(pairs):
            in_transversals += [p in cells for p in pairs]
    query = _values(ep.query.objects[0])
    return np.hstack([text(ep), in_transversals[:, None], np.tile(query, (len(pairs), 1))])


def number(ep: Episode) -> np.ndarray:
    return np.hstack([text(ep), np.full((len(ep.choices), 1), len(ep.query.objects))])


def _votes(ep: Episode, hypotheses, truth) -> np.ndarray:
    """For every hypothesis (a word -> meaning map) under which exactly one
    choice is true, a vote for that choice; normalised to sum to 1."""
    votes = np.zeros(len(ep.choices))
    for meaning in hypotheses:
        true = [k for k in range(len(ep.choices)) if truth(meaning, k)]
        if len(true) == 1:
            votes[true[0]] += 1
    return votes / max(votes.sum(), 1)


def relation(ep: Episode) -> np.ndarray:
    """Which objects a choice names, their ranks and image positions, the
    pair's direction signs, agreement with choices saying the same word, and
    the votes of the 24 word-to-direction maps."""
    q = ep.query
    table, image, ranks = _geometry(q)
    index = {(o.color, o.shape): i for i, o in enumerate(q.objects)}
    said = [c.split() for c in ep.choices]
    parsed = [(index[(c1, s1)], w, index[(c2, s2)]) for c1, s1, w, c2, s2 in said]
    words = sorted({w for _, w, _ in parsed})

    def truth(meaning, k):
        i, w, j = parsed[k]
        return table[meaning[w]][i, j] > 0

    maps = (dict(zip(words, dirs)) for dirs in itertools.permutations(DIRECTIONS, len(words)))
    votes = _votes(ep, maps, truth)
    rows = []
    for k, (i, w, j) in enumerate(parsed):
        dx, dy = table["left"][i, j], table["behind"][i, j]
        same_word = [(a, b) for m, (a, v, b) in enumerate(parsed) if v == w and m != k]
        rows.append([
            i, j, *ranks[i], *ranks[j], *image[i], *image[j], np.sign(dx), np.sign(dy), abs(dx), abs(dy),
            sum(a == i for a, _, _ in parsed), sum(b == j for _, _, b in parsed), len(same_word),
            sum({a, b} == {i, j} for a, _, b in parsed),
            sum(np.sign(table["left"][a, b]) == np.sign(dx) for a, b in same_word),
            sum(np.sign(table["behind"][a, b]) == np.sign(dy) for a, b in same_word),
            votes[k],
        ])
    return np.hstack([text(ep), np.array(rows, dtype=float)])


def _bootstrap_rows(ep: Episode, named: list[int]) -> np.ndarray:
    """Relation word, the text-only normal form (the most said word pair, one
    word order), and the votes of word-to-object maps onto `named`."""
    q = ep.query
    table, _, _ = _geometry(q)
    said = [c.split() for c in ep.choices]
    pairs = Counter(frozenset((a, b)) for a, _, b in said)
    top = pairs.most_common(1)[0][0]
    first = sorted(top)[0]
    norm = [r if a == first else OPPOSITE[r] for a, r, b in said]
    group = [frozenset((a, b)) == top for a, _, b in said]
    words = sorted({w for a, _, b in said for w in (a, b)})

    def truth(meaning, k):
        a, r, b = said[k]
        return a in meaning and b in meaning and table[r][meaning[a], meaning[b]] > 0

    # Two words name two of the named objects; every other word is absent.
    maps = ({wa: i, wb: j} for wa, wb in itertools.permutations(words, 2) for i, j in itertools.permutations(named, 2))
    votes = _votes(ep, maps, truth)
    holds = {r: sum(table[r][i, j] > 0 for i in named for j in named if i != j) for r in DIRECTIONS}
    rows = []
    for k, (a, r, b) in enumerate(said):
        in_group = [norm[m] for m in range(len(said)) if group[m]]
        rows.append([
            DIRECTIONS.index(r), group[k], pairs[frozenset((a, b))], in_group.count(norm[k]) if group[k] else 0,
            (OPPOSITE[norm[k]] in in_group) if group[k] else 0, a == first, holds[r], votes[k],
        ])
    return np.array(rows, dtype=float)


def bootstrap(ep: Episode) -> np.ndarray:
    return np.hstack([text(ep), _bootstrap_rows(ep, list(range(len(ep.query.objects))))])


def bootstrap_silent(ep: Episode) -> np.ndarray:
    """No-context-language: the query objects seen in context are the named
    ones; how often each was seen; the enumeration restricted to them."""
    seen = Counter(o.properties for p in ep.context_panels for o in p.scene.objects)
    named = [i for i, o in enumerate(ep.query.objects) if seen[o.properties]]
    degrees = sorted((seen[ep.query.objects[i].properties] for i in named), reverse=True) + [0, 0]
    extra = np.tile([len(named), *degrees[:2]], (len(ep.choices), 1))
    return np.hstack([text(ep), _bootstrap_rows(ep, named), extra])


def _stand_out(scene: SceneSpec, i: int) -> list[str]:
    """Values of object i that no other object of the scene has."""
    others = {v for j, o in enumerate(scene.objects) if j != i for v in o.properties}
    return [v for v in scene.objects[i].properties if v not in others]


def pragmatic(ep: Episode) -> np.ndarray:
    """Query-only: the words are not tied to values, but the pointed object's
    values and place are offered anyway."""
    q = ep.query
    _, image, ranks = _geometry(q)
    t = q.hand.target if q.hand is not None else 0
    scene = [*_values(q.objects[t]), *ranks[t], *image[t], len(_stand_out(q, t))]
    return np.hstack([text(ep), np.tile(scene, (len(ep.choices), 1))])


def pragmatic_handless(ep: Episode) -> np.ndarray:
    """No-hand, the taught lexicon known: for each choice's value, how many
    objects have it, and the object it singles out: its distance and rank
    from the camera, image position, size, and how many offered values single
    it out."""
    q = ep.query
    _, image, ranks = _geometry(q)
    value = [ep.lexicon.get(c) for c in ep.choices]
    having = [[i for i, o in enumerate(q.objects) if v in o.properties] for v in value]
    single = [h[0] if len(h) == 1 else None for h in having]
    rows = []
    for k, (v, h, i) in enumerate(zip(value, having, single)):
        where = [MISSING] * 8 if i is None else [*ranks[i], *image[i], q.objects[i].size == "large", len(_stand_out(q, i))]
        kind = MISSING if v is None else TUPLE_ORDER.index(attribute_of(v))
        rows.append([kind, len(h), i is not None, *where,
                     sum(s is not None and s == i for s in single), sum(s is not None for s in single)])
    return np.hstack([text(ep), np.array(rows, dtype=float)])


def suffix(name: str) -> int | None:
    """The number k of a panel name "<utterance> #<k>" (None without one)."""
    last = name.split(" ")[-1]
    return int(last[1:]) if last[:1] == "#" and last[1:].isdigit() else None


def _named_rows(ep: Episode) -> np.ndarray:
    """Names only: for each choice, the '#k' of the panels whose utterance shares a coined word with it
    (how many, smallest, largest, spread, how many are universe indices) and, reading each k as an index
    in the universe (MEWL's naming), how many of those objects share each attribute's value with the
    query's first object."""
    query = ep.query.objects[0].properties
    rows = []
    for c in ep.choices:
        words = set(c.split()) - {v for values in ATTRIBUTES.values() for v in values}
        ks = [k for p in ep.context_panels if words & set(p.utterance.split()) and (k := suffix(p.name)) is not None]
        decoded = [UNIVERSE[k] for k in ks if k < len(UNIVERSE)]
        spread = [min(ks), max(ks), max(ks) - min(ks)] if ks else [MISSING] * 3
        rows.append([len(ks), *spread, len(decoded), *(sum(o[a] == query[a] for o in decoded) for a in range(4))])
    return np.array(rows, dtype=float)


def names_basic(ep: Episode) -> np.ndarray:
    return np.hstack([basic(ep), _named_rows(ep)])


def names_relation(ep: Episode) -> np.ndarray:
    return np.hstack([relation(ep), _named_rows(ep)])


def identity(ep: Episode) -> np.ndarray:
    """Identity (deprived.IDENTITY): a choice's position, the episode's index, retry and root seed, and
    every scene's seed, attempt, camera and lights; one row per choice position."""
    fields = [ep.index, ep.retry, ep.root_seed % 2**24]
    for s in [p.scene for p in ep.context_panels] + [ep.query]:
        fields += [s.seed % 2**24, s.attempt, *s.camera.location, *s.camera.rotation, s.camera.lens_mm]
        fields += [v for light in sorted(s.lights, key=lambda x: x.name) for v in (*light.location, light.energy, light.size)]
    return np.array([[k, *fields] for k in range(len(ep.choices))], dtype=float)


# (task, deprivation) -> features; every pair of deprived.DEPRIVED has one.
FEATURES = {
    **{(t, QUERY_ONLY): basic for t in ("shape", "color", "material")},
    ("object", QUERY_ONLY): object_,
    ("composite", QUERY_ONLY): composite,
    ("relation", QUERY_ONLY): relation,
    ("bootstrap", QUERY_ONLY): bootstrap,
    ("bootstrap", NO_LANGUAGE): bootstrap_silent,
    ("number", QUERY_ONLY): number,
    ("pragmatic", QUERY_ONLY): pragmatic,
    ("pragmatic", NO_HAND): pragmatic_handless,
    **{(t, NAMES_ONLY): names_basic for t in ("shape", "color", "material")},
    ("relation", NAMES_ONLY): names_relation,
    **{(t, IDENTITY): identity for t in TASKS},
}
