"""relation: novel words for left, right, front and behind (TASKS.md).

Three of the four directions get words; each word is said of two panels
("<color> <shape> <word> <color> <shape>", read "A is <rel> of B") whose pairs
stand in opposite orthogonal relations, so only the word's own direction is
common to both. The query asks which of five statements about three new
objects is true.
"""
from __future__ import annotations

import itertools

import numpy as np

from scenes.placement import place_scene
from scenes.relations import offset_table, separated_in
from scenes.spec import Episode, ObjectSpec, Panel, SceneSpec
from scenes.universe import COLORS, DIRECTIONS, MATERIALS, OPPOSITE, ORTHOGONAL, SHAPES, SIZES, ObjectTuple

from .episode import Draft, choices_with_answer, enumerate_mappings, shuffled
from .seeds import draw_seed
from .validation import check_common, require
from .words import pseudo_words

OBJECTS_PER_PANEL = 3

# The query's five statements over objects X, Y, Z, by word role: `lone` is
# the word whose opposite is unused, `o1`/`o2` the opposite pair. Text cannot
# tell `lone` from `o1` (both are said of X-Y and X-Z), and the answer is
# designated with these weights before the scene is placed, so each of the
# five statements is the answer with probability 1/5 given the text. "X o1 Y"
# can never be the only true one (it would make X o1 Z or Y o2 Z true too).
QUERY_TEMPLATE = (("X", "lone", "Y"), ("X", "o1", "Y"), ("X", "lone", "Z"), ("X", "o1", "Z"), ("Y", "o2", "Z"))
ANSWER_WEIGHTS = (0.4, 0.0, 0.2, 0.2, 0.2)


def phrase(obj: ObjectSpec | ObjectTuple) -> str:
    shape, color = (obj.shape, obj.color) if isinstance(obj, ObjectSpec) else obj[:2]
    return f"{color} {shape}"


def statement(a, word: str, b) -> str:
    return f"{phrase(a)} {word} {phrase(b)}"


def parse(scene: SceneSpec, text: str) -> tuple[int | None, str, int | None]:
    """(A, word, B) of "<color> <shape> <word> <color> <shape>", A and B as
    object indices; a referent is None unless exactly one object answers to it."""
    tokens = text.split()
    require(len(tokens) == 5, f"not a relation statement: {text!r}")

    def referent(color: str, shape: str) -> int | None:
        hits = [i for i, o in enumerate(scene.objects) if (o.color, o.shape) == (color, shape)]
        return hits[0] if len(hits) == 1 else None

    return referent(tokens[0], tokens[1]), tokens[2], referent(tokens[3], tokens[4])


