"""ICY (Bennett et al., 2021): artificial languages over the universe's objects.

A dataset has one language, drawn from its root seed and `CONFIG`
(LanguageSpec: grammar, |V|, c_w, symbols); `language_json(root_seed, spec)`
is the whole of it for the manifest. docs/icy.md describes both tasks.
"""
from __future__ import annotations

from pydantic import ValidationError

from ..registry import Benchmark, Config, Task
from . import episodes, naming
from .language import LanguageSpec, language, language_json

CONFIG = LanguageSpec  # Draw.config of every ICY task; None means LanguageSpec()

RELEASE = (
    "An icy-naming item folder holds `image.png`, `image.json` (the object's `name` is its message) and "
    "`item.json`; an icy-episodes folder holds the six context panels `<message>.png/.json`, "
    "`question.png/.json` and `item.json` (choices, answer). The language's full table is in the manifest; "
    "docs/icy.md lists its fields and the held-out color-shape pairs, shown only in the split `test`."
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

ICY = Benchmark("icy", "ICY: objects named in artificial languages, compositional to people or only to networks", (
    Task("icy-naming", "icy", "one object per image and its message; held-out color-shape pairs only in test",
         naming.sample, naming.validate, naming.Naming, images=1),
    Task("icy-episodes", "icy", "six panels named by messages, a query of an unseen color-shape pair, five messages",
         episodes.sample, episodes.validate, episodes.IcyEpisode, images=7),
), release=RELEASE, config=LANGUAGE)

__all__ = ["CONFIG", "ICY", "LanguageSpec", "language", "language_json"]
