"""What both ICY items hold besides their scenes: identity, language and split."""
from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ..item import Item
from .language import LanguageSpec


class IcyItem(Item):
    language: LanguageSpec = Field(description="the dataset's language; its table is language_json(root_seed, language)")
    held_out: bool = Field(description="the (query) object's color-shape pair is one of the language's held-out pairs")

    INDEXED: ClassVar[bool] = True
