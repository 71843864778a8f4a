"""What both ICY items hold besides their scenes: identity, language and split."""
from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from scenes.spec import GENERATOR_VERSION, SPLIT_PATTERN, Item, Seed

from .language import LanguageSpec


class IcyItem(Item):
    generator: str = GENERATOR_VERSION
    split: str = Field(pattern=SPLIT_PATTERN, description="folder under OUT")
    index: int = Field(ge=0)
    root_seed: Seed
    retry: int = Field(0, ge=0, description="item redrawn from a derived seed this many times")
    language: LanguageSpec = Field(description="the dataset's language; its table is language_json(root_seed, language)")
    held_out: bool = Field(description="the (query) object's color-shape pair is one of the language's held-out pairs")

    INDEXED: ClassVar[bool] = True
