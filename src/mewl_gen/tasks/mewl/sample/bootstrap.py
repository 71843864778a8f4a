"""bootstrap: novel words for objects, learnt through English relation words
(docs/tasks.md).

Six objects get words. Each panel shows two of them and an unnamed
distractor, with "<wA> <rel> <wB>". The six pairs form a graph in which a
word said in two or more panels is pinned by object identity (the one object
those panels share) and a word said once (a leaf) hangs off a pinned word:
its panel's relation is chosen true of the leaf and clearly false of the
distractor, so the relation word tells which of the panel's objects it is.

The five choices name the five word pairs of a cycle through five words, none
said in context; the query shows one of them, drawn uniformly. A statement
about the shown pair is true of exactly one of its two word orders, so under
the hypothesis "these two words name the query's two objects" every choice
is the only true one: without the words' meanings, each is equally likely.
"""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from mewl_gen.scenes.draws import redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.relations import RELATION_MARGIN, all_separated, offset_table, separated_in
from mewl_gen.scenes.spec import SceneSpec
from mewl_gen.scenes.universe import DIRECTIONS, UNIVERSE

from ...item import Panel
from ...sampling import choices_with_answer, distinct_objects, enumerate_mappings
from ...seeds import draw_seed
from ...validation import require
from ..item import Draft, Episode, check_common
from .words import pseudo_words

NAMED, PANELS = 6, 6
ALL_PAIRS = tuple(itertools.combinations(range(NAMED), 2))
CYCLE = 5  # words the choices name, in a cycle of as many pairs


def _degrees(edges) -> np.ndarray:
    return np.bincount(np.array(edges).ravel(), minlength=NAMED)


def _graph_ok(edges) -> bool:
    """Every word said, at least one leaf, no panel of two leaves, and the
    unsaid pairs leave room for the query's choices."""
    d = _degrees(edges)
    return d.min() >= 1 and (d == 1).any() and all(d[a] > 1 or d[b] > 1 for a, b in edges) and bool(_unsaid_cycles(edges))


def _unsaid_cycles(edges) -> list[tuple[int, ...]]:
    """Every cycle through CYCLE words whose pairs were all left unsaid, once
    each (first word the smallest, second smaller than the last)."""
    said = {frozenset(e) for e in edges}
    found = []
    for words in itertools.combinations(range(NAMED), CYCLE):
        for rest in itertools.permutations(words[1:]):
            cycle = (words[0], *rest)
            pairs = {frozenset((cycle[k], cycle[(k + 1) % CYCLE])) for k in range(CYCLE)}
            if cycle[1] < cycle[-1] and not pairs & said:
                found.append(cycle)
    return found


def _leaf_resolved(t, rel: str, known: int, leaf: int, distractor: int) -> bool:
    """The statement with `rel` about (known, leaf) is true, and clearly false
    were the leaf word to mean the distractor."""
    if t[rel][known, leaf] > 0:  # "known rel leaf"
        return t[rel][known, distractor] < -RELATION_MARGIN
    return t[rel][distractor, known] < -RELATION_MARGIN  # "leaf rel known"


def _place(rng: np.random.Generator, props: list, accept) -> tuple[SceneSpec, list[int]]:
    """Place props in a shuffled scene order (the order must not tell named
    from unnamed); accept(table, where) sees where[k] = scene index of props[k]."""
    order = [int(i) for i in rng.permutation(len(props))]
    where = [order.index(k) for k in range(len(props))]
    scene = place_scene(
        draw_seed(rng), [props[i] for i in order], accept=lambda s: accept(offset_table(s.camera, s.objects), where)
    )
    return scene, where


def _statement(t, words: list[str], a: int, b: int, ia: int, ib: int, rel: str) -> str:
    """The statement with `rel` that is true of objects a, b (either word order)."""
    return f"{words[a]} {rel} {words[b]}" if t[rel][ia, ib] > 0 else f"{words[b]} {rel} {words[a]}"


