"""The text inputs of MEWL's unimodal baselines (paper, appendix B), one line per episode.

`mewl text OUT` writes them as OUT/<split>/<task>.text.jsonl: the prompt,
each context panel's caption with its utterance, the query caption, the
choices and the label (the answer's index). `text` is GPT-3.5's input before
an option is appended; `start_phrase` is the same without the prompt, as the
BERT data of MEWL's notebook. Everything is read from the released files
(info.json and the images' JSON), nothing from the specs, so the lines
describe exactly what was published.
"""
from __future__ import annotations

from ..stored import DamagedItem, StoredItem
from .captions import PROMPT


def utterance(panel_name: str) -> str:
    """What MEWL's loaders read from a panel name: a final '#...' token dropped."""
    tokens = panel_name.split(" ")
    return " ".join(tokens[:-1] if tokens[-1].startswith("#") else tokens)


def _caption(stored: StoredItem, name: str) -> str:
    truth = stored.truth(name)
    if truth is None:
        raise DamagedItem(f"{stored.folder / name}.json is missing: `mewl text` reads rendered episodes")
    if not truth.get("caption"):
        raise DamagedItem(f"{stored.folder / name}.json has no caption: it was rendered by an older mewl-gen; "
                          "render it again")
    return truth["caption"]


def episode_text(stored: StoredItem) -> dict:
    info = stored.json("info.json")
    contexts = [{"caption": _caption(stored, p["name"]), "utterance": utterance(p["name"])}
                for p in info["context_panels"]]
    query_caption = _caption(stored, "question")
    question = info["question"]
    shown = "".join(f"Context: {c['caption']}\nName: {c['utterance']}\n\n" for c in contexts)
    start_phrase = f"{shown}Context: {query_caption}\nName: "
    return {
        "split": stored.split, "task": stored.task, "index": stored.index,
        "prompt": PROMPT,
        "contexts": contexts,
        "query_caption": query_caption,
        "choices": question["choices"],
        "answer": question["answer"],
        "label": question["choices"].index(question["answer"]),
        "text": f"{PROMPT}\n\n{start_phrase}",
        "start_phrase": start_phrase,
    }
