"""relation: a word means the one direction true of both its panels' pairs."""
from __future__ import annotations

from collections import Counter

from scenes.relations import true_relations
from scenes.spec import Episode, SceneSpec
from scenes.universe import DIRECTIONS

# The answer is designated before the query scene is placed, with weights
# that make each of the five statements equally likely given the text.
CHANCE = 1 / 5


def _named(scene: SceneSpec, color: str, shape: str):
    (obj,) = [o for o in scene.objects if o.color == color and o.shape == shape]
    return obj


def _relations(scene: SceneSpec, text: str) -> tuple[str, set[str]]:
    c1, s1, word, c2, s2 = text.split()
    return word, true_relations(scene.camera, _named(scene, c1, s1), _named(scene, c2, s2))


def solve(ep: Episode) -> str:
    meanings: dict[str, set[str]] = {}
    for p in ep.context_panels:
        word, rels = _relations(p.scene, p.utterance)
        meanings[word] = meanings.get(word, set(DIRECTIONS)) & rels
    assert all(len(m) == 1 for m in meanings.values()), meanings
    meaning = {w: m.pop() for w, m in meanings.items()}
    hits = [c for c in ep.choices if meaning[_relations(ep.query, c)[0]] in _relations(ep.query, c)[1]]
    assert len(hits) == 1, hits
    return hits[0]


def text_only_guess(ep: Episode, rng) -> str:
    """Structure of the choices: the word said once among them, the subject
    said most often; prefer statements whose subject is that object and whose
    word is said twice (the X-Y / X-Z statements), and among them the pair
    said twice."""
    words = Counter(c.split()[2] for c in ep.choices)
    subjects = Counter(" ".join(c.split()[:2]) for c in ep.choices)
    top = subjects.most_common(1)[0][0]
    pool = [c for c in ep.choices if c.startswith(top) and words[c.split()[2]] == 2] or list(ep.choices)
    return pool[rng.integers(len(pool))]


def balance(ep: Episode) -> dict[str, tuple[list, tuple]]:
    solved = solve(ep)
    answer_word = solved.split()[2]
    meanings: dict[str, set[str]] = {}
    for p in ep.context_panels:
        word, rels = _relations(p.scene, p.utterance)
        meanings[word] = meanings.get(word, set(DIRECTIONS)) & rels
    used = [next(iter(m)) for m in meanings.values()]
    return {
        "relation": (used, DIRECTIONS),
        "unused relation": ([d for d in DIRECTIONS if d not in used], DIRECTIONS),
        "query relation": ([next(iter(meanings[answer_word]))], DIRECTIONS),
    }
