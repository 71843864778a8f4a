"""Why an ICY item's answer is its answer, from its files as the file-only solver reads them: the
language's words for the object's values (naming), or what each context panel shows and says (episodes)."""
from __future__ import annotations

from ..item import QUESTION
from ..stored import StoredItem
from .item import IMAGE, Naming
from .language import language_json
from .solver import table


def _shown(stored: StoredItem, scene: str, attributes: list[str]) -> tuple[str, ...]:
    """The values of the image's one object, as its ground truth gives them."""
    truth = stored.image_truth(scene)
    obj = truth.objects[0].as_json() if truth is not None and truth.objects else {}
    return tuple(str(obj.get(a, "?")) for a in attributes)


def why(stored: StoredItem) -> tuple[str, ...]:
    item = stored.item()
    language = language_json(item.root_seed, item.language)
    attributes, words = language["attributes"], language["words"]
    lines = [f"The language: grammar {item.language.grammar}, words of {language['word_length']} symbols in the "
             f"order {', '.join(attributes)}."]
    if isinstance(item, Naming):
        shown = _shown(stored, IMAGE, attributes)
    else:
        for panel in item.context_panels:
            lines.append(f"Panel {panel.name!r} shows a {' '.join(_shown(stored, panel.name, attributes))} and "
                         f"says {panel.utterance!r}.")
        shown = _shown(stored, QUESTION, attributes)
    lines.append("The object to name is a " + " ".join(shown) + ": its words are "
                 + ", ".join(f"{a} {v} → {words[a].get(v, '?')!r}" for a, v in zip(attributes, shown)) + ".")
    lines.append(f"The language's table names it {table(language).get(shown, '(no message)')!r}.")
    return tuple(lines)
