"""ICY: grammars by their definitions, the languages' metrics, both tasks' splits and derivable answers."""
from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from mewl_gen.scenes.universe import ATTRIBUTES, COLORS, SHAPES, TUPLE_ORDER, UNIVERSE
from mewl_gen.tasks.catalog import sample_item
from mewl_gen.tasks.icy import grammars
from mewl_gen.tasks.icy.command import language_arrays, metrics_of
from mewl_gen.tasks.icy.derive import derive_concat, derive_shufdet, words_of
from mewl_gen.tasks.icy.language import ENG_WORDS, LanguageSpec, language, language_json, message_of
from mewl_gen.tasks.icy.metrics import topsim
from mewl_gen.tasks.icy.validate import validate_episode, validate_naming
from mewl_gen.tasks.validation import InvalidItem

SEEDS = range(5)
SPECS = [LanguageSpec(grammar=g, symbols=s) for g in grammars.GRAMMARS for s in ("synthetic", "eng")]
HAND_WORDS = {"cube": "aa", "red": "ab", "metal": "ba", "large": "bb", "small": "cc"}
CUBE = ("cube", "red", "metal", "large")


# -- every grammar's definition on hand-made objects -------------------------------------------

def test_concat_joins_the_words_in_attribute_order():
    assert message_of(CUBE, 0, LanguageSpec(word_length=2), HAND_WORDS, {}) == "aaabbabb"


def test_rot_of_a_known_message_is_its_running_sum_modulo_v():
    assert grammars.rotate(np.array([1, 2, 3, 0, 3]), 4).tolist() == [1, 3, 2, 2, 1]
    spec = LanguageSpec(grammar="rot", word_length=2)
    assert message_of(CUBE, 0, spec, HAND_WORDS, {}) == "aaabccda"  # aaabbabb: 0 0 0 1 1 0 1 1 summed 0 0 0 1 2 2 3 4, mod 4


def test_proj_by_the_identity_keeps_a_message_and_by_a_symbol_swap_swaps():
    m = np.array([0, 1, 2, 3, 1])
    assert grammars.project(m, np.eye(5 * 4), 4).tolist() == m.tolist()
    swap = np.kron(np.eye(5), np.eye(4)[[1, 0, 2, 3]])  # at every position, symbol 0 <-> 1
    assert grammars.project(m, swap, 4).tolist() == [1, 0, 2, 3, 0]


def test_shufdet_orders_the_words_by_the_last_attributes_value():
    orders = {"large": ["size", "shape", "material", "color"], "small": ["color", "shape", "size", "material"]}
    spec = LanguageSpec(grammar="shufdet", word_length=2)
    assert message_of(CUBE, 0, spec, HAND_WORDS, {"word_orders": orders}) == "bbaabaab"
    small = ("cube", "red", "metal", "small")
    assert message_of(small, 0, spec, HAND_WORDS, {"word_orders": orders}) == "abaaccba"


@pytest.mark.parametrize("seed", SEEDS)
def test_sampled_shufdet_messages_are_the_words_in_their_sizes_order(seed):
    lang = language(seed, LanguageSpec(grammar="shufdet"))
    orders = lang.parameters["word_orders"]
    assert orders["large"] != orders["small"]
    for obj, message in lang.messages.items():
        word = dict(zip(TUPLE_ORDER, (lang.words[v] for v in obj)))
        assert words_of(message, 4) == [word[a] for a in orders[obj[-1]]]


@pytest.mark.parametrize("seed", SEEDS)
def test_perm_is_one_permutation_of_concats_columns(seed):
    concat = language(seed, LanguageSpec(grammar="concat"))
    perm = language(seed, LanguageSpec(grammar="perm"))
    p = perm.parameters["permutation"]
    assert sorted(p) == list(range(16)) and p != list(range(16))
    for obj in UNIVERSE:
        assert perm.messages[obj] == "".join(concat.messages[obj][k] for k in p)


def test_shuf_orders_each_utterances_words_its_own_way():
    lang = language(0, LanguageSpec(grammar="shuf"))
    orders = {tuple(o) for o in lang.parameters["word_orders"]}
    assert len(orders) > 12  # 144 draws of 24 orders
    for obj, message in lang.messages.items():
        assert sorted(words_of(message, 4)) == sorted(lang.words[v] for v in obj)


def test_eng_words_are_three_letter_abbreviations_of_every_value():
    lang = language(0, LanguageSpec(symbols="eng"))
    assert lang.messages[CUBE] == "cubredmetlrg"
    assert set(ENG_WORDS) == {v for a in TUPLE_ORDER for v in ATTRIBUTES[a]}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.grammar}-{s.symbols}")
@pytest.mark.slow
def test_a_language_is_a_bijection_where_the_paper_says_so_and_is_rebuilt_alike(spec):
    for seed in SEEDS:
        lang = language(seed, spec)
        assert set(lang.messages) == set(UNIVERSE)
        assert all(len(m) == spec.c_len and set(m) <= set("abcdefghijklmnopqrstuvwxyz"[:spec.V])
                   for m in lang.messages.values())
        if spec.grammar in grammars.BIJECTIVE:
            assert len(set(lang.messages.values())) == len(UNIVERSE)
    language.cache_clear()
    assert language_json(3, spec) == language_json(3, spec.model_copy())


