"""A file-only checker of ICY releases: the language table, item.json and each image's ground truth.

It never imports the sampler: it rebuilds every message from the language's own
written parts (words, grammar parameters) and from the attributes the
renderer wrote for each image, then compares with the table and the items.
Every function returns a list of problems, empty when all holds.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..stored import StoredItem

TEST_SPLIT = "test"


def _object(record: dict, attributes: list[str]) -> tuple[str, ...]:
    return tuple(record[a] for a in attributes)


def rebuild(language: dict, obj: tuple[str, ...], index: int) -> str:
    """One object's message from the language's words and grammar parameters alone."""
    attributes, grammar, vocabulary = language["attributes"], language["grammar"], language["vocabulary"]
    name = grammar["name"]
    if name == "hol":
        return grammar["messages"][index]
    word = {a: language["words"][a][v] for a, v in zip(attributes, obj)}
    if name in ("shufdet", "shuf"):
        order = grammar["word_orders"][obj[-1]] if name == "shufdet" else grammar["word_orders"][index]
        return "".join(word[a] for a in order)
    text = "".join(word[a] for a in attributes)
    if name == "perm":
        return "".join(text[k] for k in grammar["permutation"])
    V = len(vocabulary)
    symbols = [vocabulary.index(c) for c in text]
    if name == "rot":
        return "".join(vocabulary[s % V] for s in np.cumsum(symbols))
    if name == "proj":
        onehot = np.zeros((len(symbols), V))
        onehot[np.arange(len(symbols)), symbols] = 1
        scores = (np.asarray(grammar["projection"]) @ onehot.ravel()).reshape(len(symbols), V)
        return "".join(vocabulary[k] for k in scores.argmax(1))
    return text  # concat


def table(language: dict) -> dict[tuple[str, ...], str]:
    return {_object(o, language["attributes"]): o["message"] for o in language["objects"]}


def held_out(language: dict, obj: tuple[str, ...]) -> bool:
    pair = dict(zip(language["attributes"], obj))
    return any(pair["shape"] == h["shape"] and pair["color"] == h["color"] for h in language["holdout"])


def check_language(language: dict) -> list[str]:
    found = table(language)
    return [f"{' '.join(o)}: table says {m!r}, its words and grammar give {rebuild(language, o, i)!r}"
            for i, (o, m) in enumerate(found.items()) if rebuild(language, o, i) != m]


def _split_problem(language: dict, obj, split: str, where: str) -> list[str]:
    if held_out(language, obj) != (split == TEST_SPLIT):
        return [f"{where}: {' '.join(obj)} is {'a held-out' if held_out(language, obj) else 'a seen'} pair in {split!r}"]
    return []


def check_naming(item: dict, truth: dict, language: dict) -> list[str]:
    """icy-naming: the image's one object, named by the table's message, in the right split."""
    obj = _object(truth["objects"][0], language["attributes"])
    message = table(language)[obj]
    problems = [] if len(truth["objects"]) == 1 else ["the image shows more than one object"]
    if not (item["message"] == truth["objects"][0]["name"] == message):
        problems.append(f"{' '.join(obj)} is named {item['message']!r}, the table says {message!r}")
    return problems + _split_problem(language, obj, item["split"], "image")


def check_episode(item: dict, truths: dict[str, dict], language: dict) -> list[str]:
    """icy-episodes: each panel utters its object's message; the answer names the query; splits kept."""
    names, problems = table(language), []
    for panel in item["context_panels"]:
        obj = _object(truths[panel["name"]]["objects"][0], language["attributes"])
        if panel["utterance"] != names[obj]:
            problems.append(f"panel {panel['name']!r} shows {' '.join(obj)}, whose message is {names[obj]!r}")
        if held_out(language, obj):
            problems.append(f"panel {panel['name']!r} shows a held-out pair")
    query = _object(truths["question"]["objects"][0], language["attributes"])
    if item["answer"] != names[query] or item["choices"].count(names[query]) != 1:
        problems.append(f"the query {' '.join(query)} is named {names[query]!r}, not the answer {item['answer']!r}")
    return problems + _split_problem(language, query, item["split"], "query")


def check_release(items: Iterable[StoredItem], language: dict) -> list[str]:
    """Rendered ICY items (as the store's reader gives them), read from their files alone; the language
    table checked too."""
    problems = check_language(language)
    for stored in items:
        item = stored.record()
        if item["task"] == "icy-naming":
            found = check_naming(item, stored.truth("image"), language)
        else:
            names = [p["name"] for p in item["context_panels"]] + ["question"]
            found = check_episode(item, {n: stored.truth(n) for n in names}, language)
        problems += [f"{stored.key}: {p}" for p in found]
    return problems


def solve_concat(item: dict, truths: dict[str, dict], language: dict) -> str | None:
    """Answer an icy-episodes item as a learner who knows only that words of c_w
    symbols stand in attribute order: read each of the query's words off a
    panel that shows its value. Uses no table, only `attributes` and `word_length`."""
    attributes, c_w = language["attributes"], language["word_length"]
    heard: dict[tuple[int, str], set[str]] = {}
    for panel in item["context_panels"]:
        shown = _object(truths[panel["name"]]["objects"][0], attributes)
        for k, value in enumerate(shown):
            heard.setdefault((k, value), set()).add(panel["utterance"][k * c_w:(k + 1) * c_w])
    query = _object(truths["question"]["objects"][0], attributes)
    words = [heard.get((k, value), set()) for k, value in enumerate(query)]
    guess = "".join(w.pop() for w in words) if all(len(w) == 1 for w in words) else None
    return guess if guess in item["choices"] else None
