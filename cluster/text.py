"""`mewl text OUT`: the text inputs of MEWL's unimodal baselines (paper, appendix B).

For every split and task of a rendered dataset, OUT/<split>/<task>.text.jsonl
holds one line per episode: the prompt, each context panel's caption with its
utterance, the query caption, the choices and the label (the answer's index).
`text` is GPT-3.5's input before an option is appended; `start_phrase` is the
same without the prompt, as the BERT data of MEWL's notebook. Everything is
read from the released files (info.json and the images' JSON), nothing from
the specs, so the lines describe exactly what was published.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from scenes.captions import PROMPT
from scenes.spec import TASKS

from . import dataset, options, verify
from .errors import UserError


def utterance(panel_name: str) -> str:
    """What MEWL's loaders read from a panel name: a final '#...' token dropped."""
    tokens = panel_name.split(" ")
    return " ".join(tokens[:-1] if tokens[-1].startswith("#") else tokens)


def _caption(folder: Path, name: str) -> str:
    path = folder / f"{name}.json"
    try:
        text = json.loads(path.read_text()).get("caption")
    except (OSError, json.JSONDecodeError) as err:
        raise UserError(f"{path}: cannot read it ({err})") from None
    if not text:
        raise UserError(f"{path} has no caption: it was rendered by an older mewl-gen; render it again")
    return text


def episode_text(folder: Path, split: str, task: str) -> dict:
    info = json.loads((folder / "info.json").read_text())
    contexts = [{"caption": _caption(folder, p["name"]), "utterance": utterance(p["name"])}
                for p in info["context_panels"]]
    query_caption = _caption(folder, "question")
    question = info["question"]
    shown = "".join(f"Context: {c['caption']}\nName: {c['utterance']}\n\n" for c in contexts)
    start_phrase = f"{shown}Context: {query_caption}\nName: "
    return {
        "split": split, "task": task, "index": int(folder.name),
        "prompt": PROMPT,
        "contexts": contexts,
        "query_caption": query_caption,
        "choices": question["choices"],
        "answer": question["answer"],
        "label": question["choices"].index(question["answer"]),
        "text": f"{PROMPT}\n\n{start_phrase}",
        "start_phrase": start_phrase,
    }


def episodes(out: Path, split: str, task: str) -> list[Path]:
    """Episode folders in index order (staging folders are hidden and
    skipped, and so are names this tool never writes, such as '007')."""
    folder = out / split / task
    found = [p for p in folder.iterdir() if p.is_dir() and dataset.episode_index(p.name) is not None]
    return sorted(found, key=lambda p: int(p.name))


def splits_and_tasks(out: Path) -> list[tuple[str, str]]:
    return [(s.name, t) for s in sorted(out.iterdir())
            if s.is_dir() and options.SPLIT_PATTERN.match(s.name) for t in TASKS if (s / t).is_dir()]


def cmd_text(args) -> int:
    out = options.output(args.out)
    if not out.is_dir():
        raise UserError(f"{out}: no such folder")
    pairs = splits_and_tasks(out)
    if not pairs:
        raise UserError(f"{out} holds no <split>/<task> folders of rendered episodes")
    skipped: list[str] = []
    with dataset.writing(out):
        for split, task in pairs:
            good, bad = verify.sound(out, episodes(out, split, task))
            skipped += bad
            lines = [json.dumps(episode_text(folder, split, task)) + "\n" for folder in good]
            path = out / split / f"{task}.text.jsonl"
            dataset.write_atomic(path, "".join(lines))
            print(f"{path}: {len(lines)} episode(s)")
    if skipped:
        print(f"mewl text: left out {verify.damaged_line(skipped, 'episode')}", file=sys.stderr)
    return 1 if skipped else 0


def register(sub) -> None:
    s = sub.add_parser("text", help="write the text inputs of MEWL's GPT/BERT baselines as OUT/<split>/<task>.text.jsonl")
    s.add_argument("out")
    s.set_defaults(func=cmd_text)
