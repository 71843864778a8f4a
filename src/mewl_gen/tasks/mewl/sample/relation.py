"""relation: novel words for left, right, front and behind (docs/tasks.md).

Three of the four directions get words; each word is said of two panels
("<color> <shape> <word> <color> <shape>", read "A is <rel> of B") whose pairs
stand in opposite orthogonal relations, so only the word's own direction is
common to both. The query asks which of five statements about three new
objects is true.
"""
from __future__ import annotations

import itertools

import numpy as np

from mewl_gen.scenes.draws import OutOfDraws, redraw
from mewl_gen.scenes.placement import place_scene
from mewl_gen.scenes.relations import all_separated, offset_table, separated_in
from mewl_gen.scenes.spec import ObjectSpec, SceneSpec
from mewl_gen.scenes.universe import COLORS, DIRECTIONS, MATERIALS, OPPOSITE, ORTHOGONAL, SHAPES, SIZES, ObjectTuple

from ...item import Panel
from ...sampling import choices_with_answer, enumerate_mappings, shuffled
from ...seeds import draw_seed
from ...validation import require
from ..item import Draft, Episode, check_common, numbered
from .words import pseudo_words

OBJECTS_PER_PANEL = 3

# The query's choices: five statements about its three objects. At most four
# of five such statements can each be the only true one under some lexicon
# (map of the three words to directions), and only when the objects' orders
# along the two axes are neither equal nor reversed; the same holds with the
# roles of lexicon and layout swapped (tests/tasks/mewl/test_relation.py checks
# both by enumeration). So the query is drawn in such a layout, and its
# statements follow a cycle through the objects, X->Y->Z->X, two steps said
# with the same two words and the third step with the third word (18 sets).
# Of those, exactly two have four live statements both ways and make the
# answer the only true one under n_lex lexicons (for this layout) and n_lay
# layouts (for this lexicon) with n_lex * n_lay = 2; one is drawn. Then every
# live statement is the answer with probability exactly 1/4 given the query
# and the choices, and again given the lexicon and the choices.
STATEMENTS_PER_QUERY = 5
MIXED_ORDERS = ((0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1))  # front-behind ranks listed left to right

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
    def draw() -> list[ObjectTuple]:
        pairs = rng.choice(len(COLORS) * len(SHAPES), size=n, replace=False)
        return [(SHAPES[p % 3], COLORS[p // 3], MATERIALS[rng.integers(3)], SIZES[rng.integers(2)]) for p in pairs]

    return redraw(draw, lambda objs: not exclude.intersection(objs), "objects new to the episode")


def _pairs_in(scene: SceneSpec, rel: str, orth: str) -> list[tuple[int, int]]:
    """Ordered pairs (a, b), well separated, with a both rel and orth of b."""
    t = offset_table(scene.camera, scene.objects)
    return [
        (i, j) for i, j in itertools.permutations(range(len(scene.objects)), 2)
        if separated_in(t, i, j) and t[rel][i, j] > 0 and t[orth][i, j] > 0
    ]


def _context_panel(rng: np.random.Generator, word: str, rel: str, orth: str) -> tuple[str, SceneSpec]:
    scene = place_scene(
        draw_seed(rng), _objects(rng, OBJECTS_PER_PANEL),
        accept=lambda s: _every_pair_apart(s) and bool(_pairs_in(s, rel, orth)),
    )
    pairs = _pairs_in(scene, rel, orth)
    a, b = pairs[rng.integers(len(pairs))]
    return statement(scene.objects[a], word, scene.objects[b]), scene


def _every_pair_apart(scene: SceneSpec) -> bool:
    return all_separated(offset_table(scene.camera, scene.objects))


def _ranks(values) -> tuple[int, ...]:
    return tuple(int(r) for r in np.argsort(np.argsort(values)))


def layout_of(scene: SceneSpec) -> tuple[int, ...]:
    """Front-behind ranks of the objects listed from left to right."""
    t = offset_table(scene.camera, scene.objects)
    lr = _ranks(t["right"][:, 0])
    fb = _ranks(t["behind"][:, 0])
    return tuple(fb[lr.index(k)] for k in range(len(lr)))


def _mixed_orders(scene: SceneSpec) -> bool:
    """Every pair apart, and the orders along the two axes neither equal nor reversed."""
    return all_separated(offset_table(scene.camera, scene.objects)) and layout_of(scene) in MIXED_ORDERS


def lexicons(words) -> list[dict[str, str]]:
    """Every injective map of the words to directions (24 for three words)."""
    return [dict(zip(words, dirs)) for dirs in itertools.permutations(DIRECTIONS, len(words))]


def layouts() -> list[dict]:
    """The truth of "a <d> b" under each mixed layout of three objects (24)."""
    out = []
    for lr in itertools.permutations(range(3)):
        for fb in itertools.permutations(range(3)):
            if tuple(fb[lr.index(k)] for k in range(3)) in MIXED_ORDERS:
                out.append({
                    (a, b, d): (lr[a] > lr[b]) == (d == "right") if d in ("left", "right") else (fb[a] > fb[b]) == (d == "behind")
                    for a, b in itertools.permutations(range(3), 2) for d in DIRECTIONS
                })
    return out


def truths(scene: SceneSpec) -> dict:
    t = offset_table(scene.camera, scene.objects)
    return {(a, b, d): bool(t[d][a, b] > 0) for a, b in itertools.permutations(range(3), 2) for d in DIRECTIONS}


def lone_truth(truth: dict, said, meaning: dict[str, str]) -> int | None:
    """Index of the only true statement under `meaning`, None unless exactly one."""
    true = [k for k, (a, w, b) in enumerate(said) if truth[a, b, meaning[w]]]
    return true[0] if len(true) == 1 else None


def cycle_sets(words) -> list[list[tuple[int, str, int]]]:
    """Statements along X->Y->Z->X: two steps with the same two words, the
    third step with the third word (2 directions x 3 steps x 3 words)."""
    out = []
    for cycle in ((0, 1, 2), (0, 2, 1)):
        steps = [(cycle[k], cycle[(k + 1) % 3]) for k in range(3)]
        for lone_step, lone_word in itertools.product(steps, words):
            pair = [w for w in words if w != lone_word]
            out.append([(a, w, b) for a, b in steps if (a, b) != lone_step for w in pair] + [(lone_step[0], lone_word, lone_step[1])])
    return out


def balanced_choices(truth: dict, lexicon: dict[str, str]) -> list[tuple[list, int]]:
    """The cycle sets (with their answers) that leave four live statements
    given the layout and given the lexicon, with n_lex * n_lay = 2."""
    maps, lays, kept = lexicons(list(lexicon)), layouts(), []
    for said in cycle_sets(list(lexicon)):
        answer = lone_truth(truth, said, lexicon)
        if answer is None:
            continue
        by_lex = [lone_truth(truth, said, m) for m in maps]
        by_lay = [lone_truth(t, said, lexicon) for t in lays]
        if len(set(by_lex) - {None}) == 4 and len(set(by_lay) - {None}) == 4 and by_lex.count(answer) * by_lay.count(answer) == 2:
            kept.append((said, answer))
    return kept


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
    # A uniformly random order of the finished panels: a position says nothing about what a panel
    # shows, so the position that tells a repeated utterance's panels apart carries nothing (numbered()).
    panels = shuffled(rng, panels)
    names = [u if [v for v, _ in panels].count(u) == 1 else numbered(u, i) for i, (u, _) in enumerate(panels)]

    # Query: three new objects placed without regard to the lexicon, then the choices.
    seen = {o.properties for _, s in panels for o in s.objects}
    order = MIXED_ORDERS[rng.integers(len(MIXED_ORDERS))]
    query = place_scene(
        draw_seed(rng), _objects(rng, OBJECTS_PER_PANEL, seen),
        accept=lambda s: all_separated(offset_table(s.camera, s.objects)) and layout_of(s) == order,
    )
    kept = balanced_choices(truths(query), lexicon)
    if len(kept) != 2:
        raise OutOfDraws(f"the query allows {len(kept)} balanced choice sets, not 2")
    said, answer = kept[rng.integers(2)]
    texts = [statement(query.objects[a], w, query.objects[b]) for a, w, b in said]
    choices, answer_text = choices_with_answer(rng, texts[answer], texts[:answer] + texts[answer + 1:])

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
        require(_every_pair_apart(p.scene), f"panel {p.name!r}: two objects are a near-tie")
    utterances = [p.utterance for p in ep.context_panels]
    for k, (p, u) in enumerate(zip(ep.context_panels, utterances)):
        require(p.name == (u if utterances.count(u) == 1 else numbered(u, k)), f"panel name {p.name!r} at {k}")
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
    require(_mixed_orders(q), "query: a near-tie, or the two axes order the objects alike")
    said = [parse(q, choice) for choice in ep.choices]
    for choice, (a, word, b) in zip(ep.choices, said):
        require(a is not None and b is not None and a != b and word in lexicon, f"choice {choice!r} does not describe the query")
    answer = lone_truth(truths(q), said, lexicon)
    require(answer is not None and ep.choices[answer] == ep.answer, f"the answer {ep.answer!r} is not the only true choice")
    balanced = [sorted(s) for s, _ in balanced_choices(truths(q), lexicon)]
    require(sorted(said) in balanced, "the choices are not a balanced cycle set")