def _context_panel(rng, named, distractor, words, edge, degree) -> tuple[str, SceneSpec]:
    a, b = edge
    rel = DIRECTIONS[rng.integers(4)]
    if degree[a] > 1 and degree[b] > 1:
        accept = lambda t, w: all_separated(t)
    else:
        known, leaf = (0, 1) if degree[b] == 1 else (1, 0)
        accept = lambda t, w: all_separated(t) and _leaf_resolved(t, rel, w[known], w[leaf], w[2])
    scene, where = _place(rng, [named[a], named[b], distractor], accept)
    table = offset_table(scene.camera, scene.objects)
    return _statement(table, words, a, b, where[0], where[1], rel), scene


def _said(rng, t, words: list[str], x: int, y: int, ix: int | None = None, iy: int | None = None) -> str:
    """A statement about words x and y in a random order. With their objects'
    scene indices given, its relation is drawn among those that make it true;
    otherwise (an object not in the query) among all four."""
    if rng.integers(2):
        x, y, ix, iy = y, x, iy, ix
    rels = DIRECTIONS if ix is None else [r for r in DIRECTIONS if t[r][ix, iy] > 0]
    return f"{words[x]} {rels[rng.integers(len(rels))]} {words[y]}"


def sample(rng: np.random.Generator) -> Draft:
    # Six named objects; seven unnamed distractors (one per panel, one for the query).
    picks = distinct_objects(rng, NAMED + PANELS + 1)
    named, distractors = picks[:NAMED], picks[NAMED:]
    words = pseudo_words(rng, NAMED, syllables=3)
    lexicon = dict(zip(words, named))

    # Context: one panel per edge of the pair graph, in random order.
    edges = redraw(lambda: [ALL_PAIRS[i] for i in rng.choice(len(ALL_PAIRS), PANELS, replace=False)], _graph_ok, "pair graph")
    degree = _degrees(edges)
    context = tuple(
        Panel(name=u, utterance=u, scene=s)
        for u, s in (_context_panel(rng, named, distractors[k], words, edges[k], degree) for k in rng.permutation(PANELS))
    )
    fits = consistent_lexicons(context, lexicon.keys())
    require(fits == [lexicon], f"the context allows {len(fits)} assignments")

    # Query: a cycle of five unsaid pairs; one of them, uniformly, is shown
    # with a distractor, and each choice states one pair of the cycle.
    cycles = _unsaid_cycles(edges)
    cycle = cycles[rng.integers(len(cycles))]
    pairs = [(cycle[k], cycle[(k + 1) % CYCLE]) for k in range(CYCLE)]
    shown = int(rng.integers(CYCLE))
    a, b = pairs[shown]
    query, where = _place(rng, [named[a], named[b], distractors[PANELS]], lambda t, w: all_separated(t))
    t = offset_table(query.camera, query.objects)
    answer = _said(rng, t, words, a, b, where[0], where[1])
    others = [_said(rng, t, words, x, y) for k, (x, y) in enumerate(pairs) if k != shown]
    choices, answer = choices_with_answer(rng, answer, others)
    return Draft(lexicon, context, query, choices, answer)


def consistent_lexicons(panels, words, limit: int = 2) -> list[dict]:
    """Injective word -> object assignments, over every object the panels
    show (distractors included), under which no panel's statement is clearly
    false (so a near-tie never decides)."""
    stated = []
    for p in panels:
        wa, rel, wb = p.utterance.split()
        objs = [o.properties for o in p.scene.objects]
        stated.append((wa, rel, wb, objs, offset_table(p.scene.camera, p.scene.objects)))
    domains: dict[str, list] = {}
    for w in words:
        shows = [set(objs) for wa, _, wb, objs, _ in stated if w in (wa, wb)]
        domains[w] = sorted(set.intersection(*shows)) if shows else []

    def consistent(m: dict) -> bool:
        for wa, rel, wb, objs, t in stated:
            if wa in m and wb in m and t[rel][objs.index(m[wa]), objs.index(m[wb])] <= -RELATION_MARGIN:
                return False
        return True

    return enumerate_mappings(list(words), domains, consistent, limit=limit)


