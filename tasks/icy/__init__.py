"""ICY (Bennett et al., 2021): artificial languages over the universe's objects.

A dataset has one language, drawn from its root seed and `CONFIG`
(LanguageSpec: grammar, |V|, c_w, symbols); `language_json(root_seed, spec)`
is the whole of it for the manifest. docs/icy.md describes both tasks.
"""
from __future__ import annotations

from ..registry import Benchmark, Task
from . import episodes, naming
from .language import LanguageSpec, language, language_json

CONFIG = LanguageSpec  # Draw.config of every ICY task; None means LanguageSpec()

RELEASE = (
    "An icy-naming item folder holds `image.png`, `image.json` (the object's `name` is its message) and "
    "`item.json`; an icy-episodes folder holds the six context panels `<message>.png/.json`, "
    "`question.png/.json` and `item.json` (choices, answer). The language's full table is in the manifest; "
    "docs/icy.md lists its fields and the held-out color-shape pairs, shown only in the split `test`."
)

ICY = Benchmark("icy", "ICY: objects named in artificial languages, compositional to people or only to networks", (
    Task("icy-naming", "icy", "one object per image and its message; held-out color-shape pairs only in test",
         naming.sample, naming.validate, naming.Naming, images=1),
    Task("icy-episodes", "icy", "six panels named by messages, a query of an unseen color-shape pair, five messages",
         episodes.sample, episodes.validate, episodes.IcyEpisode, images=7),
), release=RELEASE)

__all__ = ["CONFIG", "ICY", "LanguageSpec", "language", "language_json"]
