"""ICY (Bennett et al., 2021): artificial languages over the universe's objects.

A dataset has one language, drawn from its root seed and `CONFIG`
(LanguageSpec: grammar, |V|, c_w, symbols); `language_json(root_seed, spec)`
is the whole of it for the manifest. docs/icy.md describes both tasks.
"""
from __future__ import annotations

from pydantic import ValidationError

from mewl_gen.scenes.universe import describe

from ..benchmark import EPISODE_EXPORT, Benchmark, Column, Config, Export, Solver, Task, release_card
from ..gallery import Block, Gallery, episode_blocks, episode_line, one_image_page, yes_no
from ..item import QUESTION, one_image
from ..stored import StoredItem
from ..study import Study, episode_trial
from . import explain, solver
from .audit import AUDIT, truth
from .command import METRICS
from .item import IMAGE, IcyEpisode, Naming
from .language import LanguageSpec, language, language_json
from .published import BIBTEX, PUBLISHED
from .sample import sample_episode, sample_naming
from .validate import validate_episode, validate_naming

CONFIG = LanguageSpec  # Draw.config of every ICY task; None means LanguageSpec()

RELEASE = (
    "An icy-naming item folder holds `image.png`, `image.json` (the object's `name` is its message) and "
    "`item.json`; an icy-episodes folder holds the six context panels `<message>.png/.json`, "
    "`question.png/.json` and `item.json` (choices, answer). The language's full table is in the manifest; "
    "`held_out` in `item.json` says whether the (query) object is of one of the language's held-out "
    "color-shape pairs, which only the split `test` shows."
)

def parse_language(value: str) -> LanguageSpec:
    """'--grammar NAME[:key=value,...]', e.g. 'rot', 'perm:vocab_size=10,word_length=3', 'concat:symbols=eng'."""
    name, _, rest = value.partition(":")
    fields: dict[str, object] = {"grammar": name}
    for pair in filter(None, rest.split(",")):
        key, eq, raw = pair.partition("=")
        if not eq:
            raise ValueError(f"expected key=value after the grammar, got {pair!r}")
        fields[key] = int(raw) if raw.isdigit() else raw
    try:
        return LanguageSpec(**fields)
    except ValidationError as err:
        e = err.errors()[0]
        raise ValueError(f"{'.'.join(map(str, e['loc'])) or 'language'}: {e['msg']}") from None


LANGUAGE = Config(
    option="--grammar", default="concat", load=parse_language,
    help="ICY's language: GRAMMAR[:vocab_size=V,word_length=C,symbols=synthetic|eng]; GRAMMAR one of concat, perm, "
         "proj, rot, shufdet, shuf, hol (default concat, |V| = 4, c_w = 4); the whole language goes into the manifest",
    manifest=lambda spec, seed: {"spec": spec.model_dump(mode="json"), "language": language_json(seed, spec)},
)

def _solve(stored: StoredItem) -> str | None:
    """icy-naming: the message of the object the image shows, by the table of the item's language (rebuilt
    from its spec and seed, as written to the manifest). icy-episodes: the choice whose words the panels
    teach, where the grammar lets a learner read words off panels (CONCAT; else None)."""
    item = stored.record()
    language = language_json(item["root_seed"], LanguageSpec.model_validate(item["language"]))
    if item["task"] == "icy-naming":
        obj = truth(stored, IMAGE, item["scene"])["objects"][0]
        return solver.table(language)[tuple(obj[a] for a in language["attributes"])]
    truths = {p["name"]: truth(stored, p["name"], p["scene"]) for p in item["context_panels"]}
    truths[QUESTION] = truth(stored, QUESTION, item["query"])
    return solver.solve_concat(item, truths, language)


def _language(item) -> tuple[tuple[str, str], ...]:
    spec = item.language
    return (("grammar", spec.grammar), ("symbols", spec.symbols),
            ("held-out color-shape pair", yes_no(item.held_out)))


# icy-naming: the object, its message; icy-episodes: MEWL's layout, the panels captioned by their messages.
NAMING_PAGE = one_image_page(lambda item: item.message, lambda item: (
    ("object", describe(item.object)), ("message", item.message), *_language(item)),
    line=lambda item: f"{item.message}: {describe(item.object)}", why=explain.why)
EPISODE_PAGE = Gallery(lambda item: (*episode_blocks(item), Block("Item", facts=(
    ("query object", describe(item.query.objects[0].properties)), *_language(item)))), episode_line,
    lambda item: QUESTION, why=explain.why)
# icy-episodes as MEWL shows an episode, the panels named by their messages (docs/icy.md). icy-naming has no
# trial: an object alone, with no context to learn the language from, asks a person for a message they
# cannot know.
EPISODE_STUDY = Study(episode_trial, (
    "Each page shows six pictures of objects, each with its name in an invented language. The names are "
    "made of parts that stand for what the objects look like.\n\nThen a new object appears, one that no "
    "picture showed. Click the name it has in the same language."))


ICY = Benchmark("icy", "ICY: objects named in artificial languages, compositional to people or only to networks", (
    Task("icy-naming", "icy", "one object per image and its message; held-out color-shape pairs only in test",
         sample_naming, validate_naming, Naming, images=1,
         solver=Solver(_solve, 1 / 144),  # an open answer: a guess names one of the 144 objects
         export=Export(one_image, lambda item: {"message": item.message},
                       {"message": Column("string", "the object's message in the item's language: the answer")}),
         gallery=NAMING_PAGE),
    Task("icy-episodes", "icy", "six panels named by messages, a query of an unseen color-shape pair, five messages",
         sample_episode, validate_episode, IcyEpisode, images=7, solver=Solver(_solve, 1 / 5),
         export=EPISODE_EXPORT,
         gallery=EPISODE_PAGE, study=EPISODE_STUDY),
), card=release_card(RELEASE, BIBTEX), config=LANGUAGE, commands=(METRICS,), audit=AUDIT,
          published=PUBLISHED)

__all__ = ["CONFIG", "ICY", "LanguageSpec", "language", "language_json"]
