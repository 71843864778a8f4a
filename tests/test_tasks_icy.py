"""ICY: grammars by their definitions, the languages' metrics, both tasks' splits and the file-only checker."""
from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from cluster.errors import UserError
from cluster.icy_metrics import cmd_icy_metrics, language_arrays, metrics_of
from cluster.solvers import icy as checker
from scenes.universe import ATTRIBUTES, TUPLE_ORDER, UNIVERSE
from tasks import sample_item
from tasks.episode import InvalidEpisode
from tasks.icy import grammars
from tasks.icy.derive import derive_concat, derive_shufdet, words_of
from tasks.icy.episodes import validate as validate_episode
from tasks.icy.language import ENG_WORDS, LanguageSpec, encode, language, language_json, message_of
from tasks.icy.metrics import topsim
from tasks.icy.naming import validate as validate_naming

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


def test_concat_and_perm_score_high_and_the_transformed_grammars_low():
    mean = {g: {k: np.mean([metrics_of(language_json(s, LanguageSpec(grammar=g)))[k] for s in SEEDS])
                for k in ("topsim", "posdis", "hce")} for g in ("concat", "perm", "rot", "proj", "shufdet", "hol")}
    for high in ("concat", "perm"):
        assert mean[high]["posdis"] == pytest.approx(1) and mean[high]["hce"] == pytest.approx(1)
        for low in ("rot", "proj", "shufdet", "hol"):
            assert all(mean[low][k] < mean[high][k] - 0.2 for k in mean[low])


def test_icy_metrics_prints_a_languages_scores_and_refuses_other_files(tmp_path, capsys):
    path = tmp_path / "language.json"
    path.write_text(json.dumps({"language": language_json(0, LanguageSpec(grammar="perm"))}))
    assert cmd_icy_metrics(type("Args", (), {"language": path})) == 0
    assert capsys.readouterr().out.startswith("grammar perm: topsim 0.9")
    path.write_text("{}")
    with pytest.raises(UserError, match="not an ICY language"):
        cmd_icy_metrics(type("Args", (), {"language": path}))