def test_a_language_spec_refuses_too_few_words_and_resized_eng():
    with pytest.raises(ValidationError, match="cannot name"):
        LanguageSpec(vocab_size=2, word_length=3)
    with pytest.raises(ValidationError, match="eng words"):
        LanguageSpec(symbols="eng", vocab_size=4)
    with pytest.raises(ValidationError):
        LanguageSpec(grammar="zigzag")


# -- metrics (the paper's Figure 3) ---------------------------------------------------------------

def test_topsim_of_concat_is_far_above_hol_on_every_seed():
    for seed in SEEDS:
        concat = language_arrays(language_json(seed, LanguageSpec(grammar="concat")))
        hol = language_arrays(language_json(seed, LanguageSpec(grammar="hol")))
        assert topsim(*concat[:2]) > 0.8 and abs(topsim(*hol[:2])) < 0.1


@pytest.mark.slow
def test_concat_and_perm_score_high_and_the_transformed_grammars_low():
    mean = {g: {k: np.mean([metrics_of(language_json(s, LanguageSpec(grammar=g)))[k] for s in SEEDS])
                for k in ("topsim", "posdis", "hce")} for g in ("concat", "perm", "rot", "proj", "shufdet", "hol")}
    for high in ("concat", "perm"):
        assert mean[high]["posdis"] == pytest.approx(1) and mean[high]["hce"] == pytest.approx(1)
        for low in ("rot", "proj", "shufdet", "hol"):
            assert all(mean[low][k] < mean[high][k] - 0.2 for k in mean[low])


def test_icy_metrics_prints_a_languages_scores_and_refuses_other_files(tmp_path, mewl):
    path = tmp_path / "language.json"
    path.write_text(json.dumps({"language": language_json(0, LanguageSpec(grammar="perm"))}))
    code, printed, _ = mewl("icy-metrics", path)
    assert code == 0 and printed.startswith("grammar perm: topsim 0.9")
    path.write_text(items("icy-naming", "train", 1, LanguageSpec(grammar="hol"))[0].model_dump_json())
    code, printed, _ = mewl("icy-metrics", path)
    printed = printed.split()  # the item's root seed and spec rebuild its language
    assert code == 0 and printed[:3] == ["grammar", "hol:", "topsim"] and abs(float(printed[3])) < 0.1
    path.write_text("{}")
    code, _, err = mewl("icy-metrics", path)
    assert code == 2 and len(err.splitlines()) == 1 and "not an ICY language" in err


# -- the tasks: splits, derivable answers, validators ------------------------------------------------

def items(task: str, split: str, n: int, spec: LanguageSpec | None = None, seed: int = 0):
    return [sample_item(task, seed, split, i, config=spec) for i in range(n)]


def truth_of(item, name: str) -> dict:
    """What the renderer writes of a scene that matters here, labelled by the item."""
    objects = [{"shape": o.shape, "color": o.color, "material": o.material, "size": o.size, "name": None}
               for o in item.scenes()[name].objects]
    return item.label_image(name, {"objects": objects})


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.slow
def test_held_out_pairs_are_named_only_in_the_test_split(seed):
    lang = language(seed, LanguageSpec())
    assert len(lang.holdout) == len({c for _, c in lang.holdout}) == len(COLORS)  # one per color
    counts = [[s for s, _ in lang.holdout].count(shape) for shape in SHAPES]
    assert max(counts) - min(counts) <= 1  # each shape held out with as many colors as another
    for split in ("train", "val", "test"):
        for item in items("icy-naming", split, 20, seed=seed):
            pair = item.object[:2]
            assert (pair in lang.holdout) == item.held_out == (split == "test")
            assert item.message == lang.messages[item.object]
        for ep in items("icy-episodes", split, 10, seed=seed):
            assert ep.held_out == (split == "test")
            assert all(not lang.held_out(p.scene.objects[0].properties) for p in ep.context_panels)
            held = {lang.messages[o] for o in UNIVERSE if lang.held_out(o)}
            assert (set(ep.choices) <= held) if split == "test" else not set(ep.choices) & held


@pytest.mark.parametrize("grammar", grammars.GRAMMARS)
@pytest.mark.slow
def test_an_episodes_query_pair_is_unseen_and_its_answer_its_message(grammar):
    spec = LanguageSpec(grammar=grammar)
    lang = language(0, spec)
    for ep in items("icy-episodes", "train", 15, spec) + items("icy-episodes", "test", 15, spec):
        query = ep.query.objects[0].properties
        shown = [p.scene.objects[0].properties for p in ep.context_panels]
        assert all(o[:2] != query[:2] for o in shown)
        assert [o[1] for o in shown].count(query[1]) == 1 and query[0] in {o[0] for o in shown}
        assert ep.answer == lang.messages[query] and len(set(ep.choices)) == 5
        assert [p.name for p in ep.context_panels] == [lang.messages[o] for o in shown]