def _truth(scene: SceneSpec, lexicon: dict, text: str) -> bool | None:
    """True/False for a statement about the scene; None when it names two
    present objects that are not well separated."""
    wa, rel, wb = text.split()
    objs = [o.properties for o in scene.objects]
    if lexicon[wa] not in objs or lexicon[wb] not in objs:
        return False
    i, j = objs.index(lexicon[wa]), objs.index(lexicon[wb])
    t = offset_table(scene.camera, scene.objects)
    return bool(t[rel][i, j] > 0) if separated_in(t, i, j) else None


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == NAMED and len(set(lexicon.values())) == NAMED, "six words for six objects")
    require(all(tuple(v) in UNIVERSE for v in lexicon.values()), "the lexicon is not about objects")
    named = set(lexicon.values())
    pairs = []
    for p in ep.context_panels:
        tokens = p.utterance.split()
        require(p.name == p.utterance, f"panel name {p.name!r} is not its utterance")  # names carry nothing else
        require(len(tokens) == 3 and tokens[0] in lexicon and tokens[2] in lexicon and tokens[1] in DIRECTIONS,
                f"panel {p.name!r}: not '<word> <relation> <word>'")
        require(tokens[0] != tokens[2], f"panel {p.name!r}: a word related to itself")
        objs = [o.properties for o in p.scene.objects]
        require(len(set(objs)) == 3 and p.scene.hand is None, f"panel {p.name!r}: three distinct objects, no hand")
        require(sorted(named.intersection(objs)) == sorted({lexicon[tokens[0]], lexicon[tokens[2]]}),
                f"panel {p.name!r}: shows other named objects than the two it names")
        require(_truth(p.scene, lexicon, p.utterance) is True, f"panel {p.name!r}: the statement is not clearly true")
        require(all_separated(offset_table(p.scene.camera, p.scene.objects)), f"panel {p.name!r}: two objects are a near-tie")
        pairs.append(frozenset((tokens[0], tokens[2])))
    require(len(set(pairs)) == PANELS, "context pairs are not distinct")
    require(set().union(*pairs) == set(lexicon), "a word is never said")
    fits = consistent_lexicons(ep.context_panels, lexicon.keys())
    require(fits == [lexicon], f"the context allows {len(fits)} assignments")

    # Query: an unsaid pair and a distractor; exactly one statement true.
    objs = [o.properties for o in ep.query.objects]
    require(len(set(objs)) == 3 and ep.query.hand is None, "the query shows three distinct objects, no hand")
    shown = [w for w, o in lexicon.items() if o in objs]
    require(len(shown) == 2 and frozenset(shown) not in pairs, "the query must show a pair not said in context")
    require(all_separated(offset_table(ep.query.camera, ep.query.objects)), "query: two objects are a near-tie")
    for c in ep.choices:
        tokens = c.split()
        require(len(tokens) == 3 and tokens[0] in lexicon and tokens[2] in lexicon and tokens[1] in DIRECTIONS, f"choice {c!r}")
    truth = {c: _truth(ep.query, lexicon, c) for c in ep.choices}
    require(None not in truth.values(), "a choice is a near-tie")
    require([c for c in ep.choices if truth[c]] == [ep.answer], f"true choices != answer {ep.answer!r}")
    # The choices' pairs: a cycle through five words, none said in context.
    stated = [frozenset(c.split()[::2]) for c in ep.choices]
    degree = Counter(w for pair in stated for w in pair)
    require(len(set(stated)) == CYCLE and not set(stated) & set(pairs), "choices must name five pairs unsaid in context")
    require(len(degree) == CYCLE and set(degree.values()) == {2} and _connected(stated), "the choices' pairs are not a cycle")


def _connected(pairs) -> bool:
    reached, frontier = set(), [next(iter(pairs[0]))]
    while frontier:
        w = frontier.pop()
        if w not in reached:
            reached.add(w)
            frontier += [v for p in pairs if w in p for v in p]
    return reached == set().union(*pairs)