def _objects(rng: np.random.Generator, n: int, exclude: set[ObjectTuple] = frozenset()) -> list[ObjectTuple]:
    """n objects with distinct (color, shape), none in `exclude`."""
    while True:
        pairs = rng.choice(len(COLORS) * len(SHAPES), size=n, replace=False)
        objs = [
            (SHAPES[p % 3], COLORS[p // 3], MATERIALS[rng.integers(3)], SIZES[rng.integers(2)]) for p in pairs
        ]
        if not exclude.intersection(objs):
            return objs


def _pairs_in(scene: SceneSpec, rel: str, orth: str) -> list[tuple[int, int]]:
    """Ordered pairs (a, b), well separated, with a both rel and orth of b."""
    t = offset_table(scene.camera, scene.objects)
    return [
        (i, j) for i, j in itertools.permutations(range(len(scene.objects)), 2)
        if separated_in(t, i, j) and t[rel][i, j] > 0 and t[orth][i, j] > 0
    ]


def _context_panel(rng: np.random.Generator, word: str, rel: str, orth: str) -> tuple[str, SceneSpec]:
    scene = place_scene(draw_seed(rng), _objects(rng, OBJECTS_PER_PANEL), accept=lambda s: bool(_pairs_in(s, rel, orth)))
    pairs = _pairs_in(scene, rel, orth)
    a, b = pairs[rng.integers(len(pairs))]
    return statement(scene.objects[a], word, scene.objects[b]), scene


def _query_roles(scene: SceneSpec, words: dict[str, str], meaning: dict[str, str], answer: int) -> list[dict[str, object]]:
    """Role assignments (objects to X/Y/Z, which opposite word is o1) under
    which template statement `answer` is the only true one."""
    t = offset_table(scene.camera, scene.objects)
    if not all(separated_in(t, i, j) for i, j in itertools.combinations(range(len(scene.objects)), 2)):
        return []
    found = []
    for perm in itertools.permutations(range(len(scene.objects))):
        for o1, o2 in ((words["o1"], words["o2"]), (words["o2"], words["o1"])):
            roles = {"X": perm[0], "Y": perm[1], "Z": perm[2], "lone": words["lone"], "o1": o1, "o2": o2}
            truth = [t[meaning[roles[w]]][roles[a], roles[b]] > 0 for a, w, b in QUERY_TEMPLATE]
            if truth == [k == answer for k in range(len(QUERY_TEMPLATE))]:
                found.append(roles)
    return found


def sample(rng: np.random.Generator) -> Draft:
    # Three of the four directions, one word each.
    unused = DIRECTIONS[rng.integers(4)]
    directions = [d for d in DIRECTIONS if d != unused]
    words = pseudo_words(rng, 3, syllables=3)
    lexicon = dict(zip(words, shuffled(rng, directions)))

    # Context: each word twice, the orthogonal relation flipped between the two.
    panels = []
    for word, rel in lexicon.items():
        orth = ORTHOGONAL[rel][rng.integers(2)]
        panels += [_context_panel(rng, word, rel, orth), _context_panel(rng, word, rel, OPPOSITE[orth])]
    panels = shuffled(rng, panels)
    names = [u if [v for v, _ in panels].count(u) == 1 else f"{u} #{i}" for i, (u, _) in enumerate(panels)]

    # Query: designate the true statement first, then place three new objects to make it so.
    by_meaning = {d: w for w, d in lexicon.items()}
    lone = by_meaning[OPPOSITE[unused]]
    o1, o2 = [w for w in words if w != lone]
    role_words = {"lone": lone, "o1": o1, "o2": o2}
    answer = int(rng.choice(len(QUERY_TEMPLATE), p=ANSWER_WEIGHTS))
    seen = {o.properties for _, s in panels for o in s.objects}
    query = place_scene(
        draw_seed(rng), _objects(rng, OBJECTS_PER_PANEL, seen),
        accept=lambda s: bool(_query_roles(s, role_words, lexicon, answer)),
    )
    options = _query_roles(query, role_words, lexicon, answer)
    roles = options[rng.integers(len(options))]
    objs = query.objects
    said = [statement(objs[roles[a]], roles[w], objs[roles[b]]) for a, w, b in QUERY_TEMPLATE]
    choices, answer_text = choices_with_answer(rng, said[answer], said[:answer] + said[answer + 1:])

    context = tuple(Panel(name=n, utterance=u, scene=s) for n, (u, s) in zip(names, panels))
    return Draft(lexicon, context, query, choices, answer_text)


def _stated(ep: Episode) -> list[tuple[dict, int, str, int]]:
    """(offset table, A, word, B) of every context panel."""
    out = []
    for p in ep.context_panels:
        a, word, b = parse(p.scene, p.utterance)
        require(a is not None and b is not None and a != b, f"panel {p.name!r}: a phrase does not name one object")
        table = offset_table(p.scene.camera, p.scene.objects)
        require(separated_in(table, a, b), f"panel {p.name!r}: the stated pair is a near-tie")
        out.append((table, a, word, b))
    return out


def validate(ep: Episode) -> None:
    check_common(ep)
    lexicon = ep.lexicon
    require(len(lexicon) == 3 and len(set(lexicon.values())) == 3, "three words for three directions")
    require(set(lexicon.values()) <= set(DIRECTIONS), "the lexicon is not about directions")
    stated = _stated(ep)
    for p in ep.context_panels:
        require(len(p.scene.objects) == OBJECTS_PER_PANEL and p.scene.hand is None, f"panel {p.name!r}: three objects, no hand")
        require(len({(o.color, o.shape) for o in p.scene.objects}) == OBJECTS_PER_PANEL, f"panel {p.name!r}: repeated phrase")
    said = [word for _, _, word, _ in stated]
    require(all(said.count(w) == 2 for w in lexicon) and len(said) == 6, f"each word in exactly two panels: {said}")

    # Identifiability: exactly one injective word -> direction map fits every panel.
    def consistent(mapping: dict) -> bool:
        return all(t[mapping[w]][a, b] > 0 for t, a, w, b in stated if w in mapping)

    fits = enumerate_mappings(list(lexicon), {w: DIRECTIONS for w in lexicon}, consistent)
    require(fits == [lexicon], f"the context allows {len(fits)} meanings")

    # The query: three new objects, every choice about them, exactly one true.
    q = ep.query
    require(len(q.objects) == OBJECTS_PER_PANEL and q.hand is None, "the query shows three objects, no hand")
    require(len({(o.color, o.shape) for o in q.objects}) == OBJECTS_PER_PANEL, "query: repeated phrase")
    seen = {o.properties for p in ep.context_panels for o in p.scene.objects}
    require(not seen.intersection(o.properties for o in q.objects), "query objects are not new")
    table, true = offset_table(q.camera, q.objects), []
    for choice in ep.choices:
        a, word, b = parse(q, choice)
        require(a is not None and b is not None and a != b and word in lexicon, f"choice {choice!r} does not describe the query")
        require(separated_in(table, a, b), f"choice {choice!r}: near-tie")
        if table[lexicon[word]][a, b] > 0:
            true.append(choice)
    require(true == [ep.answer], f"true choices {true} != answer {ep.answer!r}")