@pytest.mark.slow
def test_counting_the_contexts_words_favours_no_choice():
    """A text-only guesser: the choice with the most words standing where some
    panel's message has them. Every choice's color is shown once, its material,
    size and shape too, so it ties and stays at chance (1/5)."""
    right = 0
    eps = items("icy-episodes", "train", 300)
    for ep in eps:
        said = [words_of(p.utterance, 4) for p in ep.context_panels]
        score = [sum(any(w[k] == b for w in said) for k, b in enumerate(words_of(c, 4))) for c in ep.choices]
        right += ep.choices[int(np.argmax(score))] == ep.answer
    assert 0.12 < right / len(eps) < 0.28


DERIVE = {"concat": derive_concat, "shufdet": derive_shufdet}


@pytest.mark.parametrize("grammar", DERIVE)
def test_a_derivation_from_any_context_is_never_wrong(grammar):
    """Soundness: over random contexts and queries, whatever is derived is the true message."""
    rng = np.random.default_rng(0)
    derived = 0
    for seed in SEEDS:
        lang = language(seed, LanguageSpec(grammar=grammar))
        for _ in range(300):
            picked = [UNIVERSE[k] for k in rng.choice(len(UNIVERSE), size=7, replace=False)]
            context = [(o, lang.messages[o]) for o in picked[1:]]
            found = DERIVE[grammar](context, picked[0], 4)
            assert found in (None, lang.messages[picked[0]])
            derived += found is not None
    assert derived > 20


@pytest.mark.parametrize("grammar", DERIVE)
def test_concat_and_shufdet_answers_follow_from_the_context_alone(grammar):
    """The answer, and every distractor alike: a context that derived the answer's message alone would
    tell a solver who knows the rule which choice it derives."""
    spec = LanguageSpec(grammar=grammar)
    for split in ("train", "test"):
        for ep in items("icy-episodes", split, 30, spec):
            context = [(p.scene.objects[0].properties, p.utterance) for p in ep.context_panels]
            query = ep.query.objects[0].properties
            assert DERIVE[grammar](context, query, 4) == ep.answer
            named = {m: o for o, m in language(ep.root_seed, spec).messages.items()}
            assert [DERIVE[grammar](context, named[c], 4) for c in ep.choices] == list(ep.choices)
            # Without the panels that show the query's color, its word cannot be learned.
            assert DERIVE[grammar]([c for c in context if c[0][1] != query[1]], query, 4) is None


def test_hol_answers_cannot_be_derived_from_the_context():
    spec = LanguageSpec(grammar="hol")
    derived = 0
    for ep in items("icy-episodes", "train", 30, spec):
        context = [(p.scene.objects[0].properties, p.utterance) for p in ep.context_panels]
        query = ep.query.objects[0].properties
        derived += any(d(context, query, 4) == ep.answer for d in DERIVE.values())
    assert derived == 0


def test_validators_reject_a_wrong_message_and_a_held_out_pair_outside_test():
    naming = items("icy-naming", "train", 1)[0]
    with pytest.raises(InvalidItem, match="is not named"):
        validate_naming(naming.model_copy(update={"message": "a" * 16}))
    with pytest.raises(InvalidItem, match="split"):
        validate_naming(naming.model_copy(update={"split": "test"}))
    ep = items("icy-episodes", "train", 1)[0]
    wrong = next(c for c in ep.choices if c != ep.answer)
    with pytest.raises(InvalidItem, match="answer"):
        validate_episode(ep.model_copy(update={"answer": wrong}))
    with pytest.raises(InvalidItem, match="split"):
        validate_episode(ep.model_copy(update={"split": "test"}))


@pytest.mark.parametrize("name, what", [("question", "a release file's name"), ("item", "a release file's name"),
                                        (None, "another panel's name")])
def test_an_episode_panel_named_like_another_file_is_refused(name, what):
    data = items("icy-episodes", "train", 1)[0].model_dump(mode="json")
    data["context_panels"][1]["name"] = name or data["context_panels"][0]["name"]
    with pytest.raises(ValidationError, match=what):
        type(items("icy-episodes", "train", 1)[0]).model_validate(data)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.slow
def test_panels_show_every_shape_equally_often_so_no_choice_has_more_shape_words(seed):
    """Panels never show a held-out pair; in test that once favoured the answer's shape (the other
    held-out colors' panels avoid their held-out shapes): counting the panels of each choice's shape
    chose the answer 0.249 of 3,000 test episodes. Now every shape is in two panels."""
    for i in range(100):
        ep = sample_item("icy-episodes", seed, "test", i)
        shapes = [p.scene.objects[0].properties[0] for p in ep.context_panels]
        assert all(shapes.count(s) == len(shapes) // len(SHAPES) for s in SHAPES), shapes
