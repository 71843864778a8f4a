"""The learned probe of an icy-episodes item with its context withheld (tasks.audit.views, .choices): the
query and the choices alone, each choice described generically, a model fitted on other items scoring
it, the item's guess its best-scored choice; floor 1 over the choices.

A choice is described by how its message stands among the other choices (its length; for each word
block, how many of them have that block there and anywhere; where the words cannot be read, its letters:
those in the same place as theirs, common beginnings and ends, distinct symbols) and by the query's
object (its attributes). Its symbols themselves are left out: the language is the dataset's, so the
model is fitted on another seed's items (another language, icy/audit.py), never on items of the same
language, whose queries and answers would teach it the words (icy-naming's task).

The marker scan (tasks.audit.markers) reads the five choices as the objects the language names by them
(the query's and four of its material and size in other colors, validate.readings): the answer's object
against one other choice's, by a coin of the index, each with its slot among the choices.
(The choices' shapes come two, two and one, the query a uniform one of the five.)"""
from __future__ import annotations

from mewl_gen.scenes.universe import TUPLE_ORDER

from ..audit import Probe
from ..audit.choices import Choices, choices, halves_choices
from ..audit.markers import coin, object_statistics
from ..audit.views import View
from .language import LanguageSpec, language
from .validate import readings

BLOCKS = 4  # words per message: one per attribute


def _blocks(message: str, width: int) -> list[str]:
    return [message[k * width:(k + 1) * width] for k in range(BLOCKS)] if width else [message]


def _common(a: str, b: str) -> tuple[int, int, int]:
    """Letters in the same place, common beginning, common end."""
    begin = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    end = next((k for k, (x, y) in enumerate(zip(a[::-1], b[::-1])) if x != y), min(len(a), len(b)))
    return sum(x == y for x, y in zip(a, b)), begin, end


def choice_view(choice: str, others: list[str], query: dict, width: int) -> View:
    """Where the words can be read (`width` known), a choice is described by its words, never its letters:
    letters two different words share are the language's spelling, one draw per language, and a model
    fitted on another language read them with the query's attributes as a few coins for all of a
    language's items (docs/audit.md, ICY). Where they cannot, the letters are all there is."""
    mine = _blocks(choice, width)
    theirs = [_blocks(o, width) for o in others]
    blocks = [{"at": k, "others there": sum(t[k] == b for t in theirs if k < len(t)),
               "others anywhere": sum(b in t for t in theirs), "repeated": mine.count(b) > 1}
              for k, b in enumerate(mine)]
    letters = {} if width else {
        "symbols": len(set(choice)),
        "against the others": [dict(zip(("same places", "same beginning", "same end"), _common(choice, o)))
                               for o in others]}
    return {"length": len(choice), **letters, "blocks": blocks,
            **{f"block {k}: others there": row["others there"] for k, row in enumerate(blocks)},
            **{f"query {a}": query[a] for a in TUPLE_ORDER}}


def item_choices(item: dict, width: int) -> Choices:
    """An icy-episodes record as the probe keeps it; `width` the language's word length (0: unknown)."""
    query = item["query"]["objects"][0]
    views = [choice_view(c, [o for o in item["choices"] if o != c], query, width) for c in item["choices"]]
    return choices(item["index"], views, item["choices"].index(item["answer"]))


def probe(items: list[Choices], train: list[Choices]) -> Probe:
    """Fitted on `train`, another language's items, and scored on `items`."""
    floor = 1 / len(items[0].views) if items else 1 / 5
    return halves_choices(items, train, floor) if train else Probe(0, 0, floor)


def answer_and_distractor(item: dict) -> tuple[dict, dict] | None:
    """The answer's choice and another, each as the object it names among the choices' objects (its
    statistics among them, and its slot); None where the choices do not name one list of objects (a
    language that gives two objects one message: whichever reading were taken would mark the distractors)."""
    lang = language(item["root_seed"], LanguageSpec.model_validate(item["language"]))
    query = tuple(item["query"]["objects"][0][a] for a in TUPLE_ORDER)
    found = readings(item["choices"], item["answer"], lang, query)
    if len(found) != 1:
        return None
    others = iter(found[0][1:])  # the distractors' objects in the choices' order, the answer's skipped
    objects = [query if c == item["answer"] else next(others) for c in item["choices"]]
    rows = object_statistics([dict(zip(TUPLE_ORDER, o)) for o in objects], TUPLE_ORDER)
    for slot, row in enumerate(rows):
        row["slot"] = slot
    answer = item["choices"].index(item["answer"])
    distractors = [k for k in range(len(rows)) if k != answer]
    return rows[answer], rows[distractors[coin(item["index"], len(distractors))]]
